// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/vectorplot.h"

#include <QEvent>
#include <QPaintEngine>
#include <QPainter>

#include <cmath>

namespace attnui {

namespace {

bool g_presentation = false;

bool isVectorDevice(const QPainter *painter)
{
    const QPaintEngine *engine = painter ? painter->paintEngine() : nullptr;
    if (!engine) return false;
    switch (engine->type()) {
    case QPaintEngine::SVG:
    case QPaintEngine::Pdf:
    case QPaintEngine::Picture:
        return true;
    default:
        return false;
    }
}

// Replaces a QCustomPlot's paint event while a figure is rendered: QCustomPlot::paintEvent would blit its screen
// buffers (one bitmap in an SVG); toPainter() draws every layer through the painter QWidget::render() redirects.
// An event filter sees the paint event inside the widget's paint cycle, so painting on the widget is allowed.
class ExportPaintFilter : public QObject {
public:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() != QEvent::Paint) return false;
        auto *plot = qobject_cast<QCustomPlot *>(watched);
        if (!plot) return false;
        QCPPainter painter(plot);
        if (painter.isActive()) {
            painter.setRenderHint(QPainter::Antialiasing);
            painter.setMode(QCPPainter::pmNoCaching);   // tick labels as text, not cached pixmaps
            plot->toPainter(&painter, plot->width(), plot->height());
        }
        return true;
    }
};

ExportPaintFilter *exportFilter()
{
    static ExportPaintFilter filter;
    return &filter;
}

} // namespace

namespace {
int g_figureScopes = 0;
}

bool paintingFigure()
{
    return g_figureScopes > 0;
}

VectorPaintScope::VectorPaintScope(QWidget *root)
{
    ++g_figureScopes;
    QList<QCustomPlot *> plots = root->findChildren<QCustomPlot *>();
    if (auto *self = qobject_cast<QCustomPlot *>(root)) plots.prepend(self);
    for (QCustomPlot *plot : plots) {
        plot->installEventFilter(exportFilter());
        m_plots.append(plot);
    }
}

VectorPaintScope::~VectorPaintScope()
{
    --g_figureScopes;
    for (const QPointer<QWidget> &plot : m_plots)
        if (plot) plot->removeEventFilter(exportFilter());
}

void preparePlotsForExport(QWidget *root)
{
    QList<QCustomPlot *> plots = root->findChildren<QCustomPlot *>();
    if (auto *self = qobject_cast<QCustomPlot *>(root)) plots.prepend(self);
    for (QCustomPlot *plot : plots) {
        plot->setViewport(plot->rect());
        // Twice: the first pass lays out at the new size, after which the wrappers re-thin their tick labels
        // (afterLayout); the second lays out with those labels.
        plot->replot(QCustomPlot::rpQueuedRefresh);
        plot->replot(QCustomPlot::rpQueuedRefresh);
    }
}

void setPresentationStyle(bool on)
{
    g_presentation = on;
}

bool presentationStyle()
{
    return g_presentation;
}

double plotLineWidth()
{
    return g_presentation ? 2.5 : 1.0;
}

void VectorColorMap::draw(QCPPainter *painter)
{
    QCPColorMapData *cells = data();
    QCPAxis *keyAxis = mKeyAxis.data(), *valueAxis = mValueAxis.data();
    if (!isVectorDevice(painter) || !cells || cells->isEmpty() || !keyAxis || !valueAxis ||
        cells->keySize() * cells->valueSize() > kMaxVectorCells) {
        QCPColorMap::draw(painter);
        return;
    }
    // One rectangle per cell, so an SVG or PDF scales without blur. NaN cells (masked) stay transparent: the
    // axis rect's background and the hatching show through, as on screen.
    const int nk = cells->keySize(), nv = cells->valueSize();
    const double keyStep = nk > 1 ? cells->keyRange().size() / (nk - 1) : 1.0;
    const double valueStep = nv > 1 ? cells->valueRange().size() / (nv - 1) : 1.0;
    const QRectF area = keyAxis->axisRect()->rect();
    const bool log = mDataScaleType == QCPAxis::stLogarithmic;
    painter->save();
    painter->setPen(Qt::NoPen);
    painter->setAntialiasing(false);
    for (int i = 0; i < nk; ++i) {
        for (int j = 0; j < nv; ++j) {
            const double value = cells->cell(i, j);
            if (std::isnan(value)) continue;
            double key = 0, val = 0;
            cells->cellToCoord(i, j, &key, &val);
            const QPointF a = coordsToPixels(key - keyStep / 2, val - valueStep / 2);
            const QPointF b = coordsToPixels(key + keyStep / 2, val + valueStep / 2);
            // A slight overlap hides the hairline seams some viewers draw between abutting rectangles.
            const QRectF r = QRectF(a, b).normalized().adjusted(0, 0, 0.3, 0.3).intersected(area);
            if (r.isEmpty()) continue;
            const QColor c = QColor::fromRgba(mGradient.color(value, mDataRange, log));
            if (c.alpha() == 0) continue;
            painter->fillRect(r, c);
        }
    }
    painter->restore();
}

} // namespace attnui
