// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/boxplot.h"

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

constexpr double kBoxWidth = 0.42;
constexpr double kMeanOffset = 0.3;   // the mean's diamond and interval, right of its box

bool isDark(const QPalette &palette) { return palette.color(QPalette::Window).lightness() < 128; }

QString number(double v)
{
    if (std::isnan(v)) return QStringLiteral("—");
    const double a = std::abs(v);
    if (a != 0.0 && (a < 1e-3 || a >= 1e5)) return QString::number(v, 'e', 3);
    return QString::number(v, 'f', 3);
}

// NumPy's default percentile (linear between order statistics) of sorted values.
double sortedPercentile(const std::vector<double> &x, double q)
{
    const double h = double(x.size() - 1) * q / 100.0;
    const auto lo = std::size_t(std::floor(h));
    const std::size_t hi = std::min(lo + 1, x.size() - 1);
    return x[lo] + (h - double(lo)) * (x[hi] - x[lo]);
}

} // namespace

BoxStats computeBoxStats(std::vector<double> values)
{
    std::erase_if(values, [](double v) { return !std::isfinite(v); });
    BoxStats s;
    s.n = int(values.size());
    if (values.empty()) return s;
    std::sort(values.begin(), values.end());
    s.q1 = sortedPercentile(values, 25);
    s.median = sortedPercentile(values, 50);
    s.q3 = sortedPercentile(values, 75);
    const double iqr = s.q3 - s.q1, lo = s.q1 - 1.5 * iqr, hi = s.q3 + 1.5 * iqr;
    s.lowWhisker = s.q1;
    s.highWhisker = s.q3;
    for (double v : values) {
        if (v < lo || v > hi) s.outliers.push_back(v);
        else s.lowWhisker = std::min(s.lowWhisker, v), s.highWhisker = std::max(s.highWhisker, v);
    }
    return s;
}

struct BoxPlot::Private {
    QCustomPlot *plot = nullptr;
    QCPTextElement *title = nullptr;
    std::optional<int> hover;
};

BoxPlot::BoxPlot(QWidget *parent) : QWidget(parent), d(std::make_unique<Private>())
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    d->plot = new QCustomPlot(this);
    layout->addWidget(d->plot);
    d->plot->setMouseTracking(true);
    d->plot->installEventFilter(this);
    d->title = new QCPTextElement(d->plot, QString(), QFont(font().family(), font().pointSize() + 1, QFont::DemiBold));
    d->plot->plotLayout()->insertRow(0);
    d->plot->plotLayout()->addElement(0, 0, d->title);
    applyPalette();
    setMinimumSize(240, 180);
}

BoxPlot::~BoxPlot() = default;

QWidget *BoxPlot::plotWidget() const { return d->plot; }

void BoxPlot::setBoxes(const QList<BoxSeries> &boxes)
{
    m_boxes = boxes;
    m_stats.clear();
    for (const BoxSeries &b : m_boxes) m_stats.push_back(computeBoxStats(b.values));
    rebuild();
}

void BoxPlot::setTitle(const QString &title)
{
    d->title->setText(title);
    d->plot->replot();
}

QString BoxPlot::title() const { return d->title->text(); }

QRect BoxPlot::plotArea() const
{
    const QRect r = d->plot->axisRect()->rect();
    return QRect(d->plot->mapTo(this, r.topLeft()), r.size());
}

QStringList BoxPlot::clippedTexts() const
{
    return plottext::clippedTexts(d->plot);
}

void BoxPlot::setValueLabel(const QString &label)
{
    d->plot->yAxis->setLabel(label);
    d->plot->replot();
}

