// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/explore/aggregationpanel.h"
#include "kit/numbering.h"

#include "export/figureexport.h"
#include "workspaces/explore/experiment.h"
#include "plots/heatmapplot.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace attnui {

namespace {

// `layer`: the layer whose mask applies (a layer mean); -1 for rollout and flow, which mix every layer's.
HeatmapData matrixData(const ExploreSnapshot &s, const std::vector<double> &m, double *upper, int layer)
{
    HeatmapData data;
    data.rows = data.cols = s.length();
    data.values.assign(m.begin(), m.end());
    data.masked = s.maskedOf(layer);
    data.rowLabels = data.colLabels = s.tokens;
    *upper = 0.0;
    for (double v : m) *upper = std::max(*upper, v);
    return data;
}

} // namespace

AggregationPanel::AggregationPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    auto *intro = new QLabel(tr("How attention combines across heads and layers. Left: the mean over the heads of one "
                                "layer. Right: rollout multiplies the layers' head means, each mixed half-and-half "
                                "with the identity for the residual stream; flow treats the same matrices as a "
                                "network of capacities and solves a max-flow per token pair. Rows are output "
                                "positions, columns the input tokens; colours are scaled to each map's maximum."));
    intro->setWordWrap(true);
    intro->setForegroundRole(QPalette::PlaceholderText);
    intro->setProperty(kExcludeFromFigure, true);   // the caption and the map titles say what a figure shows
    layout->addWidget(intro);

    auto *grid = new QGridLayout;
    auto *meanRow = new QHBoxLayout;
    auto *layerLabel = new QLabel(tr("Mean over heads of &layer"));
    m_layer = new QSpinBox;
    m_layer->setRange(0, 0);
    layerLabel->setBuddy(m_layer);
    meanRow->addWidget(layerLabel);
    meanRow->addWidget(m_layer);
    meanRow->addStretch(1);
    auto *aggRow = new QHBoxLayout;
    auto *methodLabel = new QLabel(tr("&Through all layers"));
    m_method = new QComboBox;
    m_method->addItem(tr("Attention rollout"), int(Method::Rollout));
    m_method->addItem(tr("Attention flow"), int(Method::Flow));
    methodLabel->setBuddy(m_method);
    aggRow->addWidget(methodLabel);
    aggRow->addWidget(m_method);
    aggRow->addStretch(1);
    grid->addLayout(meanRow, 0, 0);
    grid->addLayout(aggRow, 0, 1);
    m_meanPlot = new HeatmapPlot;
    m_aggregatePlot = new HeatmapPlot;
    for (HeatmapPlot *p : {m_meanPlot, m_aggregatePlot}) p->setAxisTitles(tr("output position"), tr("input token"));
    m_meanPlot->setAxisTitles(tr("query"), tr("key"));
    m_aggregatePlot->setValueLabel(tr("relevance"));
    grid->addWidget(m_meanPlot, 1, 0);
    grid->addWidget(m_aggregatePlot, 1, 1);
    grid->setRowStretch(1, 1);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);
    layout->addLayout(grid, 1);
    m_note = new QLabel;
    m_note->setWordWrap(true);
    layout->addWidget(m_note);

    connect(m_layer, &QSpinBox::valueChanged, this, &AggregationPanel::updateMean);
    connect(m_method, &QComboBox::currentIndexChanged, this, &AggregationPanel::updateAggregate);
}

void AggregationPanel::setColorMap(ColorMap map)
{
    m_meanPlot->setColorMap(map);
    m_aggregatePlot->setColorMap(map);
}

void AggregationPanel::setMethod(Method method)
{
    m_method->setCurrentIndex(m_method->findData(int(method)));
}

AggregationPanel::Method AggregationPanel::method() const
{
    return Method(m_method->currentData().toInt());
}

void AggregationPanel::setLayer(int layer)
{
    m_layer->setValue(layer);
}

QSize AggregationPanel::figureSize() const
{
    const QSize a = m_meanPlot->figureSize(), b = m_aggregatePlot->figureSize();
    const int note = m_note->isVisibleTo(this) ? m_note->heightForWidth(a.width() + b.width()) + 6 : 0;
    return QSize(a.width() + b.width() + 12, std::max(a.height(), b.height()) + note + 4);
}

QString AggregationPanel::noteText() const
{
    return m_note->text();
}

void AggregationPanel::setSnapshot(std::shared_ptr<const ExploreSnapshot> snapshot)
{
    m_snapshot = std::move(snapshot);
    if (!m_snapshot) return;
    const QSignalBlocker block(m_layer);
    m_layer->setRange(0, std::max(1, m_snapshot->layers) - 1);
    updateMean();
    updateAggregate();
}

void AggregationPanel::updateMean()
{
    if (!m_snapshot) return;
    const ExploreSnapshot &s = *m_snapshot;
    const int layer = m_layer->value();
    if (layer >= int(s.layerMeans.size())) {
        m_meanPlot->clear();
        m_meanPlot->setTitle(tr("Mean over heads: not computed for this input"));
        return;
    }
    double upper = 0.0;
    m_meanPlot->setData(matrixData(s, s.layerMeans[std::size_t(layer)], &upper, layer));
    m_meanPlot->setValueRange(0.0, std::max(upper, 1e-6));
    m_meanPlot->setValueLabel(tr("mean weight"));
    m_meanPlot->setTitle(tr("%1: mean over %2 heads").arg(layerName(layer)).arg(s.heads));
}

void AggregationPanel::updateAggregate()
{
    if (!m_snapshot) return;
    const ExploreSnapshot &s = *m_snapshot;
    const bool flow = method() == Method::Flow;
    const std::vector<double> &m = flow ? s.flow : s.rollout;
    m_note->setText(s.aggregationNote);
    m_note->setVisible(!s.aggregationNote.isEmpty());
    if (m.empty()) {
        m_aggregatePlot->clear();
        m_aggregatePlot->setTitle(flow ? tr("Attention flow: not computed for this input")
                                       : tr("Attention rollout: not computed for this input"));
        return;
    }
    double upper = 0.0;
    m_aggregatePlot->setData(matrixData(s, m, &upper, -1));
    m_aggregatePlot->setValueRange(0.0, std::max(upper, 1e-6));
    m_aggregatePlot->setTitle(tr("%1 through %2 layers").arg(flow ? tr("Attention flow") : tr("Attention rollout"))
                                  .arg(s.layers));
}

} // namespace attnui
