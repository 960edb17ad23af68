// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/heatmapplot.h"

#include "plots/heatmaplod.h"
#include "plots/vectorplot.h"

#include <QApplication>
#include <QEvent>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QMouseEvent>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTimer>
#include <QToolTip>
#include <QtConcurrent/QtConcurrentRun>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

namespace attnui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

// Hatching over masked cells, drawn as one rectangle per run of masked cells in a row, so a causal mask over
// thousands of tokens costs one rectangle per visible row, not one per cell.
class MaskHatch : public QCPAbstractItem {
public:
    struct Run {
        int row, first, last;
    };

    explicit MaskHatch(QCustomPlot *plot) : QCPAbstractItem(plot)
    {
        setSelectable(false);
    }

    void setRuns(std::vector<Run> runs) { m_runs = std::move(runs); }
    void setColor(const QColor &color) { m_color = color; }

    double selectTest(const QPointF &, bool, QVariant *) const override { return -1.0; }

protected:
    void draw(QCPPainter *painter) override
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

private:
    std::vector<Run> m_runs;
    QColor m_color;
};

// The weight printed inside each cell when cells are large enough to read it (short inputs, or zoomed in):
// the exact number is on screen and in exported figures, not only on hover.
class CellValues : public QCPAbstractItem {
public:
    explicit CellValues(QCustomPlot *plot, const HeatmapData *data, const QCPColorMap *map)
        : QCPAbstractItem(plot), m_data(data), m_map(map)
    {
        setSelectable(false);
    }

    double selectTest(const QPointF &, bool, QVariant *) const override { return -1.0; }

protected:
    void draw(QCPPainter *painter) override
    {
        const HeatmapData &d = *m_data;
        if (d.rows <= 0 || d.cols <= 0 || d.values.size() != std::size_t(d.rows) * std::size_t(d.cols)) return;
        QCPAxis *x = parentPlot()->xAxis, *y = parentPlot()->yAxis;
        const double w = std::abs(x->coordToPixel(1.0) - x->coordToPixel(0.0));
        const double h = std::abs(y->coordToPixel(1.0) - y->coordToPixel(0.0));
        QFont font = parentPlot()->font();
        font.setPointSizeF(std::clamp(std::min(w / 4.2, h / 2.2) * 0.75, 6.0, 11.0));
        const QFontMetricsF fm(font);
        if (fm.horizontalAdvance(QStringLiteral("0.00")) + 4 > w || fm.height() + 2 > h) return;
        painter->setFont(font);
        const QCPRange xr = x->range(), yr = y->range();
        const QCPRange dataRange = m_map->dataRange();
        QCPColorGradient gradient = m_map->gradient();
        const bool haveMask = d.masked.size() == d.values.size();
        for (int i = std::max(0, int(std::floor(yr.lower))); i <= std::min(d.rows - 1, int(std::ceil(yr.upper))); ++i)
            for (int j = std::max(0, int(std::floor(xr.lower))); j <= std::min(d.cols - 1, int(std::ceil(xr.upper))); ++j) {
                const std::size_t ij = std::size_t(i) * std::size_t(d.cols) + std::size_t(j);
                if (haveMask && d.masked[ij]) continue;
                const double v = d.values[ij];
                // Dark text on light cells, light text on dark ones.
                const QColor bg = QColor::fromRgb(gradient.color(v, dataRange));
                painter->setPen(bg.lightnessF() > 0.55 ? QColor(20, 20, 20) : QColor(245, 245, 245));
                const QRectF cell(QPointF(x->coordToPixel(j - 0.5), y->coordToPixel(i - 0.5)),
                                  QPointF(x->coordToPixel(j + 0.5), y->coordToPixel(i + 0.5)));
                painter->drawText(cell.normalized(), Qt::AlignCenter, QString::number(v, 'f', 2));
            }
    }

private:
    const HeatmapData *m_data;
    const QCPColorMap *m_map;
};

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

} // namespace

