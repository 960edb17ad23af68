// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Per-head statistics as a table: one row per (layer, head), one column per statistic. Sort through a
// QSortFilterProxyModel on SortRole (NaN — undefined on this input — sorts below every number).

#include <attnscope/analysis.h>

#include <QAbstractTableModel>

#include <vector>

namespace attnui {

class HeadStatsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Layer, Head, Entropy, MeanDistance, FirstToken, Self, PreviousToken, DuplicateToken, Induction,
                  ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1,   // double; NaN mapped to −∞
        ValueRole,                     // double; NaN where undefined
        LayerRole,                     // int, from 0
        HeadRole,                      // int, from 0
    };

    explicit HeadStatsModel(QObject *parent = nullptr);

    // stats[layer * heads + head]
    void setStatistics(int layers, int heads, std::vector<attn::HeadStatistics> stats);
    void clear();

    static double value(const attn::HeadStatistics &s, int column);
    static QString columnTitle(int column);   // short, for the table header
    static QString longTitle(int column);     // for plots and pickers: "Previous-token score"
    static QString columnToolTip(int column);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    int m_layers = 0, m_heads = 0;
    std::vector<attn::HeadStatistics> m_stats;
};

} // namespace attnui
