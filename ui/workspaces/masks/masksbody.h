// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Masks workspace's body, in a scroll area: the figure (the small multiples and the output changes), the
// custom-mask editor and the proofs. Wide enough (1600 px), the editor and the proofs are a column left of the
// figure, so the editor is on screen without scrolling; narrower (1280×720, 1366×768, or beside the lesson dock),
// the figure takes the whole width and the editor and proofs sit side by side under it (the body scrolls).

#include <QWidget>

class QGridLayout;

namespace attnui {

class MasksBody : public QWidget {
    Q_OBJECT
public:
    MasksBody(QWidget *figure, QWidget *editor, QWidget *proofs, QWidget *parent = nullptr);
    // Arrange by the width of `viewport` (the scroll area's), whenever it is resized.
    void followWidth(QWidget *viewport);
    bool isWide() const { return m_wide; }
    void rearrange();   // a minimum width changed (the editor follows the text's length)

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void place(bool wide);

    QWidget *m_figure;
    QWidget *m_editor;
    QWidget *m_proofs;
    QGridLayout *m_grid;
    QWidget *m_viewport = nullptr;
    bool m_wide = false;
};

} // namespace attnui
