// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/explore/headstatspanel.h"
#include "kit/numbering.h"

#include "export/figureexport.h"
#include "workspaces/explore/experiment.h"
#include "models/headstatsmodel.h"
#include "plots/heatmapplot.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>

namespace attnui {

HeadStatsPanel::HeadStatsPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    m_note = new QLabel(tr("Statistics of every head on the current input (TransformerLens-style scores). Sort by a "
                           "column to find previous-token, duplicate-token or induction heads; click a row to open "
                           "that head. Hover a column title for its definition."));
    m_note->setWordWrap(true);
    m_note->setForegroundRole(QPalette::PlaceholderText);
    m_note->setProperty(kExcludeFromFigure, true);   // how to use the panel, not what it shows
    layout->addWidget(m_note);

    m_model = new HeadStatsModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(HeadStatsModel::SortRole);
    m_table = new QTableView;
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->sortByColumn(HeadStatsModel::Layer, Qt::AscendingOrder);

    auto *right = new QWidget;
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    auto *pick = new QHBoxLayout;
    auto *label = new QLabel(tr("&Map of"));
    m_statistic = new QComboBox;
    for (int c = HeadStatsModel::Entropy; c < HeadStatsModel::ColumnCount; ++c)
        m_statistic->addItem(HeadStatsModel::longTitle(c), c);
    m_statistic->setCurrentIndex(m_statistic->findData(int(HeadStatsModel::PreviousToken)));
    label->setBuddy(m_statistic);
    pick->addWidget(label);
    pick->addWidget(m_statistic, 1);
    rightLayout->addLayout(pick);
    m_plot = new HeatmapPlot;
    m_plot->setAxisTitles(tr("layer"), tr("head"));
    m_plot->setHoverFormatter([this](HeatmapCell cell) {
        const double v = m_plot->data().values[std::size_t(cell.row * m_plot->data().cols + cell.col)];
        return tr("%1\n%2 %3")
            .arg(headName(cell.row, cell.col), m_statistic->currentText())
            .arg(std::isnan(v) ? tr("undefined on this input") : QString::number(v, 'f', 3));
    });
    rightLayout->addWidget(m_plot, 1);

    auto *split = m_split = new QSplitter(Qt::Horizontal);
    split->addWidget(m_table);
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({760, 440});
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);

    connect(m_statistic, &QComboBox::currentIndexChanged, this, &HeadStatsPanel::updatePlot);
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex &index) {
        emit headActivated(index.data(HeadStatsModel::LayerRole).toInt(), index.data(HeadStatsModel::HeadRole).toInt());
    });
    connect(m_plot, &HeatmapPlot::cellClicked, this, [this](int row, int col) { emit headActivated(row, col); });
}

QSize HeadStatsPanel::figureSize() const
{
    const QSize plot = m_plot->figureSize();
    if (m_table->property(kExcludeFromFigure).toBool()) return plot + QSize(0, 4);
    const QSize table = tableFigureSize(m_table);
    // Exports divide the splitter so (kFigureSizes): the table as wide as its columns, the map its own width.
    m_split->setProperty(kFigureSizes, QVariant::fromValue(QList<int>{table.width(), plot.width()}));
    return QSize(table.width() + m_split->handleWidth() + plot.width(), std::max(table.height(), plot.height()) + 4);
}

int HeadStatsPanel::plottedColumn() const
{
    return m_statistic->currentData().toInt();
}

void HeadStatsPanel::setPlottedColumn(int column)
{
    const int idx = m_statistic->findData(column);
    if (idx >= 0) m_statistic->setCurrentIndex(idx);
}

void HeadStatsPanel::setColorMap(ColorMap map)
{
    m_plot->setColorMap(map);
}

void HeadStatsPanel::setSnapshot(std::shared_ptr<const ExploreSnapshot> snapshot)
{
    m_snapshot = std::move(snapshot);
    if (!m_snapshot) {
        m_model->clear();
        m_plot->clear();
        return;
    }
    m_model->setStatistics(m_snapshot->layers, m_snapshot->heads, m_snapshot->stats);
    // A figure of 144 table rows is no figure: past kMaxFigureRows heads it shows the map alone.
    m_table->setProperty(kExcludeFromFigure, m_snapshot->layers * m_snapshot->heads > kMaxFigureRows);
    updatePlot();
}

void HeadStatsPanel::updatePlot()
{
    if (!m_snapshot || m_snapshot->heads == 0) return;
    const ExploreSnapshot &s = *m_snapshot;
    const int column = plottedColumn();
    HeatmapData data;
    data.rows = s.layers;
    data.cols = s.heads;
    data.masked.assign(std::size_t(s.layers * s.heads), 0);
    double upper = 0.0;
    for (std::size_t k = 0; k < s.stats.size(); ++k) {
        const double v = HeadStatsModel::value(s.stats[k], column);
        data.values.push_back(float(v));
        if (std::isnan(v)) data.masked[k] = 1;
        else upper = std::max(upper, v);
    }
    data.rowLabels = layerTickLabels(s.layers);
    data.colLabels = headTickLabels(s.heads);
    // Scores that are fractions of attention keep [0, 1]; entropy and distance use their own range.
    const bool fraction = column != HeadStatsModel::Entropy && column != HeadStatsModel::MeanDistance;
    m_plot->setData(std::move(data));
    m_plot->setValueRange(0.0, fraction ? 1.0 : std::max(upper, 1e-6));
    m_plot->setTitle(tr("%1 per head").arg(m_statistic->currentText()));
    m_plot->setValueLabel(QString());
}

} // namespace attnui
