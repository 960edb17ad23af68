// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/xyplot.h"

#include "plots/plotexport.h"
#include "plots/plottext.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnui {

namespace {

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

QString number(double v)
{
    if (std::isnan(v)) return QStringLiteral("—");
    const double a = std::abs(v);
    if (a != 0.0 && (a < 1e-3 || a >= 1e5)) return QString::number(v, 'e', 3);
    return QString::number(v, 'f', 4);
}

// Least squares y = a + b·x; nothing when x has no spread.
std::optional<std::pair<double, double>> leastSquares(const std::vector<double> &x, const std::vector<double> &y)
{
    const std::size_t n = std::min(x.size(), y.size());
    if (n < 2) return std::nullopt;
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < n; ++i) mx += x[i], my += y[i];
    mx /= double(n);
    my /= double(n);
    double sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < n; ++i) sxx += (x[i] - mx) * (x[i] - mx), sxy += (x[i] - mx) * (y[i] - my);
    if (sxx <= 0.0) return std::nullopt;
    const double b = sxy / sxx;
    return std::pair{my - b * mx, b};
}

} // namespace

struct XYPlot::Private {
    QCustomPlot *plot = nullptr;
    QCPTextElement *title = nullptr;
    QString fullTitle;                     // as set; the element shows it wrapped to the plot's width
    QList<QCPAbstractPlottable *> plottables;   // one per series, in series order
    QCPGraph *fitGraph = nullptr;
    std::optional<XYPoint> hover;
    QPoint pressPos;
    int barTickStride = 0;                 // every how many categories a bar chart labels (0: not set yet)
    bool denseBars = false;                // bars drawn as one line per category (see XYPlot::wantsDenseBars)
    // Scatter point labels, most prominent first (see XYPlot::placePointLabels); which are shown follows the layout.
    struct PointLabel {
        int index;
        QCPItemText *item;
    };
    std::vector<PointLabel> pointLabels;
};

XYPlot::XYPlot(QWidget *parent) : QWidget(parent), d(std::make_unique<Private>())
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    d->plot = new QCustomPlot(this);
    d->plot->setObjectName(QStringLiteral("xyplot-canvas"));   // names the canvas in profiles (attnscope-uibench --profile)
    layout->addWidget(d->plot);
    d->plot->setMouseTracking(true);
    d->plot->installEventFilter(this);
    // Point labels are placed once the axes know their pixels, before anything is drawn.
    connect(d->plot, &QCustomPlot::afterLayout, this, [this] { placePointLabels(); });
    d->title = new QCPTextElement(d->plot, QString(), QFont(font().family(), font().pointSize() + 1, QFont::DemiBold));
    // The title wraps to the plot's width (plottext::fitTitle), so it must not set the plot's minimum width.
    d->title->setMinimumSize(QSize(40, 0));
    d->plot->plotLayout()->insertRow(0);
    d->plot->plotLayout()->addElement(0, 0, d->title);
    // The legend goes in a row of its own between the title and the axes, laid out horizontally, so it never
    // hides data.
    QCPLegend *legend = d->plot->legend;
    d->plot->axisRect()->insetLayout()->take(legend);
    d->plot->plotLayout()->insertRow(1);
    d->plot->plotLayout()->addElement(1, 0, legend);
    d->plot->plotLayout()->setRowStretchFactor(1, 0.001);
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setIconSize(14, 10);
    legend->setMargins(QMargins(4, 0, 4, 0));
    legend->setRowSpacing(0);
    legend->setColumnSpacing(12);
    legend->setVisible(false);
    applyPalette();
    setMinimumSize(240, 180);
}

XYPlot::~XYPlot() = default;

QWidget *XYPlot::plotWidget() const
{
    return d->plot;
}

void XYPlot::setBars(const QStringList &categories, const QList<XYSeries> &series)
{
    m_kind = XYKind::Bars;
    m_categories = categories;
    m_series = series;
    for (XYSeries &s : m_series) {
        s.y.resize(std::size_t(categories.size()), std::numeric_limits<double>::quiet_NaN());
        s.x.resize(s.y.size());
        for (std::size_t i = 0; i < s.x.size(); ++i) s.x[i] = double(i);
    }
    m_fit.reset();
    rebuild();
}

