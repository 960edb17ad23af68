// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/heatmapplot.h"

#include "plots/heatmapitems.h"
#include "plots/heatmaplod.h"
#include "plots/plotexport.h"
#include "plots/plottext.h"
#include "plots/vectorplot.h"
#include "runner/workpool.h"

#include <QApplication>
#include <QEvent>
#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <QVBoxLayout>

#include <cmath>
#include <limits>
#include <tuple>

namespace attnui {

HeatmapPlot::HeatmapPlot(QWidget *parent) : QWidget(parent), d(std::make_unique<Private>())
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    d->plot = new QCustomPlot(this);
    d->plot->setObjectName(QStringLiteral("heatmap-canvas"));   // names the canvas in profiles (attnscope-uibench --profile)
    layout->addWidget(d->plot);
    QCustomPlot *p = d->plot;
    p->setMouseTracking(true);
    p->installEventFilter(this);

    d->title = new QCPTextElement(p, QString(), QFont(font().family(), font().pointSize() + 1, QFont::DemiBold));
    // The title wraps to the plot's width (plottext::fitTitle), so it must not set the plot's minimum width.
    d->title->setMinimumSize(QSize(40, 0));
    p->plotLayout()->insertRow(0);
    p->plotLayout()->addElement(0, 0, d->title);

    d->map = new VectorColorMap(p->xAxis, p->yAxis);
    d->map->setInterpolate(false);
    d->map->setTightBoundary(false);

    d->scale = new QCPColorScale(p);
    d->scale->setType(QCPAxis::atRight);
    d->scale->setBarWidth(14);
    // The matrix and its scale in a row of their own: beside the scale in the top grid, the title would get only
    // the matrix's column and be clipped there.
    QCPAxisRect *rect = p->axisRect();
    p->plotLayout()->take(rect);
    d->body = new QCPLayoutGrid;
    p->plotLayout()->addElement(1, 0, d->body);
    d->body->addElement(0, 0, rect);
    d->body->addElement(0, 1, d->scale);
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
    new CellValues(p, &m_data, &d->shown, d->map);   // owned by the plot

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
        clamp(d->plot->xAxis, m_data->cols);
        updateTicks();
        scheduleRefine();
    });
    connect(p->yAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this, clamp] {
        clamp(d->plot->yAxis, m_data->rows);
        updateTicks();
        scheduleRefine();
    });
    d->refine = new QTimer(this);
    d->refine->setSingleShot(true);
    d->refine->setInterval(40);
    connect(d->refine, &QTimer::timeout, this, &HeatmapPlot::refineStorage);
    connect(p, &QCustomPlot::afterLayout, this, [this] {
        updateTicks();
        updateValueLabel();
    });
    connect(p, &QCustomPlot::mouseDoubleClick, this, [this] {
        d->plot->xAxis->setRange(-0.5, m_data->cols - 0.5);
        d->plot->yAxis->setRange(-0.5, m_data->rows - 0.5);
        d->plot->replot(QCustomPlot::rpQueuedReplot);
    });

    setValueLabel(tr("attention weight"));
    setColorMap(ColorMap::Viridis);
    applyPalette();
    setTitle(QString());   // no title row until there is a title
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
    const int cap = storageCap(data.rows, data.cols);
    apply(prepare(std::move(data), cap, scaleInputs()));
}

int HeatmapPlot::storageCap(int rows, int cols) const
{
    return storageCapFor(rows, cols, plotArea().size(), devicePixelRatioF());
}

int HeatmapPlot::storageCapFor(int rows, int cols, QSize area, qreal dpr)
{
    if (std::max(rows, cols) <= kMaxStorageCells) return kMaxStorageCells;   // every cell stored as it is
    if (area.width() < 16 || area.height() < 16) return kMaxStorageCells;    // not laid out yet
    const double px = std::max(area.width(), area.height()) * dpr;
    return std::clamp(int(std::ceil(px)), 128, kMaxStorageCells);
}

