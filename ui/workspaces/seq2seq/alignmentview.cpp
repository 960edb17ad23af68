// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/seq2seq/alignmentview.h"

#include "plots/vectorpaint.h"

#include <QFontMetrics>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace attnui {

namespace {

constexpr int kMargin = 12;
constexpr int kBoxPad = 6;      // inside a token box, left and right
constexpr int kGap = 8;         // between token boxes
constexpr int kBand = 220;      // the lines' band between the rows
constexpr int kMinSlot = 36;
constexpr int kMaxBand = 420;   // at most this far apart on screen
constexpr double kMinFontScale = 0.7;

} // namespace

AlignmentView::AlignmentView(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void AlignmentView::setData(Data data)
{
    m_data = std::move(data);
    m_layout.reset();
    m_hoverIndex = -1;
    updateGeometry();
    update();
}

void AlignmentView::setColorMap(ColorMap map)
{
    m_colorMap = map;
    update();
}

void AlignmentView::setStep(int step)
{
    const int T = int(m_data.target.size());
    m_step = step < 0 ? -1 : std::min(step, std::max(0, T - 1));
    update();
}

void AlignmentView::setHovered(Side side, int index)
{
    if (index < 0) side = Side::Target;   // one "none"
    if (side == m_hoverSide && index == m_hoverIndex) return;
    m_hoverSide = side;
    m_hoverIndex = index;
    update();
    emit tokenHovered(index >= 0 && side == Side::Target ? index : -1, index >= 0 && side == Side::Source ? index : -1);
}

double AlignmentView::weight(int row, int col) const
{
    const int S = int(m_data.source.size());
    const std::size_t i = std::size_t(row) * std::size_t(S) + std::size_t(col);
    return i < m_data.weights.size() ? double(m_data.weights[i]) : 0.0;
}

bool AlignmentView::rowVisible(int row) const { return m_step < 0 || row <= m_step; }

int AlignmentView::slotWidth(const QFont &f) const
{
    const QFontMetrics fm(f);
    int widest = 0;
    for (const QStringList *list : {&m_data.source, &m_data.target})
        for (const QString &t : *list) widest = std::max(widest, fm.horizontalAdvance(t));
    return std::max(kMinSlot, widest + 2 * kBoxPad + kGap);
}

QFont AlignmentView::tokenFont() const
{
    // Narrower than the sentences need (a dock beside it, a small window): smaller type, down to kMinFontScale of
    // the widget's; below that the labels are elided rather than overlap.
    QFont f = font();
    const int longest = int(std::max(m_data.source.size(), m_data.target.size()));
    const int need = longest * slotWidth(f), room = width() - 2 * kMargin;
    if (longest == 0 || need <= room || f.pointSizeF() <= 0) return f;
    f.setPointSizeF(f.pointSizeF() * std::max(kMinFontScale, double(room) / need));
    return f;
}

int AlignmentView::slot() const
{
    const int longest = std::max<int>(1, int(std::max(m_data.source.size(), m_data.target.size())));
    // The sentences spread over the width (squeezed with tokenFont()'s smaller type when it is narrow).
    return std::max(kGap + 4, (width() - 2 * kMargin) / longest);
}

QSize AlignmentView::figureSize() const
{
    const QFontMetrics fm(font());
    const int n = int(std::max(m_data.source.size(), m_data.target.size()));
    const int w = std::max(480, 2 * kMargin + n * slotWidth(font()));
    // Title, source row, band, target row, the weights' numbers under the source in generation.
    const int h = 2 * kMargin + 3 * fm.height() + 4 + 2 * (fm.height() + 2 * kBoxPad) + kBand;
    return {w, h};
}

QSize AlignmentView::sizeHint() const { return figureSize(); }

QSize AlignmentView::minimumSizeHint() const { return {320, 260}; }

int AlignmentView::rowY(Side side) const
{
    const QFontMetrics fm(font());
    const int boxH = fm.height() + 2 * kBoxPad;
    // Under the title and the line of weights (generation); the band between the rows grows with the widget up to
    // kMaxBand, and the two rows are centred in what is left.
    const int top = kMargin + 2 * fm.height() + fm.height() + 4;
    const int room = height() - kMargin - top - 2 * boxH;
    const int band = std::clamp(room, 60, kMaxBand);
    const int offset = std::max(0, (room - band) / 2);
    return side == Side::Source ? top + offset : top + offset + boxH + band;
}

const AlignmentView::Layout &AlignmentView::layout() const
{
    if (m_layout && m_layout->size == size()) return *m_layout;
    // Measured once per data, size and font: painting and every mouse move read the boxes from here.
    Layout l;
    l.size = size();
    l.font = tokenFont();
    const QFontMetrics fm(l.font);
    const int boxH = QFontMetrics(font()).height() + 2 * kBoxPad;
    // Both rows share one slot width, centred, and spread out when the widget is wider than they need.
    const int width = slot();
    for (Side side : {Side::Source, Side::Target}) {
        const QStringList &list = side == Side::Source ? m_data.source : m_data.target;
        std::vector<QRect> &rects = side == Side::Source ? l.source : l.target;
        const int n = int(list.size()), left = (this->width() - n * width) / 2, y = rowY(side);
        for (int i = 0; i < n; ++i) {
            const int textW = std::min(fm.horizontalAdvance(list[i]) + 2 * kBoxPad, width - kGap);
            const int cx = left + i * width + width / 2;
            rects.push_back(QRect(cx - textW / 2, y, textW, boxH));
        }
    }
    m_layout = std::move(l);
    return *m_layout;
}

QRect AlignmentView::tokenRect(Side side, int index) const
{
    const std::vector<QRect> &rects = side == Side::Source ? layout().source : layout().target;
    return index >= 0 && index < int(rects.size()) ? rects[std::size_t(index)] : QRect();
}

void AlignmentView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::FontChange) m_layout.reset();
    QWidget::changeEvent(event);
}