struct HeatmapPlot::Private {
    QCustomPlot *plot = nullptr;
    QCPColorMap *map = nullptr;
    QCPColorScale *scale = nullptr;
    QCPTextElement *title = nullptr;
    MaskHatch *hatch = nullptr;
    QCPItemRect *hoverRect = nullptr;
    QSharedPointer<QCPAxisTickerText> rowTicker, colTicker;
    std::optional<HeatmapCell> hover;
    QPoint pressPos;
    double lower = 0.0, upper = 1.0;
    bool updatingTicks = false;
    HeatmapWindow window;                  // what the colour map stores now (see heatmaplod.h)
    int rowStride = 1, colStride = 1;
    QTimer *refine = nullptr;              // re-pools the visible window after zooming a large matrix
    quint64 generation = 0;                // of setData / setDataAsync calls; stale async results are dropped
    bool preparing = false;
    int widestColLabel = -1;               // pixels; −1: to be measured
};

struct HeatmapPlot::Prepared {
    HeatmapData data;
    std::unique_ptr<QCPColorMapData> cells;   // null: nothing to show
    std::vector<MaskHatch::Run> runs;
    HeatmapLevel level;                       // without its cells (moved into `cells`)
};

HeatmapPlot::HeatmapPlot(QWidget *parent) : QWidget(parent), d(std::make_unique<Private>())
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    d->plot = new QCustomPlot(this);
    layout->addWidget(d->plot);
    QCustomPlot *p = d->plot;
    p->setMouseTracking(true);
    p->installEventFilter(this);

    d->title = new QCPTextElement(p, QString(), QFont(font().family(), font().pointSize() + 1, QFont::DemiBold));
    p->plotLayout()->insertRow(0);
    p->plotLayout()->addElement(0, 0, d->title);

    d->map = new VectorColorMap(p->xAxis, p->yAxis);
    d->map->setInterpolate(false);
    d->map->setTightBoundary(false);

    d->scale = new QCPColorScale(p);
    d->scale->setType(QCPAxis::atRight);
    d->scale->setBarWidth(14);
    p->plotLayout()->addElement(1, 1, d->scale);
    d->map->setColorScale(d->scale);
    auto *margins = new QCPMarginGroup(p);
    p->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    d->scale->setMarginGroup(QCP::msTop | QCP::msBottom, margins);

    // Queries top to bottom, keys left to right, as one reads a matrix.
    p->yAxis->setRangeReversed(true);
    d->rowTicker.reset(new QCPAxisTickerText);
    d->colTicker.reset(new QCPAxisTickerText);
    p->yAxis->setTicker(d->rowTicker);
    p->xAxis->setTicker(d->colTicker);
    for (QCPAxis *axis : {p->xAxis, p->yAxis}) {
        axis->grid()->setVisible(false);
        axis->setSubTicks(false);
        axis->setTickLength(0, 3);
    }
    p->xAxis->setLabel(tr("key"));
    p->yAxis->setLabel(tr("query"));

    d->hatch = new MaskHatch(p);
    new CellValues(p, &m_data, d->map);   // owned by the plot

    // The hover outline lives on its own buffered layer so that moving it repaints only that layer.
    p->addLayer(QStringLiteral("hover"), nullptr, QCustomPlot::limAbove);
    QCPLayer *overlay = p->layer(QStringLiteral("hover"));
    overlay->setMode(QCPLayer::lmBuffered);
    d->hoverRect = new QCPItemRect(p);
    d->hoverRect->setLayer(overlay);
    d->hoverRect->setSelectable(false);
    d->hoverRect->setBrush(Qt::NoBrush);
    d->hoverRect->setVisible(false);

    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    p->axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    p->axisRect()->setRangeZoom(Qt::Horizontal | Qt::Vertical);

    // Keep pan and zoom inside the matrix; relabel when the visible range changes.
    auto clamp = [this](QCPAxis *axis, int n) {
        if (n <= 0) return;
        const double lo = -0.5, hi = n - 0.5;
        QCPRange r = axis->range();
        if (r.size() > hi - lo) r = QCPRange(lo, hi);
        if (r.lower < lo) r = QCPRange(lo, lo + r.size());
        if (r.upper > hi) r = QCPRange(hi - r.size(), hi);
        if (r != axis->range()) axis->setRange(r);
    };
    connect(p->xAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this, clamp] {
        clamp(d->plot->xAxis, m_data.cols);
        updateTicks();
        scheduleRefine();
    });
    connect(p->yAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this, clamp] {
        clamp(d->plot->yAxis, m_data.rows);
        updateTicks();
        scheduleRefine();
    });
    d->refine = new QTimer(this);
    d->refine->setSingleShot(true);
    d->refine->setInterval(40);
    connect(d->refine, &QTimer::timeout, this, &HeatmapPlot::refineStorage);
    connect(p, &QCustomPlot::afterLayout, this, [this] { updateTicks(); });
    connect(p, &QCustomPlot::mouseDoubleClick, this, [this] {
        d->plot->xAxis->setRange(-0.5, m_data.cols - 0.5);
        d->plot->yAxis->setRange(-0.5, m_data.rows - 0.5);
        d->plot->replot(QCustomPlot::rpQueuedReplot);
    });

    setValueLabel(tr("attention weight"));
    setColorMap(ColorMap::Viridis);
    applyPalette();
    setMinimumSize(240, 200);
}