QString HeatmapPlot::cellText(double v)
{
    if (v == 0.0) return QStringLiteral("0");
    if (!std::isfinite(v) || std::abs(v) >= 0.005) return QString::number(v, 'f', 2);
    QString t = QString::number(v, 'e', 0);   // "1e-07"
    const qsizetype e = t.indexOf(QLatin1Char('e'));
    qsizetype digits = e + 2;                 // past "e-"
    while (digits < t.size() - 1 && t[digits] == QLatin1Char('0')) t.remove(digits, 1);
    return t;
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
    // The storage resolution follows the plot's size now (the size of the matrix is known only in the job); a plot
    // made larger later shows it a little coarser until the next zoom or data.
    const QSize area = plotArea().size();
    const qreal dpr = devicePixelRatioF();
    watcher->setFuture(runInBackground([build = std::move(build), area, dpr, scale = scaleInputs()] {
        HeatmapData data = build();
        const int maxCells = storageCapFor(data.rows, data.cols, area, dpr);
        return std::make_shared<Prepared>(prepare(std::move(data), maxCells, scale));
    }));
}

bool HeatmapPlot::isPreparing() const
{
    return d->preparing;
}

void HeatmapPlot::clear()
{
    setData({});
}

HeatmapPlot::Prepared HeatmapPlot::prepare(HeatmapData data, int maxCells, const HeatmapScaleInputs &scale)
{
    Prepared p;
    p.data = std::move(data);
    const HeatmapData &m = p.data;
    p.scaled = scaleHeatmap(m, scale);
    const bool valid = m.rows > 0 && m.cols > 0 && m.values.size() == std::size_t(m.rows) * std::size_t(m.cols);
    if (!valid) return p;
    const bool haveMask = m.masked.size() == m.values.size();
    const float *colored = p.scaled.values.empty() ? m.values.data() : p.scaled.values.data();
    p.level = poolHeatmap(colored, haveMask ? m.masked.data() : nullptr, m.rows, m.cols,
                          HeatmapWindow{0, m.rows - 1, 0, m.cols - 1}, maxCells);
    p.cells = makeCells(p.level);
    p.level.cells.clear();
    p.runs = maskRuns(m);
    return p;
}

void HeatmapPlot::apply(Prepared prepared)
{
    std::shared_ptr<const HeatmapData> old =
        std::exchange(m_data, std::make_shared<const HeatmapData>(std::move(prepared.data)));
    ++d->applied;
    d->widestColLabel = -1;
    // Freeing a large matrix (hundreds of MB at 4096 tokens: weights, scores, mask) is left to the thread pool.
    if (old->values.size() > (std::size_t(1) << 20)) releaseInBackground(std::move(old));
    const int rows = m_data->rows, cols = m_data->cols;
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
    if (m_data->valueRange) std::tie(d->lower, d->upper) = *m_data->valueRange;
    useScaled(std::move(prepared.scaled));
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
    if (m_data->rows > kMaxStorageCells || m_data->cols > kMaxStorageCells) d->refine->start();
}

