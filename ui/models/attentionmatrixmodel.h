// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One head's attention weights as a table: rows are queries, columns are keys, headers are the tokens.
// Masked cells (the mask forbids the pair) report MaskedRole = true and show "masked" instead of 0.

#include <QAbstractTableModel>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace attnui {

class AttentionMatrixModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role {
        WeightRole = Qt::UserRole + 1,   // double: the weight (0 for masked cells)
        MaskedRole,                      // bool
        ScoreRole,                       // double: pre-softmax score, or an invalid QVariant when unknown
    };

    explicit AttentionMatrixModel(QObject *parent = nullptr);

    // weights, masked, scores: row-major [queries, keys]; masked and scores may be empty.
    void setMatrix(const QStringList &queries, const QStringList &keys, std::vector<float> weights,
                   std::vector<std::uint8_t> masked = {}, std::vector<float> scores = {});
    void clear();

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    bool isMasked(int row, int column) const;

private:
    QStringList m_queries, m_keys;
    std::vector<float> m_weights;
    std::vector<std::uint8_t> m_masked;
    std::vector<float> m_scores;
};

} // namespace attnui