HeatmapPlot::~HeatmapPlot() = default;

QWidget *HeatmapPlot::plotWidget() const
{
    return d->plot;
}

void HeatmapPlot::setData(HeatmapData data)
{
    ++d->generation;
    d->preparing = false;
    apply(prepare(std::move(data)));
}

void HeatmapPlot::setDataAsync(std::function<HeatmapData()> build)
{
    const quint64 generation = ++d->generation;
    d->preparing = true;
    using PreparedPtr = std::shared_ptr<Prepared>;
    auto *watcher = new QFutureWatcher<PreparedPtr>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation != d->generation) return;   // superseded
        d->preparing = false;
        apply(std::move(*watcher->result()));
    });
    // The job holds no pointer to this plot: if the plot goes first, the result is simply dropped.
    watcher->setFuture(QtConcurrent::run([build = std::move(build)] { return std::make_shared<Prepared>(prepare(build())); }));
}

bool HeatmapPlot::isPreparing() const
{
    return d->preparing;
}

void HeatmapPlot::clear()
{
    setData({});
}

HeatmapPlot::Prepared HeatmapPlot::prepare(HeatmapData data)
{
    Prepared p;
    p.data = std::move(data);
    const HeatmapData &m = p.data;
    const bool valid = m.rows > 0 && m.cols > 0 && m.values.size() == std::size_t(m.rows) * std::size_t(m.cols);
    if (!valid) return p;
    const bool haveMask = m.masked.size() == m.values.size();
    p.level = poolHeatmap(m.values.data(), haveMask ? m.masked.data() : nullptr, m.rows, m.cols,
                          HeatmapWindow{0, m.rows - 1, 0, m.cols - 1});
    p.cells = makeCells(p.level);
    p.level.cells.clear();
    p.runs = maskRuns(m);
    return p;
}

void HeatmapPlot::apply(Prepared prepared)
{
    HeatmapData old = std::exchange(m_data, std::move(prepared.data));
    d->widestColLabel = -1;
    // Freeing a large matrix (hundreds of MB at 4096 tokens: weights, scores, mask) is left to the thread pool.
    if (old.values.size() > (std::size_t(1) << 20)) (void)QtConcurrent::run([old = std::move(old)]() mutable { old = {}; });
    const int rows = m_data.rows, cols = m_data.cols;
    if (prepared.cells) {
        d->map->setData(prepared.cells.release(), false);   // takes ownership
        d->map->setVisible(true);
    } else {
        d->map->data()->clear();
        d->map->setVisible(false);
    }
    d->window = prepared.level.window;
    d->rowStride = prepared.level.rowStride;
    d->colStride = prepared.level.colStride;
    d->hatch->setRuns(std::move(prepared.runs));
    d->map->setDataRange(QCPRange(d->lower, d->upper));
    d->plot->xAxis->setRange(-0.5, std::max(cols, 1) - 0.5);
    d->plot->yAxis->setRange(-0.5, std::max(rows, 1) - 0.5);
    d->hover.reset();
    d->hoverRect->setVisible(false);
    updateTicks();
    d->plot->replot();
    emit dataShown();
}