void XYPlot::setScatter(const XYSeries &points, bool fitLine)
{
    m_kind = XYKind::Scatter;
    m_categories.clear();
    m_series = {points};
    m_fitLine = fitLine;
    m_fit = fitLine ? leastSquares(points.x, points.y) : std::nullopt;
    rebuild();
}

void XYPlot::setLines(const QList<XYSeries> &series)
{
    m_kind = XYKind::Lines;
    m_categories.clear();
    m_series = series;
    m_fit.reset();
    rebuild();
}

void XYPlot::clear()
{
    m_kind = XYKind::None;
    m_series.clear();
    m_categories.clear();
    m_fit.reset();
    rebuild();
}

void XYPlot::setTitle(const QString &title)
{
    d->fullTitle = title;
    plottext::fitTitle(d->title, title, d->plot->width());
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

QString XYPlot::title() const
{
    return d->fullTitle;
}

QStringList XYPlot::clippedTexts() const
{
    return plottext::clippedTexts(d->plot);
}

QRect XYPlot::plotArea() const
{
    const QRect r = d->plot->axisRect()->rect();
    return QRect(d->plot->mapTo(this, r.topLeft()), r.size());
}

void XYPlot::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // A title wider than the plot wraps instead of being cut off.
    // Legend entries that do not fit in one row go on more rows.
    const bool title = plottext::fitTitle(d->title, d->fullTitle, d->plot->width());
    if (m_kind == XYKind::Bars && wantsDenseBars() != d->denseBars) {
        rebuild();   // too narrow for bars, or wide enough again
        return;
    }
    if (d->denseBars)
        for (QCPAbstractPlottable *line : d->plottables) {
            QPen pen = line->pen();
            pen.setWidthF(denseLineWidth());
            line->setPen(pen);
        }
    const int stride = d->barTickStride;
    if (m_kind == XYKind::Bars) updateBarTicks();   // more or fewer category labels fit
    if (plottext::fitLegend(d->plot->legend, d->plot->width()) || title || stride != d->barTickStride)
        d->plot->replot(QCustomPlot::rpQueuedReplot);
}

int XYPlot::barTickStride() const
{
    return d->barTickStride;
}

void XYPlot::updateBarTicks()
{
    // As many category labels as fit side by side (rotated, a label takes about a line's height of the axis);
    // beyond, every k-th. Drawing thousands of rotated labels would cost the UI thread hundreds of milliseconds,
    // and they would overlap into a black band anyway.
    const int n = int(m_categories.size());
    const int lineHeight = QFontMetrics(font()).height();
    const int axisWidth = std::max(100, d->plot->width() - 80);
    const int fit = std::max(1, int(axisWidth / (1.3 * lineHeight)));
    const int stride = std::max(1, (n + fit - 1) / fit);
    if (stride == d->barTickStride) return;
    d->barTickStride = stride;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i < n; i += stride) ticker->addTick(i, m_categories[i]);
    d->plot->xAxis->setTicker(ticker);
}

