// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/headgrid.h"

#include "plots/vectorpaint.h"

#include <QEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace attnui {

namespace {
constexpr int kGap = 10, kMinCell = 56, kMaxCell = 170;
constexpr int kBracket = 6;          // height of the K/V group brackets under the head labels
constexpr int kMaxImageSide = 256;   // thumbnails of longer inputs are subsampled
}

HeadGrid::HeadGrid(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void HeadGrid::setHeads(int layers, int heads, int length, const std::vector<std::vector<float>> &weights,
                        const std::vector<std::uint8_t> &masked,
                        const std::vector<std::vector<std::uint8_t>> &layerMasked)
{
    m_layers = layers;
    m_heads = heads;
    m_length = length;
    // Keep only what the thumbnails show: long inputs are subsampled to kMaxImageSide here, once, so that a
    // 4096-token head costs a 256 × 256 copy on the UI thread rather than 64 MB.
    m_side = std::min(std::max(length, 0), kMaxImageSide);
    const std::size_t L = std::size_t(std::max(length, 0)), side = std::size_t(m_side);
    auto source = [&](std::size_t k) { return k * L / std::max<std::size_t>(side, 1); };
    m_weights.assign(weights.size(), {});
    for (std::size_t h = 0; h < weights.size(); ++h) {
        if (weights[h].size() != L * L) continue;
        m_weights[h].resize(side * side);
        for (std::size_t y = 0; y < side; ++y)
            for (std::size_t x = 0; x < side; ++x) m_weights[h][y * side + x] = weights[h][source(y) * L + source(x)];
    }
    const auto subsample = [&](const std::vector<std::uint8_t> &m) {
        std::vector<std::uint8_t> out;
        if (m.size() != L * L) return out;
        out.resize(side * side);
        for (std::size_t y = 0; y < side; ++y)
            for (std::size_t x = 0; x < side; ++x) out[y * side + x] = m[source(y) * L + source(x)];
        return out;
    };
    m_masked.assign(std::size_t(std::max(layers, 0)), {});
    const std::vector<std::uint8_t> shared = subsample(masked);
    for (std::size_t l = 0; l < m_masked.size(); ++l)
        m_masked[l] = l < layerMasked.size() && !layerMasked[l].empty() ? subsample(layerMasked[l]) : shared;
    m_selLayer = std::clamp(m_selLayer, 0, std::max(0, layers - 1));
    m_selHead = std::clamp(m_selHead, 0, std::max(0, heads - 1));
    rebuildImages();
    updateGeometry();
    update();
}

void HeadGrid::clear()
{
    setHeads(0, 0, 0, {}, {});
}

void HeadGrid::setStructure(const std::vector<int> &kvHeadOf, const std::vector<int> &layerWindow)
{
    if (kvHeadOf == m_kvHeadOf && layerWindow == m_layerWindow) return;
    m_kvHeadOf = kvHeadOf;
    m_layerWindow = layerWindow;
    updateGeometry();
    update();
}

bool HeadGrid::hasWindows() const
{
    return std::any_of(m_layerWindow.begin(), m_layerWindow.end(), [](int w) { return w > 0; });
}

QFont HeadGrid::windowFont() const
{
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() > 0 ? f.pointSizeF() * 0.85 : f.pointSizeF());
    if (f.pointSizeF() <= 0 && f.pixelSize() > 0) f.setPixelSize(std::max(8, f.pixelSize() * 85 / 100));
    return f;
}

QString HeadGrid::windowLabel(int layer) const
{
    const int w = layer >= 0 && layer < int(m_layerWindow.size()) ? m_layerWindow[std::size_t(layer)] : 0;
    return w > 0 ? tr("W %1").arg(w) : QString();
}

int HeadGrid::labelColumnWidth() const
{
    int width = QFontMetrics(font()).horizontalAdvance(QStringLiteral("L00"));
    const QFontMetrics small(windowFont());
    const auto widest = std::max_element(m_layerWindow.begin(), m_layerWindow.end());   // most digits
    if (widest != m_layerWindow.end() && *widest > 0) width = std::max(width, small.horizontalAdvance(tr("W %1").arg(*widest)));
    return width + kGap;
}

