// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/attentionmatrixmodel.h"

namespace attnui {

AttentionMatrixModel::AttentionMatrixModel(QObject *parent) : QAbstractTableModel(parent) {}

void AttentionMatrixModel::setMatrix(const QStringList &queries, const QStringList &keys, std::vector<float> weights,
                                     std::vector<std::uint8_t> masked, std::vector<float> scores)
{
    const std::size_t n = std::size_t(queries.size()) * std::size_t(keys.size());
    Q_ASSERT(weights.size() == n);
    beginResetModel();
    m_queries = queries;
    m_keys = keys;
    m_weights = std::move(weights);
    m_masked = masked.size() == n ? std::move(masked) : std::vector<std::uint8_t>{};
    m_scores = scores.size() == n ? std::move(scores) : std::vector<float>{};
    if (m_weights.size() != n) {   // never index out of bounds, even after a caller's mistake
        m_queries.clear();
        m_keys.clear();
        m_weights.clear();
    }
    endResetModel();
}

void AttentionMatrixModel::clear()
{
    beginResetModel();
    m_queries.clear();
    m_keys.clear();
    m_weights.clear();
    m_masked.clear();
    m_scores.clear();
    endResetModel();
}

int AttentionMatrixModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_queries.size());
}

int AttentionMatrixModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_keys.size());
}

bool AttentionMatrixModel::isMasked(int row, int column) const
{
    if (m_masked.empty() || row < 0 || row >= rowCount() || column < 0 || column >= columnCount()) return false;
    return m_masked[std::size_t(row) * std::size_t(m_keys.size()) + std::size_t(column)] != 0;
}

QVariant AttentionMatrixModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const std::size_t ij = std::size_t(index.row()) * std::size_t(m_keys.size()) + std::size_t(index.column());
    const bool masked = isMasked(index.row(), index.column());
    const double w = m_weights[ij];
    switch (role) {
    case Qt::DisplayRole:
        return masked ? tr("masked") : QString::number(w, 'f', 4);
    case Qt::ToolTipRole: {
        QString text = tr("query %1 “%2” → key %3 “%4”")
                           .arg(index.row())
                           .arg(m_queries[index.row()])
                           .arg(index.column())
                           .arg(m_keys[index.column()]);
        if (masked) return text + QLatin1Char('\n') + tr("masked: weight 0");
        text += QLatin1Char('\n') + tr("weight %1").arg(w, 0, 'f', 6);
        if (!m_scores.empty()) text += QLatin1Char('\n') + tr("score %1").arg(double(m_scores[ij]), 0, 'f', 4);
        return text;
    }
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case WeightRole:
        return w;
    case MaskedRole:
        return masked;
    case ScoreRole:
        return m_scores.empty() ? QVariant() : QVariant(double(m_scores[ij]));
    default:
        return {};
    }
}

QVariant AttentionMatrixModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    const QStringList &labels = orientation == Qt::Vertical ? m_queries : m_keys;
    if (section < 0 || section >= labels.size()) return {};
    switch (role) {
    case Qt::DisplayRole:
        return labels[section];
    case Qt::ToolTipRole:
        return (orientation == Qt::Vertical ? tr("query %1: “%2”") : tr("key %1: “%2”")).arg(section).arg(labels[section]);
    default:
        return {};
    }
}

QHash<int, QByteArray> AttentionMatrixModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractTableModel::roleNames();
    names.insert(WeightRole, "weight");
    names.insert(MaskedRole, "masked");
    names.insert(ScoreRole, "score");
    return names;
}

} // namespace attnui
