// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The tokens in their permuted order as a row of chips that can be dragged into a new order. Position i shows
// token π[i] of the input; a drag that changes the order emits orderEdited() with the new π.

#include <QListWidget>

#include <cstdint>
#include <vector>

namespace attnui {

class PermutationStrip : public QListWidget {
    Q_OBJECT
public:
    explicit PermutationStrip(QWidget *parent = nullptr);

    // labels: the input's tokens [L]; order: π [L] (token order[i] at position i); special tokens are drawn
    // in italics.
    void setTokens(const QStringList &labels, const std::vector<std::int64_t> &order,
                   const std::vector<std::uint8_t> &special = {});
    std::vector<std::int64_t> order() const;
    QStringList shownLabels() const;   // the labels in the order shown

    QSize sizeHint() const override;

signals:
    void orderEdited(const std::vector<std::int64_t> &order);

protected:
    void dropEvent(QDropEvent *event) override;

private:
    bool m_updating = false;
};

} // namespace attnui