// Under the head labels of a layer's row(s): one bracket per K/V head over the query heads that read it.
void HeadGrid::paintKvGroups(QPainter &p, const Geometry &g, int layer)
{
    if (m_kvHeadOf.size() != std::size_t(m_heads)) return;
    p.setPen(QPen(palette().color(QPalette::WindowText), 1));
    int start = 0;
    for (int h = 1; h <= m_heads; ++h) {
        // A group ends where the K/V head changes or the row wraps.
        const bool end = h == m_heads || m_kvHeadOf[std::size_t(h)] != m_kvHeadOf[std::size_t(start)] || h % g.columns == 0;
        if (!end) continue;
        const QRect a = thumbnailRect(layer, start), b = thumbnailRect(layer, h - 1);
        const int y = a.top() - 3;
        p.drawLine(a.left() + 1, y, b.right() - 1, y);
        p.drawLine(a.left() + 1, y, a.left() + 1, y - kBracket + 2);
        p.drawLine(b.right() - 1, y, b.right() - 1, y - kBracket + 2);
        start = h;
    }
}

void HeadGrid::setColorMap(ColorMap map)
{
    m_map = map;
    rebuildImages();
    update();
}

void HeadGrid::setValueRange(double lower, double upper)
{
    m_lower = lower;
    m_upper = upper;
    rebuildImages();
    update();
}

void HeadGrid::setColorScale(ColorScale scale)
{
    if (scale == m_scale) return;
    m_scale = scale;
    rebuildImages();
    update();
}

void HeadGrid::setSelected(int layer, int head)
{
    m_selLayer = layer;
    m_selHead = head;
    update();
}

void HeadGrid::rebuildImages()
{
    m_images.assign(m_weights.size(), QImage());
    const int side = m_side;
    if (side <= 0) return;
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    const QRgb maskRgb = maskedColor(dark).rgb();
    const std::size_t cells = std::size_t(side) * std::size_t(side);
    const int heads = std::max(m_heads, 1);
    const auto maskOf = [&](std::size_t h) -> const std::uint8_t * {
        const std::size_t layer = h / std::size_t(heads);
        return layer < m_masked.size() && m_masked[layer].size() == cells ? m_masked[layer].data() : nullptr;
    };
    bool haveMask = false;
    for (std::size_t h = 0; h < m_weights.size(); ++h) haveMask = haveMask || maskOf(h);
    // A lookup table: one colour per level, as the big heatmap quantises too.
    std::vector<QRgb> lut(256);
    for (int i = 0; i < 256; ++i) lut[std::size_t(i)] = colorAt(m_map, i / 255.0).rgb();
    // Every computed head as the rows of one tall matrix, so that one scale (and one colour bar) covers them all;
    // a head not computed is left out.
    std::vector<float> all;
    std::vector<std::uint8_t> allMasked;
    std::vector<std::size_t> offset(m_weights.size(), std::size_t(-1));
    for (std::size_t h = 0; h < m_weights.size(); ++h) {
        if (m_weights[h].size() != cells) continue;
        offset[h] = all.size();
        all.insert(all.end(), m_weights[h].begin(), m_weights[h].end());
        if (haveMask) {
            if (const std::uint8_t *m = maskOf(h)) allMasked.insert(allMasked.end(), m, m + cells);
            else allMasked.insert(allMasked.end(), cells, 0);
        }
    }
    const int rows = int(all.size() / std::size_t(side));
    m_scaled = scaleMatrix(all.data(), haveMask ? allMasked.data() : nullptr, rows, side, m_scale, m_lower, m_upper);
    const float *colored = m_scaled.values.empty() ? all.data() : m_scaled.values.data();
    const double lower = m_scaled.logarithmic ? std::log(m_scaled.lower) : m_scaled.lower;
    const double span = (m_scaled.logarithmic ? std::log(m_scaled.upper) : m_scaled.upper) - lower;
    for (std::size_t h = 0; h < m_weights.size(); ++h) {
        if (offset[h] == std::size_t(-1)) continue;
        const float *w = colored + offset[h];
        const std::uint8_t *mask = maskOf(h);
        QImage img(side, side, QImage::Format_RGB32);
        for (int y = 0; y < side; ++y) {
            auto *line = reinterpret_cast<QRgb *>(img.scanLine(y));
            for (int x = 0; x < side; ++x) {
                const std::size_t ij = std::size_t(y) * std::size_t(side) + std::size_t(x);
                if (mask && mask[ij]) {
                    line[x] = maskRgb;
                    continue;
                }
                const double v = m_scaled.logarithmic ? std::log(double(w[ij])) : double(w[ij]);
                const double t = span > 0 ? (v - lower) / span : 0.0;
                line[x] = lut[std::size_t(std::clamp(int(std::lround(t * 255.0)), 0, 255))];
            }
        }
        m_images[h] = img;
    }
    m_scaled.values.clear();
    m_scaled.values.shrink_to_fit();
}