void BoxPlot::rebuild()
{
    QCustomPlot *p = d->plot;
    p->clearPlottables();
    d->hover.reset();
    const QColor fg = palette().color(QPalette::WindowText);
    const bool dark = isDark(palette());
    const QColor method = dark ? QColor(110, 160, 230) : QColor(45, 95, 170);
    const QColor baseline = dark ? QColor(150, 150, 150) : QColor(130, 130, 130);

    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (int i = 0; i < m_boxes.size(); ++i) {
        const BoxSeries &b = m_boxes[i];
        const BoxStats &s = m_stats[std::size_t(i)];
        ticker->addTick(i, b.name);
        const QColor c = b.baseline ? baseline : method;
        if (s.n > 0) {
            auto *box = new QCPStatisticalBox(p->xAxis, p->yAxis);
            box->setName(b.name);
            box->addData(i, s.lowWhisker, s.q1, s.median, s.q3, s.highWhisker,
                         QVector<double>(s.outliers.begin(), s.outliers.end()));
            box->setWidth(kBoxWidth);
            box->setWhiskerWidth(kBoxWidth * 0.5);
            QColor fill = c;
            fill.setAlpha(70);
            box->setBrush(fill);
            box->setPen(QPen(c, 1.2));
            box->setWhiskerPen(QPen(c, 1.0, Qt::SolidLine));
            box->setWhiskerBarPen(QPen(c, 1.0));
            box->setMedianPen(QPen(fg, 2.0));
            box->setOutlierStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, c, 4));
            lo = std::min({lo, s.lowWhisker, s.outliers.empty() ? s.lowWhisker : *std::min_element(s.outliers.begin(), s.outliers.end())});
            hi = std::max({hi, s.highWhisker, s.outliers.empty() ? s.highWhisker : *std::max_element(s.outliers.begin(), s.outliers.end())});
        }
        if (std::isfinite(b.mean)) {
            auto *g = new QCPGraph(p->xAxis, p->yAxis);
            g->setLineStyle(QCPGraph::lsNone);
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, fg, fg, 7));
            g->setData({i + kMeanOffset}, {b.mean});
            g->removeFromLegend();
            if (std::isfinite(b.ciLo) && std::isfinite(b.ciHi)) {
                auto *bars = new QCPErrorBars(p->xAxis, p->yAxis);
                bars->setDataPlottable(g);
                bars->setData({b.mean - b.ciLo}, {b.ciHi - b.mean});
                bars->setPen(QPen(fg, 1.2));
                bars->setWhiskerWidth(6);
                lo = std::min(lo, b.ciLo);
                hi = std::max(hi, b.ciHi);
            }
            lo = std::min(lo, b.mean);
            hi = std::max(hi, b.mean);
        }
    }
    p->xAxis->setTicker(ticker);
    p->xAxis->setSubTicks(false);
    p->xAxis->setTickLength(0, 4);
    p->xAxis->setTickLabelRotation(m_boxes.size() > 10 ? 35 : 0);
    p->xAxis->grid()->setVisible(false);
    p->xAxis->setRange(-0.6, std::max<double>(0.0, double(m_boxes.size()) - 0.3));
    if (!std::isfinite(lo)) lo = 0.0, hi = 1.0;
    const double pad = hi > lo ? 0.06 * (hi - lo) : std::max(0.05, std::abs(hi) * 0.1);
    p->yAxis->setRange(lo - pad, hi + pad);
    p->replot();
}

QString BoxPlot::hoverText(int i) const
{
    if (i < 0 || i >= m_boxes.size()) return {};
    const BoxSeries &b = m_boxes[i];
    const BoxStats &s = m_stats[std::size_t(i)];
    QString text = tr("<b>%1</b> · n = %2").arg(b.name.toHtmlEscaped()).arg(s.n);
    if (s.n == 0) return text + tr("<br>no value on any example");
    text += tr("<br>median %1 · quartiles %2 – %3<br>whiskers %4 – %5 · %6 beyond")
                .arg(number(s.median), number(s.q1), number(s.q3), number(s.lowWhisker), number(s.highWhisker))
                .arg(s.outliers.size());
    if (std::isfinite(b.mean)) text += tr("<br>mean %1 [%2, %3]").arg(number(b.mean), number(b.ciLo), number(b.ciHi));
    return text;
}

std::optional<int> BoxPlot::boxAt(QPointF pos) const
{
    if (m_boxes.isEmpty()) return std::nullopt;
    const QPointF local = d->plot->mapFrom(this, pos);
    if (!d->plot->axisRect()->rect().contains(local.toPoint())) return std::nullopt;
    const double key = d->plot->xAxis->pixelToCoord(local.x());
    const int i = int(std::lround(key));
    if (i < 0 || i >= m_boxes.size() || std::abs(key - i) > 0.5) return std::nullopt;
    return i;
}

QPointF BoxPlot::boxCenter(int i) const
{
    const double y = (i >= 0 && i < int(m_stats.size()) && m_stats[std::size_t(i)].n > 0) ? m_stats[std::size_t(i)].median : 0.0;
    return d->plot->mapTo(this, QPointF(d->plot->xAxis->coordToPixel(i), d->plot->yAxis->coordToPixel(y)));
}

bool BoxPlot::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != d->plot) return QWidget::eventFilter(watched, event);
    if (event->type() == QEvent::MouseMove) {
        auto *e = static_cast<QMouseEvent *>(event);
        const auto box = boxAt(d->plot->mapTo(this, e->position()));
        if (box != d->hover) {
            d->hover = box;
            if (box) QToolTip::showText(e->globalPosition().toPoint(), hoverText(*box), d->plot);
            else QToolTip::hideText();
        }
    } else if (event->type() == QEvent::Leave && d->hover) {
        d->hover.reset();
        QToolTip::hideText();
    }
    return QWidget::eventFilter(watched, event);
}

void BoxPlot::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) applyPalette();
}

void BoxPlot::applyPalette()
{
    const QPalette pal = palette();
    const QColor fg = pal.color(QPalette::WindowText);
    plottext::applyAxesPalette(d->plot, pal, font());
    d->title->setTextColor(fg);
    rebuild();
}

bool BoxPlot::saveFigure(const QString &path, QSize size, QString *error)
{
    return plotexport::saveFigure(d->plot, path, size, title(), error);
}

} // namespace attnui