void HeatmapPlot::showCells(int firstRow, int lastRow, int firstCol, int lastCol)
{
    d->plot->xAxis->setRange(firstCol - 0.5, lastCol + 0.5);
    d->plot->yAxis->setRange(firstRow - 0.5, lastRow + 0.5);
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapPlot::scheduleRefine()
{
    if (m_data.rows > kMaxStorageCells || m_data.cols > kMaxStorageCells) d->refine->start();
}

void HeatmapPlot::refineStorage()
{
    const HeatmapData &m = m_data;
    if (!d->map->visible() || m.values.size() != std::size_t(m.rows) * std::size_t(m.cols)) return;
    const QCPRange xr = d->plot->xAxis->range(), yr = d->plot->yAxis->range();
    const HeatmapWindow want = windowForView(xr.lower, xr.upper, yr.lower, yr.upper, m.rows, m.cols);
    auto stride = [](int count) { return (count + kMaxStorageCells - 1) / kMaxStorageCells; };
    // Nothing to do while the stored window still covers the view at the resolution the view needs.
    const int visR0 = std::max(0, int(std::floor(yr.lower + 0.5))), visR1 = std::min(m.rows - 1, int(std::ceil(yr.upper - 0.5)));
    const int visC0 = std::max(0, int(std::floor(xr.lower + 0.5))), visC1 = std::min(m.cols - 1, int(std::ceil(xr.upper - 0.5)));
    const HeatmapWindow &have = d->window;
    const bool covers = have.r0 <= visR0 && have.r1 >= visR1 && have.c0 <= visC0 && have.c1 >= visC1;
    if (covers && stride(want.rowCount()) == d->rowStride && stride(want.colCount()) == d->colStride) return;
    const bool haveMask = m.masked.size() == m.values.size();
    HeatmapLevel level = poolHeatmap(m.values.data(), haveMask ? m.masked.data() : nullptr, m.rows, m.cols, want);
    d->map->setData(makeCells(level).release(), false);
    d->window = level.window;
    d->rowStride = level.rowStride;
    d->colStride = level.colStride;
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapPlot::updateTicks()
{
    if (d->updatingTicks) return;
    d->updatingTicks = true;
    QCustomPlot *p = d->plot;
    const QFontMetrics fm(p->xAxis->tickLabelFont());
    const QRect area = p->axisRect()->rect();

    // Label every `step`-th token so that labels never overlap; the step follows the zoom level. Ticks are
    // generated before the layout pass, so a change here asks for one more (queued) replot.
    bool changed = false;
    auto fill = [&](QCPAxisTickerText *ticker, QCPAxis *axis, const QStringList &labels, int n, double pxPerCell,
                    double needPx) {
        QMap<double, QString> ticks;
        if (n > 0) {
            const int step = pxPerCell > 0 ? std::max(1, int(std::ceil(needPx / pxPerCell))) : 1;
            const QCPRange r = axis->range();
            const int first = std::max(0, int(std::ceil(r.lower)));
            const int last = std::min(n - 1, int(std::floor(r.upper)));
            for (int i = first - first % step; i <= last; i += step)
                if (i >= first) ticks.insert(i, i < labels.size() ? labels[i] : QString::number(i));
        }
        if (ticks != ticker->ticks()) {
            ticker->setTicks(ticks);
            changed = true;
        }
    };

    const double pxPerCol = area.width() / std::max(1e-9, p->xAxis->range().size());
    const double pxPerRow = area.height() / std::max(1e-9, p->yAxis->range().size());
    // Measured once per matrix and font: the ticks are updated on every pan, zoom and layout pass.
    if (d->widestColLabel < 0) {
        d->widestColLabel = 0;
        for (const QString &s : m_data.colLabels) d->widestColLabel = std::max(d->widestColLabel, fm.horizontalAdvance(s));
    }
    const int widest = d->widestColLabel;
    // Horizontal key labels when they fit side by side, otherwise vertical ones.
    const bool rotate = widest + 8 > pxPerCol;
    const int rotation = rotate ? 90 : 0;
    if (int(p->xAxis->tickLabelRotation()) != rotation) {
        p->xAxis->setTickLabelRotation(rotation);
        changed = true;
    }
    fill(d->colTicker.data(), p->xAxis, m_data.colLabels, m_data.cols, pxPerCol,
         rotate ? fm.height() + 2 : widest + 8);
    fill(d->rowTicker.data(), p->yAxis, m_data.rowLabels, m_data.rows, pxPerRow, fm.height() + 2);
    if (changed) p->replot(QCustomPlot::rpQueuedReplot);
    d->updatingTicks = false;
}

void HeatmapPlot::setTitle(const QString &title)
{
    d->title->setText(title);
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

QString HeatmapPlot::title() const
{
    return d->title->text();
}

void HeatmapPlot::setColorMap(ColorMap map)
{
    m_colorMap = map;
    d->map->setGradient(makeGradient(map, isDark(palette())));
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapPlot::setValueRange(double lower, double upper)
{
    d->lower = lower;
    d->upper = upper;
    d->map->setDataRange(QCPRange(lower, upper));
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapPlot::setDivergingRange(double maxAbs)
{
    if (!(maxAbs > 0.0) || !std::isfinite(maxAbs)) maxAbs = 1.0;
    setColorMap(ColorMap::Diverging);
    setValueRange(-maxAbs, maxAbs);
}

void HeatmapPlot::setValueLabel(const QString &label)
{
    d->scale->axis()->setLabel(label);
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapPlot::setAxisTitles(const QString &rows, const QString &cols)
{
    d->plot->yAxis->setLabel(rows);
    d->plot->xAxis->setLabel(cols);
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

std::optional<HeatmapCell> HeatmapPlot::cellAt(QPointF pos) const
{
    if (m_data.rows <= 0 || m_data.cols <= 0) return std::nullopt;
    const QPointF local = d->plot->mapFrom(this, pos);
    if (!d->plot->axisRect()->rect().contains(local.toPoint())) return std::nullopt;
    // Cell i spans [i - 0.5, i + 0.5) on each axis.
    const double kx = d->plot->xAxis->pixelToCoord(local.x());
    const double vy = d->plot->yAxis->pixelToCoord(local.y());
    const int col = int(std::floor(kx + 0.5)), row = int(std::floor(vy + 0.5));
    if (col < 0 || col >= m_data.cols || row < 0 || row >= m_data.rows) return std::nullopt;
    return HeatmapCell{row, col};
}

QPointF HeatmapPlot::cellCenter(int row, int col) const
{
    const QPointF local(d->plot->xAxis->coordToPixel(col), d->plot->yAxis->coordToPixel(row));
    return d->plot->mapTo(this, local);
}

QRect HeatmapPlot::plotArea() const
{
    const QRect r = d->plot->axisRect()->rect();
    return QRect(d->plot->mapTo(this, r.topLeft()), r.size());
}

double HeatmapPlot::cellValue(int row, int col) const
{
    if (row < 0 || row >= m_data.rows || col < 0 || col >= m_data.cols) return kNaN;
    const std::size_t ij = std::size_t(row) * std::size_t(m_data.cols) + std::size_t(col);
    if (ij >= m_data.values.size() || (m_data.masked.size() == m_data.values.size() && m_data.masked[ij])) return kNaN;
    return m_data.values[ij];
}

QStringList HeatmapPlot::rowTickLabels() const
{
    return d->rowTicker->ticks().values();
}

QStringList HeatmapPlot::colTickLabels() const
{
    return d->colTicker->ticks().values();
}

void HeatmapPlot::setHoverFormatter(std::function<QString(HeatmapCell)> formatter)
{
    m_hoverFormatter = std::move(formatter);
}

QString HeatmapPlot::hoverText(HeatmapCell cell) const
{
    if (cell.row < 0 || cell.row >= m_data.rows || cell.col < 0 || cell.col >= m_data.cols) return {};
    if (m_hoverFormatter) return m_hoverFormatter(cell);
    const std::size_t ij = std::size_t(cell.row) * std::size_t(m_data.cols) + std::size_t(cell.col);
    const QString q = cell.row < m_data.rowLabels.size() ? m_data.rowLabels[cell.row] : QString();
    const QString k = cell.col < m_data.colLabels.size() ? m_data.colLabels[cell.col] : QString();
    QString text = tr("query %1 “%2” → key %3 “%4”").arg(cell.row).arg(q).arg(cell.col).arg(k);
    const bool masked = m_data.masked.size() == m_data.values.size() && m_data.masked[ij];
    if (masked) return text + QLatin1Char('\n') + tr("masked: weight 0, score −∞");
    text += QLatin1Char('\n') + tr("weight %1").arg(double(m_data.values[ij]), 0, 'f', 4);
    if (m_data.scores.size() == m_data.values.size())
        text += tr("   score %1").arg(double(m_data.scores[ij]), 0, 'f', 3);
    return text;
}

void HeatmapPlot::highlightCell(std::optional<HeatmapCell> cell)
{
    if (cell && (cell->row < 0 || cell->row >= m_data.rows || cell->col < 0 || cell->col >= m_data.cols)) cell.reset();
    if (cell) {
        d->hoverRect->topLeft->setCoords(cell->col - 0.5, cell->row - 0.5);
        d->hoverRect->bottomRight->setCoords(cell->col + 0.5, cell->row + 0.5);
    }
    d->hoverRect->setVisible(cell.has_value());
    d->plot->layer(QStringLiteral("hover"))->replot();
}

std::optional<HeatmapCell> HeatmapPlot::highlightedCell() const
{
    if (!d->hoverRect->visible()) return std::nullopt;
    return HeatmapCell{int(std::lround(d->hoverRect->topLeft->coords().y() + 0.5)),
                       int(std::lround(d->hoverRect->topLeft->coords().x() + 0.5))};
}

void HeatmapPlot::setHover(std::optional<HeatmapCell> cell, QPoint globalPos)
{
    if (cell == d->hover) return;
    d->hover = cell;
    if (cell) {
        d->hoverRect->topLeft->setCoords(cell->col - 0.5, cell->row - 0.5);
        d->hoverRect->bottomRight->setCoords(cell->col + 0.5, cell->row + 0.5);
        d->hoverRect->setVisible(true);
        QToolTip::showText(globalPos, hoverText(*cell), d->plot);
        emit cellHovered(cell->row, cell->col);
    } else {
        d->hoverRect->setVisible(false);
        QToolTip::hideText();
        emit hoverLeft();
    }
    d->plot->layer(QStringLiteral("hover"))->replot();
}

bool HeatmapPlot::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == d->plot) {
        switch (event->type()) {
        case QEvent::MouseMove: {
            auto *e = static_cast<QMouseEvent *>(event);
            if (!(e->buttons() & Qt::LeftButton))
                setHover(cellAt(d->plot->mapTo(this, e->position())), e->globalPosition().toPoint());
            break;
        }
        case QEvent::MouseButtonPress:
            d->pressPos = static_cast<QMouseEvent *>(event)->position().toPoint();
            break;
        case QEvent::MouseButtonRelease: {
            auto *e = static_cast<QMouseEvent *>(event);
            if (e->button() == Qt::LeftButton && (e->position().toPoint() - d->pressPos).manhattanLength() < 4)
                if (auto cell = cellAt(d->plot->mapTo(this, e->position()))) emit cellClicked(cell->row, cell->col);
            break;
        }
        case QEvent::Leave:
            setHover(std::nullopt, {});
            break;
        default:
            break;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void HeatmapPlot::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    updateTicks();
}

void HeatmapPlot::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) applyPalette();
}

void HeatmapPlot::applyPalette()
{
    const QPalette pal = palette();
    const bool dark = isDark(pal);
    const QColor fg = pal.color(QPalette::WindowText);
    QCustomPlot *p = d->plot;
    p->setBackground(pal.brush(QPalette::Window));
    p->axisRect()->setBackground(QBrush(maskedColor(dark)));
    const double lineWidth = plotLineWidth();   // thicker in presentation mode
    for (QCPAxis *axis : {p->xAxis, p->yAxis, d->scale->axis()}) {
        axis->setBasePen(QPen(fg, lineWidth));
        axis->setTickPen(QPen(fg, lineWidth));
        axis->setTickLabelColor(fg);
        axis->setLabelColor(fg);
        axis->setTickLabelFont(font());
        QFont lf = font();
        lf.setItalic(true);
        axis->setLabelFont(lf);
    }
    d->widestColLabel = -1;   // measured again with the new font
    d->title->setTextColor(fg);
    d->title->setFont(QFont(font().family(), font().pointSize() + 1, QFont::DemiBold));
    d->hatch->setColor(dark ? QColor(255, 255, 255, 60) : QColor(0, 0, 0, 70));
    d->hoverRect->setPen(QPen(dark ? Qt::white : QColor(QStringLiteral("#d62728")), 2));
    d->map->setGradient(makeGradient(m_colorMap, dark));
    updateTicks();
    p->replot(QCustomPlot::rpQueuedReplot);
}

bool HeatmapPlot::savePng(const QString &path, QSize size, double scale, QString *error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error) *error = tr("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    const QPixmap pixmap = d->plot->toPixmap(size.width(), size.height(), scale);
    if (!pixmap.save(&file, "PNG") || !file.commit()) {
        if (error) *error = tr("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

bool HeatmapPlot::saveSvg(const QString &path, QSize size, QString *error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error) *error = tr("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    {
        QSvgGenerator gen;
        gen.setOutputDevice(&file);
        gen.setSize(size);
        gen.setViewBox(QRect(QPoint(0, 0), size));
        gen.setTitle(title());
        gen.setDescription(QStringLiteral("AttnScope heatmap"));
        QCPPainter painter;
        if (!painter.begin(&gen)) {
            if (error) *error = tr("cannot start SVG output for %1").arg(path);
            return false;
        }
        painter.setMode(QCPPainter::pmNoCaching);   // labels as text; cells as rectangles (VectorColorMap)
        d->plot->toPainter(&painter, size.width(), size.height());
        painter.end();
    }
    if (!file.commit()) {
        if (error) *error = tr("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

bool HeatmapPlot::savePdf(const QString &path, QSize size, QString *error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error) *error = tr("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    {
        // One page exactly the figure's size, 1 px = 1 pt, no margins.
        QPdfWriter writer(&file);
        writer.setResolution(72);
        writer.setPageSize(QPageSize(QSizeF(size), QPageSize::Point, QString(), QPageSize::ExactMatch));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0));
        writer.setTitle(title());
        writer.setCreator(QStringLiteral("AttnScope"));
        QCPPainter painter;
        if (!painter.begin(&writer)) {
            if (error) *error = tr("cannot start PDF output for %1").arg(path);
            return false;
        }
        painter.setMode(QCPPainter::pmNoCaching);   // labels as text; cells as rectangles (VectorColorMap)
        d->plot->toPainter(&painter, size.width(), size.height());
        painter.end();
    }
    if (!file.commit()) {
        if (error) *error = tr("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

bool HeatmapPlot::saveFigure(const QString &path, QSize size, QString *error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png")) return savePng(path, size, 2.0, error);
    if (suffix == QLatin1String("svg")) return saveSvg(path, size, error);
    if (suffix == QLatin1String("pdf")) return savePdf(path, size, error);
    if (error) *error = tr("%1: unknown figure format “%2” (use .png, .svg or .pdf)").arg(path, suffix);
    return false;
}

} // namespace attnui