HeadGrid::Geometry HeadGrid::geometryFor(int width, bool figure) const
{
    Geometry g;
    const QFontMetrics fm(font());
    g.labelWidth = labelColumnWidth();
    g.labelHeight = fm.height() + 2 + (m_kvHeadOf.empty() ? 0 : kBracket);
    const int heads = std::max(1, m_heads);
    const int avail = std::max(kMinCell, width - g.labelWidth - (figure ? colorBarWidth() : 0));
    if (m_layers <= 1) {
        // One layer: wrap its heads into a near-square block, which fills a side panel best.
        g.columns = int(std::ceil(std::sqrt(double(heads))));
    } else {
        // Several layers: one row per layer, as many heads per row as fit at the smallest readable size.
        g.columns = std::clamp((avail + kGap) / (kMinCell + kGap), 1, heads);
    }
    g.rowsPerLayer = (heads + g.columns - 1) / g.columns;
    g.columns = (heads + g.rowsPerLayer - 1) / g.rowsPerLayer;   // balance the rows
    g.cell = std::clamp((avail + kGap) / g.columns - kGap, kMinCell, kMaxCell);
    return g;
}

int HeadGrid::heightForWidth(int width) const
{
    if (m_layers <= 0 || m_heads <= 0) return QFontMetrics(font()).height() * 2;
    const Geometry g = geometryFor(width, paintingFigure());
    return m_layers * g.rowsPerLayer * (g.cell + g.labelHeight + kGap);
}

QStringList HeadGrid::colorBarTicks() const
{
    // The ends and the middle of the scale (the geometric middle on a log scale).
    const double lo = m_scaled.lower, hi = m_scaled.upper;
    QStringList ticks;
    for (int i = 0; i <= 2; ++i)
        ticks << (m_scaled.logarithmic ? QString::number(lo * std::pow(hi / lo, i / 2.0), 'g', 1)
                                       : QString::number(lo + (hi - lo) * i / 2.0, 'g', 2));
    return ticks;
}

int HeadGrid::colorBarTickWidth() const
{
    const QFontMetrics fm(font());
    int width = 0;
    for (const QString &t : colorBarTicks()) width = std::max(width, fm.horizontalAdvance(t));
    return width;
}

int HeadGrid::colorBarWidth() const
{
    const QFontMetrics fm(font());
    // gap, bar, tick marks and labels, the rotated title (two lines when the scale is not the fixed one)
    const int lines = m_scaled.labelSuffix.isEmpty() ? 1 : 2;
    return kGap * 2 + 14 + 4 + colorBarTickWidth() + kGap + fm.height() * lines + 4;
}

QSize HeadGrid::figureSize() const
{
    const int labelWidth = labelColumnWidth();
    const int heads = std::max(1, m_heads);
    // One layer: a near-square block of heads; several: one row of heads per layer, about 640 px of thumbnails.
    const int columns = m_layers <= 1 ? int(std::ceil(std::sqrt(double(heads)))) : heads;
    const int cell = std::clamp(640 / columns - kGap, kMinCell, 150);
    const int width = labelWidth + columns * (cell + kGap) + colorBarWidth();
    const Geometry g = geometryFor(width, true);
    const int height = std::max(160, m_layers * g.rowsPerLayer * (g.cell + g.labelHeight + kGap));
    return QSize(width, height);
}