void XYPlot::setAxisLabels(const QString &x, const QString &y)
{
    d->plot->xAxis->setLabel(x);
    d->plot->yAxis->setLabel(y);
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

void XYPlot::setYRange(double lower, double upper)
{
    m_yRange = std::pair{lower, upper};
    rebuild();
}

void XYPlot::setColorMap(ColorMap map)
{
    m_colorMap = map;
    rebuild();
}

bool XYPlot::denseBars() const
{
    return d->denseBars;
}

double XYPlot::denseLineWidth() const
{
    // As wide as a category's slot, so the lines fill the axis like bars (a 1 px line per 1.8 px slot reads as
    // stripes), at least 1 px.
    const int axisWidth = std::max(100, d->plot->width() - 80);
    return std::max(1.0, std::ceil(double(axisWidth) / std::max<double>(1, m_categories.size())));
}

bool XYPlot::wantsDenseBars() const
{
    // Below about 3 px per category a bar is thinner than its gap and thousands of them cost the UI thread
    // milliseconds per replot (QCPBars fills one polygon per bar). One vertical line from 0 per category shows the
    // same thing, and QCPGraph's adaptive sampling draws only each pixel column's lowest and highest value.
    const int axisWidth = std::max(100, d->plot->width() - 80);
    return m_categories.size() > 0 && double(axisWidth) / double(m_categories.size()) < 3.0;
}

double XYPlot::barWidth() const
{
    return 0.8 / std::max<double>(1, m_series.size());
}

double XYPlot::barOffset(int series) const
{
    if (d->denseBars) return 0.0;   // every series' line at its category's centre
    return (series - (m_series.size() - 1) / 2.0) * barWidth();
}

QColor XYPlot::seriesColor(int series) const
{
    // Samples of the current map, away from its ends (viridis' yellow is unreadable on white, the diverging
    // map's middle is white): one series takes a dark mid tone, several spread over the map.
    const int n = std::max<int>(1, int(m_series.size()));
    if (m_colorMap == ColorMap::Diverging) {
        static const double t[] = {0.05, 0.95, 0.25, 0.75};
        return colorAt(m_colorMap, t[series % 4]);
    }
    if (n == 1) return colorAt(m_colorMap, 0.3);
    return colorAt(m_colorMap, 0.05 + 0.75 * double(series) / double(n - 1));
}

void XYPlot::rebuild()
{
    QCustomPlot *p = d->plot;
    p->clearPlottables();
    d->plottables.clear();
    d->fitGraph = nullptr;
    d->hover.reset();
    p->clearItems();   // point labels of the previous data
    d->pointLabels.clear();

    const bool dark = isDark(palette());
    const QColor fg = palette().color(QPalette::WindowText);
    double ylo = std::numeric_limits<double>::infinity(), yhi = -ylo;
    double xlo = ylo, xhi = -ylo;
    for (const XYSeries &s : m_series) {
        for (double v : s.y) if (std::isfinite(v)) ylo = std::min(ylo, v), yhi = std::max(yhi, v);
        for (double v : s.x) if (std::isfinite(v)) xlo = std::min(xlo, v), xhi = std::max(xhi, v);
    }

    if (m_kind == XYKind::Bars) {
        d->barTickStride = 0;
        updateBarTicks();
        p->xAxis->setTickLabelRotation(m_categories.size() > 8 ? 60 : 0);
        p->xAxis->setRange(-0.6, std::max<double>(0.0, m_categories.size() - 0.4));
        // Side by side within a category: 80 % of the slot, one bar per series (no QCPBarsGroup, so that
        // pointAt/pointCenter use the same offsets).
        d->denseBars = wantsDenseBars();
        const double width = barWidth();
        for (int i = 0; i < m_series.size(); ++i) {
            const std::vector<double> &y = m_series[i].y;
            const QColor c = seriesColor(i);
            if (d->denseBars) {
                auto *g = new QCPGraph(p->xAxis, p->yAxis);
                g->setName(m_series[i].name);
                g->setLineStyle(QCPGraph::lsImpulse);
                // Later series draw over earlier ones; a little transparency keeps both readable where they meet.
                QColor line = c;
                if (m_series.size() > 1) line.setAlpha(200);
                g->setPen(QPen(line, denseLineWidth()));
                g->setAntialiased(false);   // crisp columns; neighbouring lines touch instead of blurring
                g->setBrush(c);   // the legend's icon only: an impulse plot has no fill
                g->setAdaptiveSampling(true);
                QVector<double> keys, values;
                keys.reserve(qsizetype(y.size()));
                values.reserve(qsizetype(y.size()));
                for (std::size_t k = 0; k < y.size(); ++k)
                    if (std::isfinite(y[k])) keys << m_series[i].x[k], values << y[k];   // no line for a missing value
                g->setData(keys, values, true);
                d->plottables << g;
                continue;
            }
            auto *bars = new QCPBars(p->xAxis, p->yAxis);
            bars->setName(m_series[i].name);
            QVector<double> keys;
            for (double x : m_series[i].x) keys << x + barOffset(i);
            bars->setData(keys, QVector<double>(y.begin(), y.end()), true);
            bars->setWidth(width);
            bars->setPen(Qt::NoPen);
            bars->setBrush(c);
            d->plottables << bars;
        }
        ylo = std::min(ylo, 0.0);
        yhi = std::max(yhi, 0.0);
    } else {
        d->denseBars = false;
        p->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
        p->xAxis->setTickLabelRotation(0);
        for (int i = 0; i < m_series.size(); ++i) {
            const XYSeries &s = m_series[i];
            auto *g = new QCPGraph(p->xAxis, p->yAxis);
            g->setName(s.name);
            const std::size_t n = std::min(s.x.size(), s.y.size());
            g->setData(QVector<double>(s.x.begin(), s.x.begin() + qsizetype(n)),
                       QVector<double>(s.y.begin(), s.y.begin() + qsizetype(n)), m_kind == XYKind::Lines);
            const QColor c = seriesColor(i);
            if (m_kind == XYKind::Scatter) {
                g->setLineStyle(QCPGraph::lsNone);
                g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c, c, 7));
                // Most prominent first: the point furthest towards the top or the right of the data (the larger
                // of its two coordinates scaled to the data's range), so the strongest tokens keep their labels.
                std::vector<int> order;
                for (std::size_t k = 0; k < n && qsizetype(k) < s.labels.size(); ++k)
                    if (std::isfinite(s.x[k]) && std::isfinite(s.y[k]) && !s.labels[qsizetype(k)].isEmpty()) order.push_back(int(k));
                const auto scaled = [](double v, double lo, double hi) { return hi > lo ? (v - lo) / (hi - lo) : 0.0; };
                const auto prominence = [&](int k) {
                    return std::max(scaled(s.x[std::size_t(k)], xlo, xhi), scaled(s.y[std::size_t(k)], ylo, yhi));
                };
                std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return prominence(a) > prominence(b); });
                for (int k : order) {
                    auto *label = new QCPItemText(p);
                    label->position->setCoords(s.x[std::size_t(k)], s.y[std::size_t(k)]);
                    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
                    label->setPadding(QMargins(4, 0, 0, 2));
                    label->setText(s.labels[qsizetype(k)]);
                    label->setColor(fg);
                    label->setSelectable(false);
                    label->setClipToAxisRect(true);
                    d->pointLabels.push_back({k, label});
                }
            } else {
                g->setPen(QPen(c, 2, s.style));
                g->setScatterStyle(n <= 40 ? QCPScatterStyle(QCPScatterStyle::ssDisc, c, c, 5) : QCPScatterStyle());
            }
            d->plottables << g;
        }
        if (m_fit && m_series.size() == 1 && std::isfinite(xlo)) {
            d->fitGraph = new QCPGraph(p->xAxis, p->yAxis);
            const auto [a, b] = *m_fit;
            d->fitGraph->setData({xlo, xhi}, {a + b * xlo, a + b * xhi});
            d->fitGraph->setName(tr("least-squares fit: y = %1 + %2·x").arg(number(a), number(b)));
            d->fitGraph->setPen(QPen(dark ? QColor(220, 220, 220) : QColor(90, 90, 90), 1.5, Qt::DashLine));
        }
        if (std::isfinite(xlo)) {
            const double pad = xhi > xlo ? 0.05 * (xhi - xlo) : 0.5;
            p->xAxis->setRange(xlo - pad, xhi + pad);
        }
    }
    if (m_yRange) {
        p->yAxis->setRange(m_yRange->first, m_yRange->second);
    } else if (std::isfinite(ylo)) {
        const double pad = yhi > ylo ? 0.08 * (yhi - ylo) : std::max(1e-9, std::abs(yhi) * 0.1 + 1e-9);
        p->yAxis->setRange(m_kind == XYKind::Bars && ylo >= 0 ? 0.0 : ylo - pad, yhi + pad);
    }
    const bool legend = (m_series.size() > 1 || d->fitGraph)
                        && std::any_of(m_series.begin(), m_series.end(), [](const XYSeries &s) { return !s.name.isEmpty(); });
    p->legend->setVisible(legend);
    plottext::fitLegend(p->legend, p->width());
    p->replot(QCustomPlot::rpQueuedReplot);
}

