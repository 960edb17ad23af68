// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Head statistics for the current input: a sortable table (one row per head) beside a layer × head map of
// one statistic. Clicking a row or a cell opens that head.

#include "plots/colormaps.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;

namespace attnui {

class HeadStatsModel;
class HeatmapPlot;
struct ExploreSnapshot;

class HeadStatsPanel : public QWidget {
    Q_OBJECT
public:
    explicit HeadStatsPanel(QWidget *parent = nullptr);

    void setSnapshot(std::shared_ptr<const ExploreSnapshot> snapshot);
    void setColorMap(ColorMap map);
    HeatmapPlot *plot() const { return m_plot; }
    QTableView *table() const { return m_table; }
    HeadStatsModel *model() const { return m_model; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    // The panel as a figure: the table (when it has no more than kMaxFigureRows rows) beside the map.
    QSize figureSize() const;
    static constexpr int kMaxFigureRows = 32;
    int plottedColumn() const;
    void setPlottedColumn(int column);   // HeadStatsModel::Column

signals:
    void headActivated(int layer, int head);

private:
    void updatePlot();

    std::shared_ptr<const ExploreSnapshot> m_snapshot;
    HeadStatsModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    QTableView *m_table = nullptr;
    QSplitter *m_split = nullptr;
    QComboBox *m_statistic = nullptr;
    HeatmapPlot *m_plot = nullptr;
    QLabel *m_note = nullptr;
};

} // namespace attnui
