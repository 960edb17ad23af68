// SPDX-License-Identifier: GPL-3.0-or-later
#include "kit/tokenchips.h"

#include <QEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QPainterPath>

namespace attnui {

namespace {
constexpr int kPadX = 7, kPadY = 3, kGap = 5;
constexpr int kMaxChips = 400;   // beyond this, chips stop being readable; the count says how many more
}

TokenChips::TokenChips(QWidget *parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void TokenChips::setTokens(const QStringList &tokens, const std::vector<std::uint8_t> &special)
{
    m_tokens = tokens;
    m_special = special;
    m_layoutValid = false;
    m_query = m_key = -1;
    updateGeometry();
    update();
}

void TokenChips::setHighlight(int query, int key)
{
    if (query == m_query && key == m_key) return;
    m_query = query;
    m_key = key;
    update();
}

void TokenChips::setPlaceholder(const QString &text)
{
    m_placeholder = text;
    update();
}

const QList<QRect> &TokenChips::layoutChips(int width) const
{
    // Cached per width: heightForWidth and every paint ask for it, and thousands of chips take milliseconds.
    if (m_layoutValid && width == m_layoutWidth) return m_layout;
    m_layoutValid = true;
    m_layoutWidth = width;
    QList<QRect> &rects = m_layout;
    rects.clear();
    const QFontMetrics fm(font());
    const int h = fm.height() + 2 * kPadY;
    int x = 0, y = 0;
    const int n = std::min<int>(int(m_tokens.size()), kMaxChips);
    for (int i = 0; i < n; ++i) {
        const QString label = QStringLiteral("%1 %2").arg(i).arg(m_tokens[i]);
        // +2: the index and the token are measured apart when painted, and may round up a pixel each.
        const int w = std::min(fm.horizontalAdvance(label) + 2 * kPadX + 2, std::max(width, 40));
        if (x > 0 && x + w > width) {
            x = 0;
            y += h + kGap;
        }
        rects.append(QRect(x, y, w, h));
        x += w + kGap;
    }
    return rects;
}

void TokenChips::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) m_layoutValid = false;
}

int TokenChips::heightForWidth(int width) const
{
    const QFontMetrics fm(font());
    const QList<QRect> &rects = layoutChips(width);
    const int extra = m_tokens.size() > kMaxChips ? fm.height() + kGap : 0;
    return rects.isEmpty() ? fm.height() + 2 * kPadY : rects.last().bottom() + 1 + extra;
}

QSize TokenChips::sizeHint() const
{
    return QSize(320, heightForWidth(320));
}

QSize TokenChips::minimumSizeHint() const
{
    const QFontMetrics fm(font());
    return QSize(80, fm.height() + 2 * kPadY);
}

void TokenChips::paintEvent(QPaintEvent *event)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    if (m_tokens.isEmpty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignLeft | Qt::AlignVCenter, m_placeholder);
        return;
    }
    const QList<QRect> &rects = layoutChips(width());
    const QFontMetrics fm(font());
    const bool dark = pal.color(QPalette::Window).lightness() < 128;
    const QColor chip = dark ? QColor(0x3a, 0x3e, 0x46) : QColor(0xe8, 0xee, 0xf7);
    const QColor border = dark ? QColor(0x55, 0x5a, 0x63) : QColor(0xb8, 0xc6, 0xda);
    const QColor queryColor(0xd6, 0x27, 0x28), keyColor(0x1f, 0x77, 0xb4);
    for (int i = 0; i < rects.size(); ++i) {
        if (!rects[i].intersects(event->rect())) continue;   // long inputs scroll: paint what is exposed
        const QRectF r = QRectF(rects[i]).adjusted(0.5, 0.5, -0.5, -0.5);
        QPainterPath path;
        path.addRoundedRect(r, r.height() / 2.5, r.height() / 2.5);
        QColor fill = chip, edge = border;
        if (i == m_query) { fill = queryColor; edge = queryColor.darker(120); }
        else if (i == m_key) { fill = keyColor; edge = keyColor.darker(120); }
        const bool special = isSpecial(i) && i != m_query && i != m_key;
        if (special) {
            fill = dark ? QColor(0x4a, 0x3f, 0x2a) : QColor(0xfb, 0xf1, 0xdc);
            edge = dark ? QColor(0xc9, 0xa2, 0x4d) : QColor(0xb3, 0x86, 0x2a);
        }
        p.fillPath(path, fill);
        p.setPen(QPen(edge, 1, special ? Qt::DashLine : Qt::SolidLine));
        p.drawPath(path);
        const bool strong = i == m_query || i == m_key;
        const QRect textRect = rects[i].adjusted(kPadX, 0, -kPadX, 0);
        const QString index = QString::number(i);
        p.setPen(strong ? QColor(255, 255, 255, 190) : pal.color(QPalette::PlaceholderText));
        p.drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter, index);
        p.setPen(strong ? Qt::white : pal.color(QPalette::Text));
        const int indexWidth = fm.horizontalAdvance(index + QLatin1Char(' '));
        p.drawText(textRect.adjusted(indexWidth, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(m_tokens[i], Qt::ElideRight, textRect.width() - indexWidth));
    }
    if (m_tokens.size() > kMaxChips && !rects.isEmpty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(QRect(0, rects.last().bottom() + kGap, width(), fm.height()), Qt::AlignLeft,
                   tr("… and %1 more tokens").arg(m_tokens.size() - kMaxChips));
    }
}

} // namespace attnui
