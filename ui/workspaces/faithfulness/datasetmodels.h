// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Dataset mode's tables: one line per example (its index, id, gold label, prediction, target score and the
// chosen metric for every method beside random), and the summary of that metric (mean with its bootstrap
// interval, median, sd, and the Wilcoxon test against random with its Holm-adjusted p and rank-biserial effect
// size). Display text in DisplayRole, the raw number in Qt::UserRole (what sorting uses; NaN where undefined).

#include "workspaces/faithfulness/datasetrun.h"

#include <QAbstractTableModel>
#include <QJsonArray>

#include <memory>

namespace attnui {

// Method names as the tables, box plot and legend show them ("rollout" → "Rollout").
QString datasetMethodName(const std::string &method);
QString datasetMetricName(const std::string &metric);   // "aopc_comprehensiveness" → "AOPC comprehensiveness"

class DatasetExampleModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int kFixedColumns = 6;   // #, id, label, predicted, target score, tokens

    using QAbstractTableModel::QAbstractTableModel;
    void setSnapshot(std::shared_ptr<const DatasetSnapshot> snapshot, const std::string &metric);
    const std::string &metric() const { return m_metric; }
    const std::vector<std::string> &methods() const { return m_methods; }   // the metric columns, random last
    std::int64_t exampleIndex(int row) const;  // the record's dataset index, −1 outside
    double value(int row, const std::string &method) const;   // NaN when the example has none

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The table as shown (every column, rows in record order): JSON rows keyed by column, and CSV.
    QJsonArray tableJson() const;
    QString tableCsv() const;

private:
    QString labelName(std::int64_t cls) const;
    std::shared_ptr<const DatasetSnapshot> m_snapshot;
    std::string m_metric;
    std::vector<std::string> m_methods;
    std::vector<std::vector<double>> m_values;   // [row][method]
};

class DatasetSummaryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Method, N, Mean, Ci, Median, Sd, Difference, Test, P, PHolm, RankBiserial, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;
    void setMetric(const SummaryMetric *metric);   // null: empty
    const SummaryStat *stat(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<SummaryStat> m_rows;   // methods, then random
    std::string m_better;
};

} // namespace attnui
