// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The input's tokens as a row of toggle buttons, for marking tokens as padding keys (the Masks workspace).

#include <QStringList>
#include <QWidget>

#include <vector>

class QToolButton;

namespace attnui {

// A row of tokens as toggle buttons: checked = padding key. Emits toggled(position) on a click.
class PaddingStrip : public QWidget {
    Q_OBJECT
public:
    explicit PaddingStrip(QWidget *parent = nullptr);
    void setTokens(const QStringList &tokens, const std::vector<int> &padding);
    QToolButton *button(int position) const { return m_buttons.value(position); }
    int count() const { return int(m_buttons.size()); }

signals:
    void toggled(int position);

private:
    QList<QToolButton *> m_buttons;
};

} // namespace attnui