QRectF XYPlot::labelRect(const QCPItemText *label) const
{
    // Where the label draws: its text's box beside its anchor, on the side its alignment says, with 4 px between
    // the point and the text horizontally and 2 px vertically.
    const QPointF at = label->position->pixelPosition();
    const QFontMetricsF fm(label->font());
    const QRectF text = fm.boundingRect(label->text());
    const QMarginsF pad = label->padding();
    const double w = text.width() + pad.left() + pad.right(), h = text.height() + pad.top() + pad.bottom();
    const Qt::Alignment a = label->positionAlignment();
    const double x = a & Qt::AlignRight ? at.x() - w : at.x();
    const double y = a & Qt::AlignTop ? at.y() : at.y() - h;
    return QRectF(x, y, w, h);
}

void XYPlot::placePointLabels()
{
    // A label is shown where it overlaps no label already shown and lies inside the axes: up and to the right of
    // its point, else up-left, down-right or down-left (a point at the right or top edge keeps its label). The
    // rest are read on hover. At most kMaxPointLabels: beyond, the labels are a texture, not text.
    struct Side {
        Qt::Alignment alignment;
        QMargins padding;
    };
    static const Side sides[] = {{Qt::AlignLeft | Qt::AlignBottom, QMargins(4, 0, 0, 2)},
                                 {Qt::AlignRight | Qt::AlignBottom, QMargins(0, 0, 4, 2)},
                                 {Qt::AlignLeft | Qt::AlignTop, QMargins(4, 2, 0, 0)},
                                 {Qt::AlignRight | Qt::AlignTop, QMargins(0, 2, 4, 0)}};
    std::vector<QRectF> placed;
    const QRectF axes = d->plot->axisRect()->rect();
    for (const Private::PointLabel &l : d->pointLabels) {
        bool shown = false;
        if (int(placed.size()) < kMaxPointLabels) {
            for (const Side &side : sides) {
                l.item->setPositionAlignment(side.alignment);
                l.item->setPadding(side.padding);
                const QRectF r = labelRect(l.item);
                const QRectF spaced = r.adjusted(-1, -1, 1, 1);   // at least a pixel between two labels
                if (axes.contains(r) && std::none_of(placed.begin(), placed.end(), [&](const QRectF &q) { return q.intersects(spaced); })) {
                    placed.push_back(r);
                    shown = true;
                    break;
                }
            }
        }
        l.item->setVisible(shown);
    }
}