QSize HeadGrid::sizeHint() const
{
    return QSize(360, heightForWidth(360));
}

QSize HeadGrid::minimumSizeHint() const
{
    return QSize(kMinCell * 2, kMinCell);
}

QRect HeadGrid::thumbnailRect(int layer, int head) const
{
    const Geometry g = geometryFor(width(), paintingFigure());
    const int row = layer * g.rowsPerLayer + head / g.columns, col = head % g.columns;
    const int x = g.labelWidth + col * (g.cell + kGap);
    const int y = row * (g.cell + g.labelHeight + kGap) + g.labelHeight;
    return QRect(x, y, g.cell, g.cell);
}

bool HeadGrid::headAt(QPoint pos, int *layer, int *head) const
{
    for (int l = 0; l < m_layers; ++l)
        for (int h = 0; h < m_heads; ++h)
            if (thumbnailRect(l, h).contains(pos)) {
                *layer = l;
                *head = h;
                return true;
            }
    return false;
}

void HeadGrid::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QPalette pal = palette();
    const QFontMetrics fm(font());
    if (m_layers <= 0 || m_heads <= 0) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, tr("No result yet"));
        return;
    }
    const bool figure = paintingFigure();
    const Geometry g = geometryFor(width(), figure);
    for (int l = 0; l < m_layers; ++l) {
        const QRect first = thumbnailRect(l, 0);
        p.setPen(pal.color(QPalette::WindowText));
        const QString window = windowLabel(l);
        if (window.isEmpty()) {
            p.drawText(QRect(0, first.top(), g.labelWidth - kGap, g.cell), Qt::AlignRight | Qt::AlignVCenter,
                       QStringLiteral("L%1").arg(l));
        } else {
            // A sliding-window layer: its window under its name.
            const int mid = first.top() + g.cell / 2;
            p.drawText(QRect(0, mid - fm.height(), g.labelWidth - kGap, fm.height()), Qt::AlignRight | Qt::AlignBottom,
                       QStringLiteral("L%1").arg(l));
            p.setFont(windowFont());
            p.drawText(QRect(0, mid, g.labelWidth - kGap, fm.height()), Qt::AlignRight | Qt::AlignTop, window);
            p.setFont(font());
        }
        paintKvGroups(p, g, l);
        for (int h = 0; h < m_heads; ++h) {
            const QRect r = thumbnailRect(l, h);
            const bool selected = !figure && l == m_selLayer && h == m_selHead;   // figures outline none
            QFont f = font();
            f.setBold(selected);
            p.setFont(f);
            p.setPen(selected ? pal.color(QPalette::Highlight) : pal.color(QPalette::WindowText));
            const int bracket = m_kvHeadOf.empty() ? 0 : kBracket;
            p.drawText(QRect(r.left(), r.top() - g.labelHeight, r.width(), g.labelHeight - bracket),
                       Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("H%1").arg(h));
            p.setFont(font());
            const std::size_t idx = std::size_t(l * m_heads + h);
            if (idx < m_images.size() && !m_images[idx].isNull()) {
                p.setRenderHint(QPainter::SmoothPixmapTransform, false);   // crisp cells
                p.drawImage(r, m_images[idx]);
            } else {
                p.fillRect(r, pal.color(QPalette::AlternateBase));
                p.setPen(pal.color(QPalette::PlaceholderText));
                p.drawText(r.adjusted(4, 4, -4, -4), Qt::AlignCenter | Qt::TextWordWrap, tr("click to compute"));
            }
            if (selected) {
                p.setPen(QPen(pal.color(QPalette::Highlight), 3));
                p.setBrush(Qt::NoBrush);
                p.drawRect(r.adjusted(-2, -2, 1, 1));
            } else {
                p.setPen(QPen(pal.color(QPalette::Mid), 1));
                p.setBrush(Qt::NoBrush);
                p.drawRect(r.adjusted(0, 0, -1, -1));
            }
        }
    }
    if (figure) paintColorBar(p, g);
}

