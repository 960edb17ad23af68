// SPDX-License-Identifier: GPL-3.0-or-later
#include "kit/paddingstrip.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPaintEvent>
#include <QScrollArea>
#include <QToolTip>

#include <algorithm>

namespace attnui {

namespace {
constexpr int kPadX = 5;      // text inset of a chip
constexpr int kSpacing = 2;   // between chips
}

PaddingStrip::PaddingStrip(QWidget *parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    relayout();
}

void PaddingStrip::setTokens(const QStringList &tokens, const std::vector<int> &padding)
{
    const bool sameTokens = tokens == m_tokens;
    m_tokens = tokens;
    m_padding.assign(std::size_t(tokens.size()), 0);
    for (int p : padding)
        if (p >= 0 && p < tokens.size()) m_padding[std::size_t(p)] = 1;
    m_current = std::clamp(m_current, 0, std::max(0, int(tokens.size()) - 1));
    if (!sameTokens) relayout();
    update();
}

bool PaddingStrip::isPadding(int position) const
{
    return position >= 0 && position < count() && m_padding[std::size_t(position)];
}

int PaddingStrip::chipHeight() const
{
    return fontMetrics().height() + 8;
}

void PaddingStrip::relayout()
{
    const QFontMetrics fm = fontMetrics();
    m_left.assign(std::size_t(count()) + 1, 0);
    int x = 0;
    for (int i = 0; i < count(); ++i) {
        m_left[std::size_t(i)] = x;
        x += fm.horizontalAdvance(m_tokens[i]) + 2 * kPadX + kSpacing;
    }
    m_left[std::size_t(count())] = x;
    updateGeometry();
    resize(sizeHint());
}

QSize PaddingStrip::sizeHint() const
{
    return QSize(std::max(1, m_left.empty() ? 1 : m_left.back()), chipHeight());
}

QSize PaddingStrip::minimumSizeHint() const
{
    return sizeHint();
}

QRect PaddingStrip::chipRect(int position) const
{
    if (position < 0 || position >= count()) return {};
    const int l = m_left[std::size_t(position)], r = m_left[std::size_t(position) + 1] - kSpacing;
    return QRect(l, 0, r - l, chipHeight());
}

int PaddingStrip::chipAt(QPoint pos) const
{
    if (pos.y() < 0 || pos.y() >= chipHeight() || count() == 0) return -1;
    const auto it = std::upper_bound(m_left.begin(), m_left.end(), pos.x());
    const int i = int(it - m_left.begin()) - 1;
    return chipRect(i).contains(pos) ? i : -1;
}

void PaddingStrip::paintEvent(QPaintEvent *event)
{
    if (count() == 0) return;
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette &pal = palette();
    const QRect visible = event->rect();
    // Only the chips that meet the area to paint.
    const int first = std::max(0, int(std::upper_bound(m_left.begin(), m_left.end(), visible.left()) - m_left.begin()) - 1);
    for (int i = first; i < count(); ++i) {
        const QRect r = chipRect(i);
        if (r.left() > visible.right()) break;
        const bool pad = m_padding[std::size_t(i)];
        const QRectF box = QRectF(r).adjusted(0.5, 0.5, -0.5, -0.5);
        p.setPen(QPen(pad ? pal.color(QPalette::Highlight) : pal.color(QPalette::Mid), 1));
        p.setBrush(pad ? pal.brush(QPalette::Highlight) : pal.brush(QPalette::Button));
        p.drawRoundedRect(box, 3, 3);
        if (hasFocus() && i == m_current) {
            p.setPen(QPen(pal.color(QPalette::Highlight), 1, Qt::DashLine));
            p.setBrush(Qt::NoBrush);
            p.drawRoundedRect(box.adjusted(2, 2, -2, -2), 2, 2);
        }
        p.setPen(pad ? pal.color(QPalette::HighlightedText) : pal.color(QPalette::ButtonText));
        p.drawText(r, Qt::AlignCenter, m_tokens[i]);
    }
}

void PaddingStrip::mousePressEvent(QMouseEvent *event)
{
    const int i = chipAt(event->position().toPoint());
    if (event->button() != Qt::LeftButton || i < 0) return QWidget::mousePressEvent(event);
    m_current = i;
    update();
    emit toggled(i);
}

void PaddingStrip::keyPressEvent(QKeyEvent *event)
{
    if (count() == 0) return QWidget::keyPressEvent(event);
    const int before = m_current;
    switch (event->key()) {
    case Qt::Key_Left: m_current = std::max(0, m_current - 1); break;
    case Qt::Key_Right: m_current = std::min(count() - 1, m_current + 1); break;
    case Qt::Key_Home: m_current = 0; break;
    case Qt::Key_End: m_current = count() - 1; break;
    case Qt::Key_Space:
    case Qt::Key_Return:
    case Qt::Key_Enter: emit toggled(m_current); return;
    default: return QWidget::keyPressEvent(event);
    }
    if (m_current != before) {
        update(chipRect(before).adjusted(-1, -1, 1, 1));
        update(chipRect(m_current).adjusted(-1, -1, 1, 1));
        // In a scroll area: bring the chip into view.
        if (auto *scroll = qobject_cast<QScrollArea *>(parentWidget() ? parentWidget()->parentWidget() : nullptr)) {
            const QRect r = chipRect(m_current);
            scroll->ensureVisible(r.center().x(), r.center().y(), r.width(), 0);
        }
    }
}

bool PaddingStrip::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const int i = chipAt(help->pos());
        if (i < 0) {
            QToolTip::hideText();
            event->ignore();
            return true;
        }
        QToolTip::showText(help->globalPos(),
                           isPadding(i) ? tr("token %1 is a padding key: no query attends to it (click to make it a real token)").arg(i)
                                        : tr("token %1: click to mark it as padding").arg(i),
                           this, chipRect(i));
        return true;
    }
    return QWidget::event(event);
}

void PaddingStrip::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) relayout();
}

} // namespace attnui