void HeatmapPlot::refineStorage()
{
    if (d->refining) {   // one re-pooling at a time; the latest view follows when it is done
        d->refineAgain = true;
        return;
    }
    const std::shared_ptr<const HeatmapData> data = m_data;
    const HeatmapData &m = *data;
    if (!d->map->visible() || m.values.size() != std::size_t(m.rows) * std::size_t(m.cols)) return;
    const QCPRange xr = d->plot->xAxis->range(), yr = d->plot->yAxis->range();
    const HeatmapWindow want = windowForView(xr.lower, xr.upper, yr.lower, yr.upper, m.rows, m.cols);
    const int cap = storageCap(m.rows, m.cols);
    auto stride = [cap](int count) { return (count + cap - 1) / cap; };
    // Nothing to do while the stored window still covers the view at the resolution the view needs.
    const int visR0 = std::max(0, int(std::floor(yr.lower + 0.5))), visR1 = std::min(m.rows - 1, int(std::ceil(yr.upper - 0.5)));
    const int visC0 = std::max(0, int(std::floor(xr.lower + 0.5))), visC1 = std::min(m.cols - 1, int(std::ceil(xr.upper - 0.5)));
    const HeatmapWindow &have = d->window;
    const bool covers = have.r0 <= visR0 && have.r1 >= visR1 && have.c0 <= visC0 && have.c1 >= visC1;
    if (covers && stride(want.rowCount()) == d->rowStride && stride(want.colCount()) == d->colStride) return;
    // Pooled on the work pool: the window of a 4096² matrix is up to 16 M cells to read. The job holds the data
    // it reads; its result is dropped when other data has been shown meanwhile.
    d->refining = true;
    d->refineAgain = false;
    const quint64 applied = d->applied;
    using PreparedPtr = std::shared_ptr<Prepared>;
    auto *watcher = new QFutureWatcher<PreparedPtr>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, applied] {
        watcher->deleteLater();
        d->refining = false;
        PreparedPtr level = watcher->result();
        if (applied == d->applied && level->cells) {
            d->map->setData(level->cells.release(), false);   // takes ownership
            d->window = level->level.window;
            d->rowStride = level->level.rowStride;
            d->colStride = level->level.colStride;
            d->plot->replot(QCustomPlot::rpQueuedReplot);
        }
        if (d->refineAgain) scheduleRefine();
    });
    watcher->setFuture(runInBackground([data, shown = d->shown, want, cap] {
        const HeatmapData &m = *data;
        const bool haveMask = m.masked.size() == m.values.size();
        const float *colored = shown && shown->size() == m.values.size() ? shown->data() : m.values.data();
        auto p = std::make_shared<Prepared>();
        p->level = poolHeatmap(colored, haveMask ? m.masked.data() : nullptr, m.rows, m.cols, want, cap);
        p->cells = makeCells(p->level);
        p->level.cells.clear();
        return p;
    }));
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
    // Horizontal key labels when they fit side by side, otherwise vertical ones. Under 8 px per column no label
    // fits (8 px is the gap alone), so the labels are not measured: that takes ~6 ms for 4096 of them on the UI
    // thread. Otherwise they are measured once per matrix and font (the ticks are updated on every pan, zoom and
    // layout pass), over all labels so that panning never flips the labels' direction.
    const bool measure = pxPerCol > 8;
    if (measure && d->widestColLabel < 0) {
        d->widestColLabel = 0;
        for (const QString &s : m_data->colLabels) d->widestColLabel = std::max(d->widestColLabel, fm.horizontalAdvance(s));
    }
    const int widest = measure ? d->widestColLabel : 0;
    const bool rotate = !measure || widest + 8 > pxPerCol;
    const int rotation = rotate ? 90 : 0;
    if (int(p->xAxis->tickLabelRotation()) != rotation) {
        p->xAxis->setTickLabelRotation(rotation);
        changed = true;
    }
    fill(d->colTicker.data(), p->xAxis, m_data->colLabels, m_data->cols, pxPerCol,
         rotate ? fm.height() + 2 : widest + 8);
    fill(d->rowTicker.data(), p->yAxis, m_data->rowLabels, m_data->rows, pxPerRow, fm.height() + 2);
    if (changed) p->replot(QCustomPlot::rpQueuedReplot);
    d->updatingTicks = false;
}

void HeatmapPlot::setTitle(const QString &title)
{
    d->fullTitle = title;
    // No title: no empty row above the matrix (a panel titled by its own label, as in Pipeline, gains ~25 px).
    QCPLayoutGrid *layout = d->plot->plotLayout();
    const bool shown = layout->hasElement(0, 0) && layout->element(0, 0) == d->title;
    if (title.isEmpty() && shown) {
        layout->take(d->title);
        layout->simplify();
    } else if (!title.isEmpty() && !shown) {
        layout->insertRow(0);
        layout->addElement(0, 0, d->title);
    }
    d->title->setVisible(!title.isEmpty());
    plottext::fitTitle(d->title, title, d->plot->width());
    replotLater();
}

QString HeatmapPlot::title() const
{
    return d->fullTitle;
}

QStringList HeatmapPlot::clippedTexts() const
{
    return plottext::clippedTexts(d->plot);
}

void HeatmapPlot::setColorMap(ColorMap map)
{
    const bool divergingChanged = (m_colorMap == ColorMap::Diverging) != (map == ColorMap::Diverging);
    m_colorMap = map;
    d->map->setGradient(makeGradient(map, isDark(palette())));
    if (divergingChanged) rescale();
    replotLater();
}

void HeatmapPlot::setValueRange(double lower, double upper)
{
    d->lower = lower;
    d->upper = upper;
    rescale();
}

void HeatmapPlot::setColorScale(ColorScale scale)
{
    if (scale == d->colorScale) return;
    d->colorScale = scale;
    rescale();
}

ColorScale HeatmapPlot::colorScale() const
{
    return d->colorScale;
}

void HeatmapPlot::setNoiseFloor(double floor)
{
    if (!(floor > 0.0) || !std::isfinite(floor)) floor = 0.0;
    if (floor == d->noiseFloor) return;
    d->noiseFloor = floor;
    rescale();
}

