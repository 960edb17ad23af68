// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The input's tokens as a row of toggles, for marking tokens as padding keys (the Masks workspace).

#include <QStringList>
#include <QWidget>

#include <vector>

namespace attnui {

// A row of tokens, each a toggle: checked = padding key. One painted widget, not a button per token: at 4096
// tokens a layout of 4096 buttons costs the UI thread a quarter of a second each time it is shown or resized.
// Only the chips inside the visible area are painted. Click a chip (or focus the strip, move with ←/→, and press
// Space) to toggle it; toggled(position) says which.
class PaddingStrip : public QWidget {
    Q_OBJECT
public:
    explicit PaddingStrip(QWidget *parent = nullptr);
    void setTokens(const QStringList &tokens, const std::vector<int> &padding);
    int count() const { return int(m_tokens.size()); }
    bool isPadding(int position) const;
    QRect chipRect(int position) const;   // in this widget's coordinates; empty outside 0…count − 1
    int chipAt(QPoint pos) const;         // −1 where there is no chip
    int current() const { return m_current; }   // the chip ←/→ and Space act on

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void toggled(int position);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    bool event(QEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void relayout();
    int chipHeight() const;

    QStringList m_tokens;
    std::vector<char> m_padding;   // [count]
    std::vector<int> m_left;       // [count + 1]: chip i spans m_left[i] … m_left[i + 1] − spacing
    int m_current = 0;
};

} // namespace attnui