// A vertical colour bar right of the thumbnails, drawn as a gradient (vectors in SVG and PDF), with ticks at the
// ends and the middle of the value range and its title along it.
void HeadGrid::paintColorBar(QPainter &p, const Geometry &g)
{
    const QFontMetrics fm(font());
    const QRect first = thumbnailRect(0, 0), last = thumbnailRect(m_layers - 1, m_heads - 1);
    const int right = g.labelWidth + g.columns * (g.cell + kGap) - kGap;
    const int top = first.top(), height = std::clamp(last.bottom() - top, g.cell, 320);
    const QRect bar(right + 2 * kGap, top, 14, height);
    QLinearGradient gradient(bar.bottomLeft(), bar.topLeft());
    const QMap<double, QColor> stops = colorStops(m_map);
    for (auto it = stops.begin(); it != stops.end(); ++it) gradient.setColorAt(it.key(), it.value());
    p.setPen(Qt::NoPen);
    p.fillRect(bar, gradient);
    p.setPen(QPen(palette().color(QPalette::WindowText), 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRectF(bar).adjusted(0.5, 0.5, -0.5, -0.5));
    const QStringList ticks = colorBarTicks();
    const int tickWidth = colorBarTickWidth();
    for (int i = 0; i <= 2; ++i) {
        const int y = bar.bottom() - int(std::lround((bar.height() - 1) * i / 2.0));
        p.drawLine(bar.right() + 1, y, bar.right() + 4, y);
        p.drawText(QRect(bar.right() + 6, y - fm.height() / 2, tickWidth + 4, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   ticks[i]);
    }
    // The label, and under it (read bottom-up, as a second line) what the scale did.
    QString label = tr("attention weight");
    if (!m_scaled.labelSuffix.isEmpty()) label += QLatin1Char('\n') + m_scaled.labelSuffix.trimmed();
    const int lines = label.count(QLatin1Char('\n')) + 1;
    p.save();
    p.translate(bar.right() + 6 + tickWidth + kGap + fm.ascent(), bar.center().y());
    p.rotate(-90);   // read from the bottom up
    p.drawText(QRect(-bar.height() / 2 - 60, -fm.ascent(), bar.height() + 120, fm.height() * lines), Qt::AlignHCenter | Qt::AlignTop,
               label);
    p.restore();
}

void HeadGrid::mousePressEvent(QMouseEvent *event)
{
    int l = 0, h = 0;
    if (event->button() == Qt::LeftButton && headAt(event->position().toPoint(), &l, &h)) {
        setSelected(l, h);
        emit headClicked(l, h);
    }
}

void HeadGrid::mouseMoveEvent(QMouseEvent *event)
{
    int l = 0, h = 0;
    if (headAt(event->position().toPoint(), &l, &h)) {
        setCursor(Qt::PointingHandCursor);
        QString tip = tr("L%1 H%2 (layer %1, head %2, counted from 0): click to show it large").arg(l).arg(h);
        if (m_kvHeadOf.size() == std::size_t(m_heads)) {
            QStringList group;
            for (int q = 0; q < m_heads; ++q)
                if (m_kvHeadOf[std::size_t(q)] == m_kvHeadOf[std::size_t(h)]) group << QStringLiteral("H%1").arg(q);
            tip += tr("\nreads K/V head %1, shared by %2 (grouped-query attention)").arg(m_kvHeadOf[std::size_t(h)]).arg(group.join(QStringLiteral(", ")));
        }
        if (const QString w = windowLabel(l); !w.isEmpty())
            tip += tr("\nsliding-window layer: each query sees the last %1 keys, itself included").arg(m_layerWindow[std::size_t(l)]);
        QToolTip::showText(event->globalPosition().toPoint(), tip, this);
    } else {
        unsetCursor();
        QToolTip::hideText();
    }
}

void HeadGrid::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        rebuildImages();
        update();
    }
}

} // namespace attnui