QList<int> XYPlot::labelledPoints() const
{
    QList<int> shown;
    for (const Private::PointLabel &l : d->pointLabels)
        if (l.item->visible()) shown << l.index;
    return shown;
}

QList<QRect> XYPlot::pointLabelRects() const
{
    QList<QRect> rects;
    for (const Private::PointLabel &l : d->pointLabels)
        if (l.item->visible()) rects << labelRect(l.item).toAlignedRect().translated(d->plot->mapTo(this, QPoint(0, 0)));
    return rects;
}

QString XYPlot::hoverText(XYPoint pt) const
{
    if (pt.series < 0 || pt.series >= m_series.size()) return {};
    const XYSeries &s = m_series[pt.series];
    if (pt.index < 0 || std::size_t(pt.index) >= s.y.size()) return {};
    const std::size_t i = std::size_t(pt.index);
    QString text = s.name.isEmpty() ? QString() : s.name + QLatin1Char('\n');
    if (m_kind == XYKind::Bars) {
        const QString cat = pt.index < m_categories.size() ? m_categories[pt.index] : QString();
        if (d->denseBars && m_series.size() > 1) {
            // The series' lines share the category's pixel column: name every value.
            QString all = cat;
            for (const XYSeries &other : m_series)
                all += QLatin1Char('\n') + tr("%1: %2").arg(other.name, number(i < other.y.size() ? other.y[i] : NAN));
            return all;
        }
        return text + tr("%1: %2").arg(cat, number(s.y[i]));
    }
    if (pt.index < s.labels.size()) text += s.labels[pt.index] + QLatin1Char('\n');
    // Axis labels may be set on two lines to fit their axis; the hover reads them as one.
    const QString xl = d->plot->xAxis->label().isEmpty() ? QStringLiteral("x") : d->plot->xAxis->label().replace(QLatin1Char('\n'), QLatin1Char(' '));
    const QString yl = d->plot->yAxis->label().isEmpty() ? QStringLiteral("y") : d->plot->yAxis->label().replace(QLatin1Char('\n'), QLatin1Char(' '));
    return text + tr("%1 = %2,  %3 = %4").arg(xl, number(i < s.x.size() ? s.x[i] : NAN), yl, number(s.y[i]));
}

QPointF XYPlot::pointCenter(XYPoint pt) const
{
    if (pt.series < 0 || pt.series >= d->plottables.size()) return {};
    const XYSeries &s = m_series[pt.series];
    if (pt.index < 0 || std::size_t(pt.index) >= std::min(s.x.size(), s.y.size())) return {};
    double x = s.x[std::size_t(pt.index)];
    if (m_kind == XYKind::Bars) x += barOffset(pt.series);
    const QPointF px(d->plot->xAxis->coordToPixel(x), d->plot->yAxis->coordToPixel(s.y[std::size_t(pt.index)]));
    return d->plot->mapTo(const_cast<XYPlot *>(this), px);
}

