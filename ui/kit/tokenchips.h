// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The input's tokens as chips that wrap like text; the hovered query and key are highlighted.

#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <vector>

namespace attnui {

class TokenChips : public QWidget {
    Q_OBJECT
public:
    explicit TokenChips(QWidget *parent = nullptr);

    // special[i] != 0 marks a special token ([CLS], [SEP], <|endoftext|>): drawn with a dashed outline.
    void setTokens(const QStringList &tokens, const std::vector<std::uint8_t> &special = {});
    bool isSpecial(int index) const { return index >= 0 && index < int(m_special.size()) && m_special[std::size_t(index)]; }
    QStringList tokens() const { return m_tokens; }
    void setHighlight(int query, int key);   // -1: none
    void setPlaceholder(const QString &text);

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    const QList<QRect> &layoutChips(int width) const;

    QStringList m_tokens;
    std::vector<std::uint8_t> m_special;
    QString m_placeholder;
    int m_query = -1, m_key = -1;
    mutable QList<QRect> m_layout;   // layoutChips(m_layoutWidth), valid while m_layoutValid
    mutable int m_layoutWidth = -1;
    mutable bool m_layoutValid = false;
};

} // namespace attnui
