// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Aggregations across heads and layers, side by side: the mean over heads of one layer, and attention
// rollout or attention flow (Abnar & Zuidema 2020) through all layers. Rows are output positions, columns the
// input tokens they draw on.

#include "plots/colormaps.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QSpinBox;

namespace attnui {

class HeatmapPlot;
struct ExploreSnapshot;

class AggregationPanel : public QWidget {
    Q_OBJECT
public:
    enum class Method { Rollout, Flow };

    explicit AggregationPanel(QWidget *parent = nullptr);

    void setSnapshot(std::shared_ptr<const ExploreSnapshot> snapshot);
    void setColorMap(ColorMap map);
    void setMethod(Method method);
    Method method() const;
    void setLayer(int layer);   // from 0
    QSize figureSize() const;   // the two maps side by side, each as large as a figure of its own
    HeatmapPlot *meanPlot() const { return m_meanPlot; }
    HeatmapPlot *aggregatePlot() const { return m_aggregatePlot; }
    QString noteText() const;

private:
    void updateMean();
    void updateAggregate();

    std::shared_ptr<const ExploreSnapshot> m_snapshot;
    QSpinBox *m_layer = nullptr;
    QComboBox *m_method = nullptr;
    HeatmapPlot *m_meanPlot = nullptr;
    HeatmapPlot *m_aggregatePlot = nullptr;
    QLabel *m_note = nullptr;
};

} // namespace attnui