double HeatmapPlot::noiseFloor() const
{
    return d->noiseFloor;
}

HeatmapScaleInputs HeatmapPlot::scaleInputs() const
{
    return {d->colorScale, m_colorMap == ColorMap::Diverging, d->noiseFloor, d->lower, d->upper};
}

void HeatmapPlot::useScaled(ScaledMatrix scaled)
{
    d->shown = scaled.values.empty() ? nullptr : std::make_shared<const std::vector<float>>(std::move(scaled.values));
    const QCPAxis::ScaleType type = scaled.logarithmic ? QCPAxis::stLogarithmic : QCPAxis::stLinear;
    if (d->map->dataScaleType() != type) {
        // The colour bar's axis reads in decades on a log scale, in plain numbers otherwise.
        QCPAxis *axis = d->scale->axis();
        if (scaled.logarithmic) {
            d->linearTicker = axis->ticker();
            axis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
        } else if (d->linearTicker) {
            axis->setTicker(d->linearTicker);
        }
        d->map->setDataScaleType(type);
    }
    d->map->setDataRange(QCPRange(scaled.lower, scaled.upper));
    d->labelSuffix = scaled.labelSuffix;
    updateValueLabel();
}

void HeatmapPlot::rescale()
{
    const bool recolor = d->shown != nullptr;
    ScaledMatrix scaled = scaleHeatmap(*m_data, scaleInputs());
    const bool pool = recolor || !scaled.values.empty();
    useScaled(std::move(scaled));
    const HeatmapData &m = *m_data;
    if (pool && d->map->visible() && m.values.size() == std::size_t(m.rows) * std::size_t(m.cols) && m.rows > 0) {
        // The stored window again, from the new colours (a scale change is rare; a 4096² window is ~20 ms).
        const bool haveMask = m.masked.size() == m.values.size();
        const float *colored = d->shown ? d->shown->data() : m.values.data();
        HeatmapLevel level = poolHeatmap(colored, haveMask ? m.masked.data() : nullptr, m.rows, m.cols, d->window,
                                         storageCap(m.rows, m.cols));
        d->map->setData(makeCells(level).release(), false);   // takes ownership
        d->rowStride = level.rowStride;
        d->colStride = level.colStride;
        ++d->applied;   // a re-pooling under way was for the old colours
    }
    replotLater();
}

QColor HeatmapPlot::cellColor(int row, int col) const
{
    if (row < 0 || row >= m_data->rows || col < 0 || col >= m_data->cols) return {};
    const double v = d->map->data()->data(col, row);
    return QColor::fromRgb(d->map->gradient().color(v, d->map->dataRange(), d->map->dataScaleType() == QCPAxis::stLogarithmic));
}

void HeatmapPlot::setDivergingRange(double maxAbs)
{
    if (!(maxAbs > 0.0) || !std::isfinite(maxAbs)) maxAbs = 1.0;
    setColorMap(ColorMap::Diverging);
    setValueRange(-maxAbs, maxAbs);
}

std::pair<double, double> HeatmapPlot::colorRange() const
{
    const QCPRange r = d->map->dataRange();
    return {r.lower, r.upper};
}

QString HeatmapPlot::valueLabel() const
{
    return d->scale->axis()->label();
}

void HeatmapPlot::setValueLabel(const QString &label)
{
    d->baseLabel = label;
    updateValueLabel();
}

void HeatmapPlot::updateValueLabel()
{
    const QString &suffix = d->labelSuffix;
    // What the scale did follows the label where the colour bar is long enough for both (figures, large plots);
    // a small plot on screen keeps only the label (a second line would cost its matrix a line's width and clip
    // the axis titles). Looked at again after every layout.
    QString label = (d->baseLabel + suffix).trimmed();
    const int room = d->scale->rect().height();
    if (!d->baseLabel.isEmpty() && !suffix.isEmpty() && room > 0 &&
        QFontMetrics(d->scale->axis()->labelFont()).horizontalAdvance(label) > room)
        label = d->baseLabel;
    if (label == d->scale->axis()->label()) return;
    d->scale->axis()->setLabel(label);
    replotLater();
}

