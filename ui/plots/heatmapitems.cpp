// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/heatmapitems.h"

#include "plots/heatmapplot.h"

#include <cmath>

namespace attnui {

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

MaskHatch::MaskHatch(QCustomPlot *plot) : QCPAbstractItem(plot)
{
    setSelectable(false);
}

void MaskHatch::draw(QCPPainter *painter)
{
    if (m_runs.empty()) return;
    QCPAxis *x = parentPlot()->xAxis, *y = parentPlot()->yAxis;
    // Hatch lines need a few pixels per cell to read as hatching rather than noise.
    const double cellPx = std::abs(x->coordToPixel(1.0) - x->coordToPixel(0.0));
    if (cellPx < 6.0) return;
    const QCPRange rows = y->range();
    painter->setPen(Qt::NoPen);
    painter->setBrush(QBrush(m_color, Qt::BDiagPattern));
    for (const Run &r : m_runs) {
        if (r.row + 0.5 < rows.lower || r.row - 0.5 > rows.upper) continue;
        const QPointF a(x->coordToPixel(r.first - 0.5), y->coordToPixel(r.row - 0.5));
        const QPointF b(x->coordToPixel(r.last + 0.5), y->coordToPixel(r.row + 0.5));
        painter->drawRect(QRectF(a, b).normalized());
    }
}

CellValues::CellValues(QCustomPlot *plot, const std::shared_ptr<const HeatmapData> *data,
                       const std::shared_ptr<const std::vector<float>> *shown, const QCPColorMap *map)
    : QCPAbstractItem(plot), m_data(data), m_shown(shown), m_map(map)
{
    setSelectable(false);
}

void CellValues::draw(QCPPainter *painter)
{
    const HeatmapData &d = **m_data;
    if (d.rows <= 0 || d.cols <= 0 || d.values.size() != std::size_t(d.rows) * std::size_t(d.cols)) return;
    QCPAxis *x = parentPlot()->xAxis, *y = parentPlot()->yAxis;
    const double w = std::abs(x->coordToPixel(1.0) - x->coordToPixel(0.0));
    const double h = std::abs(y->coordToPixel(1.0) - y->coordToPixel(0.0));
    QFont font = parentPlot()->font();
    // At most a little over the plot's own type (11 pt at the usual 10 pt, larger in presentation mode).
    font.setPointSizeF(std::clamp(std::min(w / 4.2, h / 2.2) * 0.75, 6.0, std::max(11.0, font.pointSizeF() * 1.1)));
    const QFontMetricsF fm(font);
    if (fm.horizontalAdvance(QStringLiteral("0.00")) + 4 > w || fm.height() + 2 > h) return;
    painter->setFont(font);
    const QCPRange xr = x->range(), yr = y->range();
    const QCPRange dataRange = m_map->dataRange();
    QCPColorGradient gradient = m_map->gradient();
    const bool logarithmic = m_map->dataScaleType() == QCPAxis::stLogarithmic;
    const std::vector<float> *shown = *m_shown && (*m_shown)->size() == d.values.size() ? m_shown->get() : nullptr;
    const bool haveMask = d.masked.size() == d.values.size();
    for (int i = std::max(0, int(std::floor(yr.lower))); i <= std::min(d.rows - 1, int(std::ceil(yr.upper))); ++i)
        for (int j = std::max(0, int(std::floor(xr.lower))); j <= std::min(d.cols - 1, int(std::ceil(xr.upper))); ++j) {
            const std::size_t ij = std::size_t(i) * std::size_t(d.cols) + std::size_t(j);
            if (haveMask && d.masked[ij]) continue;
            const double v = d.values[ij];
            const double colored = shown ? double((*shown)[ij]) : v;
            painter->setPen(textColorOn(QColor::fromRgb(gradient.color(colored, dataRange, logarithmic))));
            const QRectF cell(QPointF(x->coordToPixel(j - 0.5), y->coordToPixel(i - 0.5)),
                              QPointF(x->coordToPixel(j + 0.5), y->coordToPixel(i + 0.5)));
            QString text = HeatmapPlot::cellText(v);
            if (fm.horizontalAdvance(text) + 2 > w) text = QStringLiteral("≈0");   // a tiny number in a narrow cell (exact on hover)
            painter->drawText(cell.normalized(), Qt::AlignCenter, text);
        }
}

QCPColorGradient makeGradient(ColorMap map, bool dark)
{
    QCPColorGradient g;
    g.setColorStops(colorStops(map));
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setLevelCount(256);
    g.setNanHandling(QCPColorGradient::nhNanColor);
    g.setNanColor(maskedColor(dark));
    return g;
}

std::unique_ptr<QCPColorMapData> makeCells(const HeatmapLevel &level)
{
    auto cells = std::make_unique<QCPColorMapData>(level.storageCols, level.storageRows,
                                                   QCPRange(level.keyLower, level.keyUpper),
                                                   QCPRange(level.valueLower, level.valueUpper));
    for (int y = 0; y < level.storageRows; ++y)
        for (int x = 0; x < level.storageCols; ++x)
            cells->setCell(x, y, level.cells[std::size_t(y) * std::size_t(level.storageCols) + std::size_t(x)]);
    return cells;
}

std::vector<MaskHatch::Run> maskRuns(const HeatmapData &data)
{
    std::vector<MaskHatch::Run> runs;
    if (data.masked.size() != data.values.size()) return runs;
    for (int i = 0; i < data.rows; ++i) {
        const std::uint8_t *row = data.masked.data() + std::size_t(i) * std::size_t(data.cols);
        for (int j = 0; j < data.cols;) {
            if (!row[j]) {
                ++j;
                continue;
            }
            const int first = j;
            while (j < data.cols && row[j]) ++j;
            runs.push_back({i, first, j - 1});
        }
    }
    return runs;
}

ScaledMatrix scaleHeatmap(const HeatmapData &m, const HeatmapScaleInputs &in)
{
    double lower = in.fixedLower, upper = in.fixedUpper;
    if (m.valueRange) std::tie(lower, upper) = *m.valueRange;
    const bool valid = m.rows > 0 && m.cols > 0 && m.values.size() == std::size_t(m.rows) * std::size_t(m.cols);
    if (in.diverging) {
        ScaledMatrix s;
        s.lower = lower;
        s.upper = upper;
        if (valid) s.values = applyNoiseFloor(m.values.data(), m.values.size(), in.noiseFloor);
        s.labelSuffix = noiseFloorSuffix(in.noiseFloor);
        return s;
    }
    if (!valid) {
        ScaledMatrix s;
        s.lower = lower;
        s.upper = upper;
        return s;
    }
    const bool haveMask = m.masked.size() == m.values.size();
    return scaleMatrix(m.values.data(), haveMask ? m.masked.data() : nullptr, m.rows, m.cols, in.scale, lower, upper);
}

} // namespace attnui