std::vector<AlignmentView::Line> AlignmentView::lines() const
{
    std::vector<Line> out;
    const int T = int(m_data.target.size()), S = int(m_data.source.size());
    for (int t = 0; t < T; ++t) {
        if (!rowVisible(t)) continue;
        if (m_step >= 0 && t != m_step) continue;
        if (m_hoverIndex >= 0 && m_hoverSide == Side::Target && t != m_hoverIndex) continue;
        for (int s = 0; s < S; ++s) {
            if (m_hoverIndex >= 0 && m_hoverSide == Side::Source && s != m_hoverIndex) continue;
            const double w = weight(t, s);
            if (w >= kMinWeight) out.push_back({t, s, w});
        }
    }
    std::sort(out.begin(), out.end(), [](const Line &a, const Line &b) { return a.weight < b.weight; });
    return out;
}

void AlignmentView::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    const QFontMetrics fm(font());
    p.setPen(pal.color(QPalette::Text));
    QFont titleFont = font();
    titleFont.setBold(true);
    p.setFont(titleFont);
    p.drawText(QRect(kMargin, kMargin, width() - 2 * kMargin, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
               m_data.title);
    const QFont &tokens = layout().font;
    p.setFont(tokens);
    const QFontMetrics tfm(tokens);

    // Lines: from the bottom of a source box to the top of a target box, a gentle S-curve.
    const QColor lineColor = pal.color(QPalette::Highlight);
    for (const Line &l : lines()) {
        const QRect a = tokenRect(Side::Source, l.col), b = tokenRect(Side::Target, l.row);
        const QPointF from(a.center().x(), a.bottom() + 2), to(b.center().x(), b.top() - 2);
        QPainterPath path(from);
        const double midY = (from.y() + to.y()) / 2;
        path.cubicTo(QPointF(from.x(), midY), QPointF(to.x(), midY), to);
        QColor c = lineColor;
        c.setAlphaF(float(std::clamp(0.15 + 0.85 * l.weight, 0.0, 1.0)));
        p.setPen(QPen(c, 0.6 + 3.4 * l.weight, Qt::SolidLine, Qt::RoundCap));
        p.drawPath(path);
    }

    const QColor muted = pal.color(QPalette::PlaceholderText);
    const auto drawBox = [&](const QRect &r, const QString &text, bool special, bool hovered, const QColor *fill) {
        QColor bg = fill ? *fill : pal.color(QPalette::AlternateBase);
        p.setPen(QPen(hovered && !paintingFigure() ? pal.color(QPalette::Highlight) : pal.color(QPalette::Mid),
                      hovered && !paintingFigure() ? 2.0 : 1.0));
        p.setBrush(bg);
        p.drawRoundedRect(QRectF(r).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);
        p.setPen(fill ? textColorOn(bg) : special ? muted : pal.color(QPalette::Text));
        p.drawText(r, Qt::AlignCenter, tfm.elidedText(text, Qt::ElideRight, r.width() - 2));
    };
    // Generation: each source token filled with the colour of the step's weight on it, the number under it.
    for (int s = 0; s < int(m_data.source.size()); ++s) {
        const QRect r = tokenRect(Side::Source, s);
        const bool special = s < int(m_data.sourceSpecial.size()) && m_data.sourceSpecial[std::size_t(s)];
        if (m_step >= 0) {
            const double w = weight(m_step, s);
            const QColor fill = colorAt(m_colorMap, w);
            drawBox(r, m_data.source[s], special, false, &fill);
            p.setPen(pal.color(QPalette::Text));
            p.drawText(QRect(r.center().x() - 30, r.top() - fm.height() - 2, 60, fm.height()), Qt::AlignCenter,
                       QString::number(w, 'f', 2));
        } else {
            drawBox(r, m_data.source[s], special, m_hoverSide == Side::Source && m_hoverIndex == s, nullptr);
        }
    }
    for (int t = 0; t < int(m_data.target.size()); ++t) {
        const QRect r = tokenRect(Side::Target, t);
        if (!rowVisible(t)) {
            // Not made yet: an empty slot, all of one width (the token to come is not given away).
            const QRectF slot(r.center().x() - kMinSlot / 2.0 + 0.5, r.top() + 0.5, kMinSlot - kGap - 1.0, r.height() - 1.0);
            p.setPen(QPen(pal.color(QPalette::Mid), 1.0, Qt::DashLine));
            p.setBrush(Qt::NoBrush);
            p.drawRoundedRect(slot, 4, 4);
            continue;
        }
        const bool current = m_step == t;
        const QColor fill = pal.color(QPalette::Highlight);
        drawBox(r, m_data.target[t], t >= m_data.targetWords, !current && m_hoverSide == Side::Target && m_hoverIndex == t,
                current ? &fill : nullptr);
    }
}

void AlignmentView::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    for (Side side : {Side::Source, Side::Target}) {
        const int n = int((side == Side::Source ? m_data.source : m_data.target).size());
        for (int i = 0; i < n; ++i)
            if (tokenRect(side, i).adjusted(-kGap / 2, -4, kGap / 2, 4).contains(pos)) {
                setHovered(side, i);
                return;
            }
    }
    setHovered(Side::Target, -1);
}

void AlignmentView::leaveEvent(QEvent *) { setHovered(Side::Target, -1); }

} // namespace attnui