std::optional<XYPoint> XYPlot::pointAt(QPointF pos) const
{
    const QPointF local = d->plot->mapFrom(this, pos);
    if (!d->plot->axisRect()->rect().contains(local.toPoint())) return std::nullopt;
    QCPAxis *xa = d->plot->xAxis;
    if (m_kind == XYKind::Bars) {
        // The category under the cursor, then the bar of the group under it.
        const int cat = int(std::lround(xa->pixelToCoord(local.x())));
        if (cat < 0 || cat >= m_categories.size() || m_series.isEmpty()) return std::nullopt;
        if (d->denseBars) return XYPoint{0, cat};   // the hover names every series (hoverText)
        const double offset = xa->pixelToCoord(local.x()) - cat;   // in [-0.5, 0.5]
        const int n = int(m_series.size());
        const int s = std::clamp(int(std::floor((offset / 0.8 + 0.5) * n)), 0, n - 1);
        return XYPoint{s, cat};
    }
    std::optional<XYPoint> best;
    double bestD = 12.0 * 12.0;   // pixels²: points further than this are not "under" the cursor
    for (int si = 0; si < m_series.size(); ++si) {
        const XYSeries &s = m_series[si];
        for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
            const double dx = xa->coordToPixel(s.x[i]) - local.x(), dy = d->plot->yAxis->coordToPixel(s.y[i]) - local.y();
            if (dx * dx + dy * dy < bestD) bestD = dx * dx + dy * dy, best = XYPoint{si, int(i)};
        }
    }
    return best;
}

bool XYPlot::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != d->plot) return QWidget::eventFilter(watched, event);
    switch (event->type()) {
    case QEvent::MouseMove: {
        auto *e = static_cast<QMouseEvent *>(event);
        const auto pt = pointAt(d->plot->mapTo(this, e->position()));
        if (pt == d->hover) break;
        d->hover = pt;
        if (pt) {
            QToolTip::showText(e->globalPosition().toPoint(), hoverText(*pt), d->plot);
            emit pointHovered(pt->series, pt->index);
        } else {
            QToolTip::hideText();
            emit hoverLeft();
        }
        break;
    }
    case QEvent::MouseButtonPress:
        d->pressPos = static_cast<QMouseEvent *>(event)->position().toPoint();
        break;
    case QEvent::MouseButtonRelease: {
        auto *e = static_cast<QMouseEvent *>(event);
        if (e->button() == Qt::LeftButton && (e->position().toPoint() - d->pressPos).manhattanLength() < 4)
            if (auto pt = pointAt(d->plot->mapTo(this, e->position()))) emit pointClicked(pt->series, pt->index);
        break;
    }
    case QEvent::Leave:
        if (d->hover) {
            d->hover.reset();
            QToolTip::hideText();
            emit hoverLeft();
        }
        break;
    default:
        break;
    }
    return QWidget::eventFilter(watched, event);
}

void XYPlot::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) applyPalette();
}

void XYPlot::applyPalette()
{
    const QPalette pal = palette();
    const QColor fg = pal.color(QPalette::WindowText);
    QCustomPlot *p = d->plot;
    plottext::applyAxesPalette(p, pal, font());
    for (QCPAxis *axis : {p->xAxis, p->yAxis}) {
        axis->grid()->setZeroLinePen(axis == p->yAxis ? QPen(fg, 1) : QPen(Qt::NoPen));
    }
    p->legend->setBrush(Qt::NoBrush);
    p->legend->setTextColor(fg);
    p->legend->setBorderPen(Qt::NoPen);
    p->legend->setFont(font());
    d->title->setTextColor(fg);
    plottext::fitTitle(d->title, d->fullTitle, d->plot->width());   // the font may have grown
    rebuild();
}

bool XYPlot::savePng(const QString &path, QSize size, double scale, QString *error)
{
    return plotexport::savePng(d->plot, path, size, scale, error);
}

bool XYPlot::saveSvg(const QString &path, QSize size, QString *error)
{
    return plotexport::saveSvg(d->plot, path, size, title(), error);
}

bool XYPlot::savePdf(const QString &path, QSize size, QString *error)
{
    return plotexport::savePdf(d->plot, path, size, title(), error);
}

bool XYPlot::saveFigure(const QString &path, QSize size, QString *error)
{
    return plotexport::saveFigure(d->plot, path, size, title(), error);
}

} // namespace attnui
