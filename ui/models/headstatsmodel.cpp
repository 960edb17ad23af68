// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/headstatsmodel.h"

#include <cmath>
#include <limits>

namespace attnui {

HeadStatsModel::HeadStatsModel(QObject *parent) : QAbstractTableModel(parent) {}

void HeadStatsModel::setStatistics(int layers, int heads, std::vector<attn::HeadStatistics> stats)
{
    beginResetModel();
    m_layers = layers;
    m_heads = heads;
    m_stats = std::move(stats);
    m_stats.resize(std::size_t(std::max(layers * heads, 0)));
    endResetModel();
}

void HeadStatsModel::clear()
{
    setStatistics(0, 0, {});
}

double HeadStatsModel::value(const attn::HeadStatistics &s, int column)
{
    switch (column) {
    case Entropy: return s.entropy;
    case MeanDistance: return s.meanDistance;
    case FirstToken: return s.firstToken;
    case Self: return s.self;
    case PreviousToken: return s.previousToken;
    case DuplicateToken: return s.duplicateToken;
    case Induction: return s.induction;
    default: return std::numeric_limits<double>::quiet_NaN();
    }
}

QString HeadStatsModel::columnTitle(int column)
{
    switch (column) {
    case Layer: return tr("Layer");
    case Head: return tr("Head");
    case Entropy: return tr("Entropy");
    case MeanDistance: return tr("Distance");
    case FirstToken: return tr("First token");
    case Self: return tr("Self");
    case PreviousToken: return tr("Previous");
    case DuplicateToken: return tr("Duplicate");
    case Induction: return tr("Induction");
    }
    return {};
}

QString HeadStatsModel::longTitle(int column)
{
    switch (column) {
    case Entropy: return tr("Entropy (nats)");
    case MeanDistance: return tr("Mean attention distance");
    case FirstToken: return tr("Attention to the first token");
    case Self: return tr("Attention to self");
    case PreviousToken: return tr("Previous-token score");
    case DuplicateToken: return tr("Duplicate-token score");
    case Induction: return tr("Induction score");
    default: return columnTitle(column);
    }
}

QString HeadStatsModel::columnToolTip(int column)
{
    switch (column) {
    case Entropy: return tr("Entropy in nats: mean over queries of −Σ A·ln A. 0: each query looks at one key; ln n: uniform.");
    case MeanDistance: return tr("Mean attention distance: mean over queries of Σ_j A[i,j]·|i − j|, in tokens.");
    case FirstToken: return tr("Mean attention to the first token (an attention sink in causal models).");
    case Self: return tr("Mean attention of each token to itself.");
    case PreviousToken: return tr("Previous-token score: mean over i ≥ 1 of A[i, i−1].");
    case DuplicateToken: return tr("Duplicate-token score: over tokens that occurred before: mean attention to their earlier copies. "
                                   "— when no token repeats.");
    case Induction: return tr("Induction score: over tokens that occurred before: mean attention to the token that followed each "
                              "earlier copy. — when no token repeats.");
    default: return {};
    }
}

int HeadStatsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_stats.size());
}

int HeadStatsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HeadStatsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || m_heads == 0) return {};
    const int layer = index.row() / m_heads, head = index.row() % m_heads;
    const int column = index.column();
    const double v = value(m_stats[std::size_t(index.row())], column);
    switch (role) {
    case Qt::DisplayRole:
        if (column == Layer) return layer;   // from 0, as everywhere
        if (column == Head) return head;
        return std::isnan(v) ? QStringLiteral("—") : QString::number(v, 'f', column == MeanDistance ? 2 : 3);
    case Qt::TextAlignmentRole: return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole: return column >= Entropy ? columnToolTip(column) : QVariant();
    case SortRole:
        if (column == Layer) return layer;
        if (column == Head) return head;
        return std::isnan(v) ? -std::numeric_limits<double>::infinity() : v;
    case ValueRole: return column == Layer ? double(layer) : column == Head ? double(head) : v;
    case LayerRole: return layer;
    case HeadRole: return head;
    default: return {};
    }
}

QVariant HeadStatsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::DisplayRole) return columnTitle(section);
    if (role == Qt::ToolTipRole) return columnToolTip(section);
    return {};
}

} // namespace attnui