QSize HeatmapPlot::figureSize(int maxCell, int maxSide) const
{
    const QFontMetrics fm(font());
    const auto widest = [&fm](const QStringList &labels) {
        int w = 0;
        for (const QString &l : labels) w = std::max(w, fm.horizontalAdvance(l));
        return std::min(w, 160);   // longer labels are elided
    };
    const int rows = std::max(1, m_data->rows), cols = std::max(1, m_data->cols);
    const int line = fm.height();
    // Up to maxCell a cell (44 px holds "0.94" at 9 pt) and maxSide a matrix; past that the cells shrink, but stay
    // one text line tall while that keeps the matrix within twice maxSide, so that every token keeps its label.
    // Rows and columns separately: final hidden states (12 × 64) are a matrix of tall cells, not a strip.
    const auto cellFor = [&](int count) {
        const double c = std::clamp(double(maxSide) / count, 2.0, double(maxCell));
        return c < line + 2 && count * (line + 2.0) <= 2.0 * maxSide ? line + 2.0 : c;
    };
    double cellW = cellFor(cols), cellH = cellFor(rows);
    int matrixW = std::max(160, int(std::ceil(cellW * cols))), matrixH = std::max(160, int(std::ceil(cellH * rows)));
    if (rows == cols) {   // attention: square, and no smaller than a readable figure
        matrixW = matrixH = std::max({matrixW, matrixH, std::min(320, maxSide)});
        cellW = cellH = double(matrixW) / cols;
    }
    const int left = widest(m_data->rowLabels) + 2 * line + 16;      // tick labels and the axis title
    // Key labels stand upright under narrow cells.
    const int keyLabels = widest(m_data->colLabels) + 8 > int(cellW) ? widest(m_data->colLabels) + 8 : line + 8;
    const int bottom = keyLabels + 2 * line + 12;
    const int top = d->fullTitle.isEmpty() ? line : 3 * line;
    const bool scale = d->body->hasElement(0, 1) && d->body->element(0, 1) == d->scale;
    const int right = scale ? 40 + fm.horizontalAdvance(QStringLiteral("0.000")) + 2 * line : line;
    return QSize(left + matrixW + right, top + matrixH + bottom);
}

void HeatmapPlot::setColorScaleVisible(bool visible)
{
    QCPLayoutGrid *layout = d->body;
    const bool shown = layout->hasElement(0, 1) && layout->element(0, 1) == d->scale;
    if (visible == shown) return;
    if (visible) {
        layout->addElement(0, 1, d->scale);
    } else {
        layout->take(d->scale);
        layout->simplify();
    }
    d->scale->setVisible(visible);
    replotLater();
}

void HeatmapPlot::setAxisTitles(const QString &rows, const QString &cols)
{
    d->plot->yAxis->setLabel(rows);
    d->plot->xAxis->setLabel(cols);
    replotLater();
}

void HeatmapPlot::replotLater()
{
    // New data on its way draws everything again when it arrives (apply): a replot of the old data now, with the
    // new title or colours, is work the UI thread throws away (about 10 ms for each of Masks' nine panels).
    if (!d->preparing) d->plot->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapPlot::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // A title wider than the plot wraps instead of being cut off.
    if (plottext::fitTitle(d->title, d->fullTitle, d->plot->width())) d->plot->replot(QCustomPlot::rpQueuedReplot);
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
    plottext::fitTitle(d->title, d->fullTitle, d->plot->width());   // the font may have grown
    d->hatch->setColor(dark ? QColor(255, 255, 255, 60) : QColor(0, 0, 0, 70));
    d->hoverRect->setPen(QPen(dark ? Qt::white : QColor(QStringLiteral("#d62728")), 2));
    d->map->setGradient(makeGradient(m_colorMap, dark));
    updateTicks();
    p->replot(QCustomPlot::rpQueuedReplot);
}

bool HeatmapPlot::savePng(const QString &path, QSize size, double scale, QString *error)
{
    return plotexport::savePng(d->plot, path, size, scale, error);
}

bool HeatmapPlot::saveSvg(const QString &path, QSize size, QString *error)
{
    return plotexport::saveSvg(d->plot, path, size, title(), error);
}

bool HeatmapPlot::savePdf(const QString &path, QSize size, QString *error)
{
    return plotexport::savePdf(d->plot, path, size, title(), error);
}

bool HeatmapPlot::saveFigure(const QString &path, QSize size, QString *error)
{
    return plotexport::saveFigure(d->plot, path, size, title(), error);
}

} // namespace attnui
