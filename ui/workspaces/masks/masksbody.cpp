// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/masks/masksbody.h"

#include <QEvent>
#include <QGridLayout>

#include <algorithm>

namespace attnui {

MasksBody::MasksBody(QWidget *figure, QWidget *editor, QWidget *proofs, QWidget *parent)
    : QWidget(parent), m_figure(figure), m_editor(editor), m_proofs(proofs), m_grid(new QGridLayout(this))
{
    m_grid->setContentsMargins(0, 0, 0, 0);
    place(false);
}

void MasksBody::followWidth(QWidget *viewport)
{
    m_viewport = viewport;
    viewport->installEventFilter(this);
    rearrange();
}

bool MasksBody::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_viewport && event->type() == QEvent::Resize) rearrange();
    return QWidget::eventFilter(watched, event);
}

void MasksBody::rearrange()
{
    if (!m_viewport) return;
    // Side by side only when both keep their minimum widths: a figure squeezed below its panels' minimum would
    // scroll sideways. The editor's minimum follows the text's length (MasksView::sizeEditor).
    const int column = std::max(m_editor->isHidden() ? 0 : m_editor->minimumSizeHint().expandedTo(m_editor->minimumSize()).width(),
                                m_proofs->minimumSizeHint().width());
    const int needed = column + m_grid->horizontalSpacing() + m_figure->minimumSizeHint().width();
    place(m_viewport->width() >= needed);
}

void MasksBody::place(bool wide)
{
    if (wide == m_wide && m_grid->count() == 3) return;
    m_wide = wide;
    for (QWidget *w : {m_figure, m_editor, m_proofs}) m_grid->removeWidget(w);
    for (int i = 0; i < 3; ++i) {
        m_grid->setRowStretch(i, 0);
        m_grid->setColumnStretch(i, 0);
    }
    if (wide) {
        m_grid->addWidget(m_editor, 0, 0);
        m_grid->addWidget(m_proofs, 1, 0);
        m_grid->addWidget(m_figure, 0, 1, 2, 1);
        m_grid->setColumnStretch(1, 1);
        m_grid->setRowStretch(0, 1);
    } else {
        m_grid->addWidget(m_figure, 0, 0, 1, 2);
        m_grid->addWidget(m_editor, 1, 0);
        m_grid->addWidget(m_proofs, 1, 1);
        m_grid->setColumnStretch(1, 1);
        m_grid->setRowStretch(0, 3);
        m_grid->setRowStretch(1, 2);
    }
}

} // namespace attnui
