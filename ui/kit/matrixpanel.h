// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// MatrixPanel: one matrix of the Pipeline workspace with a title. Small matrices (≤ 12 rows) are a table with
// every value written in its coloured cell (at most 16 columns; a note says how many more there are); larger
// ones are a HeatmapPlot with the exact value on hover. Signed matrices (X, Q, K, V, scores) use the diverging
// map centred on 0; weights use the workspace's colour map on [0, 1]. −∞ cells are shown as masked.

#include "plots/colormaps.h"

#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

class QLabel;
class QTableView;

namespace attnui {

class HeatmapPlot;
class MatrixTableModel;
struct HeatmapData;

struct MatrixSpec {
    enum class Kind { Signed, Weights };
    QString title;                 // "S = Q Kᵀ"
    QString valueName;             // what a cell holds, for hover and the colour scale ("score")
    int rows = 0;
    int cols = 0;
    // Row-major [rows, cols]; −inf = masked. Shared, not copied: usually it points into the run's snapshot (an
    // aliasing shared_ptr), which stays alive as long as the panel shows it.
    std::shared_ptr<const std::vector<double>> values;
    // Optional [rows, cols]: cells where this is −∞ are shown as masked whatever their value (weights under M).
    std::shared_ptr<const std::vector<double>> maskedWhere;
    QStringList rowLabels;         // [rows]
    QStringList colLabels;         // [cols]
    Kind kind = Kind::Signed;
    QString rowTitle = QStringLiteral("query");   // axis titles of the heatmap
    QString colTitle = QStringLiteral("key");
    bool asHeatmap = false;        // a heatmap whatever the size: wide matrices whose columns matter together
    double weightsMax = 1.0;       // Kind::Weights: the colour scale is [0, weightsMax] (rescaled weights exceed 1)
};

class MatrixPanel : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxTableRows = 12;
    static constexpr int kMaxTableCols = 16;

    explicit MatrixPanel(QWidget *parent = nullptr);
    ~MatrixPanel() override;

    // Shows `spec`: a table at once, or the heatmap's settings, in which case the heatmap's data is returned as a
    // builder for plot(), to be put there at once or off the UI thread (Workspace::showMatrix); it holds what it
    // reads by value. Empty for a table.
    [[nodiscard]] std::function<HeatmapData()> setMatrix(MatrixSpec spec);
    void setColorMap(ColorMap map);
    const MatrixSpec &matrix() const { return m_spec; }
    bool showsTable() const;
    QTableView *table() const { return m_table; }
    HeatmapPlot *plot() const { return m_plot; }
    // The text written in a table cell ("0.412", "−∞"); empty outside the table's shown columns.
    QString cellText(int row, int col) const;

private:
    MatrixSpec m_spec;
    ColorMap m_colorMap = ColorMap::Viridis;
    QLabel *m_title = nullptr;
    QLabel *m_note = nullptr;
    QTableView *m_table = nullptr;
    MatrixTableModel *m_model = nullptr;
    HeatmapPlot *m_plot = nullptr;
};

} // namespace attnui
