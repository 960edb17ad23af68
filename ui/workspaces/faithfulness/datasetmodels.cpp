// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/faithfulness/datasetmodels.h"

#include <QJsonObject>

#include <cmath>
#include <limits>
#include <map>

namespace attnui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString number(double v, int digits = 3)
{
    if (std::isnan(v)) return QStringLiteral("—");
    const double a = std::abs(v);
    if (a != 0.0 && a < 1e-3) return QString::number(v, 'e', 2);
    return QString::number(v, 'f', digits);
}

QString pValue(double p)
{
    if (std::isnan(p)) return QStringLiteral("—");
    if (p < 1e-4) return QString::number(p, 'e', 1);
    return QString::number(p, 'f', 4);
}

QString csvField(const QString &s)
{
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) && !s.contains(QLatin1Char('\n'))) return s;
    return QLatin1Char('"') + QString(s).replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
}

} // namespace

QString datasetMethodName(const std::string &method)
{
    if (method == "head") return QObject::tr("head");
    if (method == "head_mean") return QObject::tr("head mean");
    if (method == "loo_deletion") return QObject::tr("LOO deletion");
    if (method == "loo_knockout") return QObject::tr("LOO knockout");
    if (method == "random") return QObject::tr("random");
    return QString::fromStdString(method);
}

QString datasetMetricName(const std::string &metric)
{
    static const std::map<std::string, const char *> names = {
        {"target_score", "target score"}, {"accuracy", "accuracy"},
        {"aopc_comprehensiveness", "AOPC comprehensiveness"}, {"aopc_sufficiency", "AOPC sufficiency"},
        {"auc_deletion", "deletion AUC"}, {"auc_insertion", "insertion AUC"},
        {"faithfulness_correlation", "faithfulness correlation"}, {"fraction_to_flip", "fraction of tokens to flip"},
        {"flip_rate", "flip rate"}, {"token_f1", "token F1 (plausibility)"}, {"iou_f1", "IOU-F1 (plausibility)"},
        {"auprc", "AUPRC (plausibility)"}, {"precision_at_k", "precision@k (plausibility)"},
        {"permutation_median_tvd", "permutation median TVD"}, {"uniform_tvd", "uniform-attention TVD"},
        {"zero_ablation_delta", "zero-ablation Δ"}, {"mean_ablation_delta", "mean-ablation Δ"},
        {"random_logit_spearman", "sanity: other-target Spearman"},
        {"randomization_head_spearman", "sanity: randomized-head Spearman"}};
    if (const auto it = names.find(metric); it != names.end()) return QObject::tr(it->second);
    for (const auto &[prefix, name] : {std::pair{"kendall_tau_b:", "Kendall τ-b vs |%1|"}, std::pair{"spearman:", "Spearman vs |%1|"},
                                       std::pair{"top_k_overlap:", "top-k overlap vs |%1|"}})
        if (metric.rfind(prefix, 0) == 0)
            return QObject::tr(name).arg(datasetMethodName(metric.substr(std::string(prefix).size())));
    return QString::fromStdString(metric);
}

// ---- per example ----

void DatasetExampleModel::setSnapshot(std::shared_ptr<const DatasetSnapshot> snapshot, const std::string &metric)
{
    beginResetModel();
    m_snapshot = std::move(snapshot);
    m_metric = metric;
    m_methods.clear();
    m_values.clear();
    if (m_snapshot) {
        if (const SummaryMetric *m = m_snapshot->metric(metric)) {
            for (const SummaryStat &s : m->methods) m_methods.push_back(s.method);
            if (m->random) m_methods.push_back("random");
        }
        for (const attn::ExampleRecord &r : m_snapshot->records) {
            std::vector<double> row(m_methods.size(), kNaN);
            for (const attn::MetricValue &v : r.metrics) {
                if (v.metric != metric) continue;
                for (std::size_t i = 0; i < m_methods.size(); ++i)
                    if (m_methods[i] == v.method) row[i] = v.value;
            }
            m_values.push_back(std::move(row));
        }
    }
    endResetModel();
}

std::int64_t DatasetExampleModel::exampleIndex(int row) const
{
    if (!m_snapshot || row < 0 || row >= rowCount()) return -1;
    return m_snapshot->records[std::size_t(row)].index;
}

double DatasetExampleModel::value(int row, const std::string &method) const
{
    if (row < 0 || row >= rowCount()) return kNaN;
    for (std::size_t i = 0; i < m_methods.size(); ++i)
        if (m_methods[i] == method) return m_values[std::size_t(row)][i];
    return kNaN;
}

int DatasetExampleModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_snapshot ? 0 : int(m_snapshot->records.size());
}

int DatasetExampleModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_snapshot ? 0 : kFixedColumns + int(m_methods.size());
}

QString DatasetExampleModel::labelName(std::int64_t cls) const
{
    if (cls < 0) return {};
    const auto &labels = m_snapshot->model->model().config().labels;
    if (m_snapshot->model->model().config().head == attn::ModelHead::Classification && cls < std::int64_t(labels.size()))
        return QString::fromStdString(labels[std::size_t(cls)]);
    return QString::number(cls);
}

QVariant DatasetExampleModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_snapshot || index.row() >= rowCount() || index.column() >= columnCount()) return {};
    const attn::ExampleRecord &r = m_snapshot->records[std::size_t(index.row())];
    const int c = index.column();
    if (role == Qt::ToolTipRole) {
        const attn::PreparedExample *p = m_snapshot->example(r.index);
        return p ? QString::fromStdString(p->example->text) + tr("\n(double-click or Enter: open it in the single-example view)") : QVariant();
    }
    if (role == Qt::TextAlignmentRole)
        return c == 1 || c == 2 || c == 3 ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::UserRole) return {};
    const bool raw = role == Qt::UserRole;
    switch (c) {
    case 0: return qlonglong(r.index);
    case 1: return r.idIsNumber && raw ? QVariant(QString::fromStdString(r.id).toLongLong()) : QVariant(QString::fromStdString(r.id));
    case 2: return r.label ? (raw ? QVariant(qlonglong(*r.label)) : QVariant(labelName(*r.label))) : QVariant();
    case 3: return raw ? QVariant(qlonglong(r.predicted)) : QVariant(labelName(r.predicted));
    case 4: return raw ? QVariant(r.targetScore) : QVariant(number(r.targetScore));
    case 5: return qlonglong(r.tokens);
    default: {
        const double v = m_values[std::size_t(index.row())][std::size_t(c - kFixedColumns)];
        return raw ? QVariant(v) : QVariant(number(v));
    }
    }
}

QVariant DatasetExampleModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case 0: return tr("#");
    case 1: return tr("id");
    case 2: return tr("label");
    case 3: return tr("predicted");
    case 4: return tr("target score");
    case 5: return tr("tokens");
    default:
        if (section - kFixedColumns < int(m_methods.size())) return datasetMethodName(m_methods[std::size_t(section - kFixedColumns)]);
        return {};
    }
}

QJsonArray DatasetExampleModel::tableJson() const
{
    static const char *keys[kFixedColumns] = {"index", "id", "label", "predicted", "target_score", "tokens"};
    QJsonArray rows;
    for (int row = 0; row < rowCount(); ++row) {
        const attn::ExampleRecord &r = m_snapshot->records[std::size_t(row)];
        QJsonObject o;
        o.insert(QLatin1String(keys[0]), qint64(r.index));
        o.insert(QLatin1String(keys[1]), r.idIsNumber ? QJsonValue(QString::fromStdString(r.id).toLongLong()) : QJsonValue(QString::fromStdString(r.id)));
        o.insert(QLatin1String(keys[2]), r.label ? QJsonValue(labelName(*r.label)) : QJsonValue());
        o.insert(QLatin1String(keys[3]), labelName(r.predicted));
        o.insert(QLatin1String(keys[4]), r.targetScore);
        o.insert(QLatin1String(keys[5]), qint64(r.tokens));
        QJsonObject values;
        for (std::size_t i = 0; i < m_methods.size(); ++i) {
            const double v = m_values[std::size_t(row)][i];
            values.insert(QString::fromStdString(m_methods[i]), std::isfinite(v) ? QJsonValue(v) : QJsonValue());
        }
        o.insert(QString::fromStdString(m_metric), values);
        rows.append(o);
    }
    return rows;
}

QString DatasetExampleModel::tableCsv() const
{
    QStringList header{QStringLiteral("index"), QStringLiteral("id"), QStringLiteral("label"), QStringLiteral("predicted"),
                       QStringLiteral("target_score"), QStringLiteral("tokens")};
    for (const std::string &m : m_methods) header << csvField(QString::fromStdString(m_metric + "/" + m));
    QString out = header.join(QLatin1Char(',')) + QLatin1Char('\n');
    for (int row = 0; row < rowCount(); ++row) {
        const attn::ExampleRecord &r = m_snapshot->records[std::size_t(row)];
        QStringList f{QString::number(r.index), csvField(QString::fromStdString(r.id)), csvField(r.label ? labelName(*r.label) : QString()),
                      csvField(labelName(r.predicted)), QString::number(r.targetScore, 'g', 17), QString::number(r.tokens)};
        for (double v : m_values[std::size_t(row)]) f << (std::isfinite(v) ? QString::number(v, 'g', 17) : QString());
        out += f.join(QLatin1Char(',')) + QLatin1Char('\n');
    }
    return out;
}

// ---- summary ----

void DatasetSummaryModel::setMetric(const SummaryMetric *metric)
{
    beginResetModel();
    m_rows.clear();
    m_better = metric ? metric->better : std::string();
    if (metric) {
        m_rows = metric->methods;
        if (metric->random) m_rows.push_back(*metric->random);
    }
    endResetModel();
}

const SummaryStat *DatasetSummaryModel::stat(int row) const
{
    return row >= 0 && row < int(m_rows.size()) ? &m_rows[std::size_t(row)] : nullptr;
}

int DatasetSummaryModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }
int DatasetSummaryModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DatasetSummaryModel::data(const QModelIndex &index, int role) const
{
    const SummaryStat *s = index.isValid() ? stat(index.row()) : nullptr;
    if (!s || index.column() >= ColumnCount) return {};
    if (role == Qt::TextAlignmentRole)
        return index.column() == Method || index.column() == Test ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                                  : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    const bool raw = role == Qt::UserRole;
    if (role != Qt::DisplayRole && !raw) return {};
    const bool t = s->tested;
    switch (index.column()) {
    case Method: return datasetMethodName(s->method);
    case N: return s->missing > 0 && !raw ? QVariant(tr("%1 (%2 undefined)").arg(s->n).arg(s->missing)) : QVariant(qlonglong(s->n));
    case Mean: return raw ? QVariant(s->mean) : QVariant(number(s->mean));
    case Ci: return raw ? QVariant(s->ciLo) : QVariant(tr("[%1, %2]").arg(number(s->ciLo), number(s->ciHi)));
    case Median: return raw ? QVariant(s->median) : QVariant(number(s->median));
    case Sd: return raw ? QVariant(s->sd) : QVariant(number(s->sd));
    case Difference: return !t ? QVariant() : raw ? QVariant(s->meanDifference) : QVariant(number(s->meanDifference));
    case Test: return t ? QVariant(QString::fromStdString(s->test)) : QVariant();
    case P: return !t ? QVariant() : raw ? QVariant(s->p) : QVariant(pValue(s->p));
    case PHolm: return !t ? QVariant() : raw ? QVariant(s->pHolm) : QVariant(pValue(s->pHolm));
    case RankBiserial:
        return !t ? QVariant() : raw ? QVariant(s->rankBiserial) : QVariant(QString::asprintf("%+.2f", s->rankBiserial));
    }
    return {};
}

QVariant DatasetSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal) return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Ci: return tr("Bootstrap 95 % percentile interval of the mean (10,000 resamples, seeded from the run seed)");
        case Difference: return tr("Mean over examples of method − random");
        case Test: return tr("Paired two-sided Wilcoxon signed-rank test against random: exact, or the normal approximation");
        case PHolm: return tr("Holm-adjusted over every test of the summary (all methods × metrics)");
        case RankBiserial: return tr("Matched-pairs rank-biserial correlation: +1 when the method is above random on every example");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case Method: return tr("method");
    case N: return tr("n");
    case Mean: return tr("mean");
    case Ci: return tr("95 % CI");
    case Median: return tr("median");
    case Sd: return tr("sd");
    case Difference: return tr("Δ vs random");
    case Test: return tr("Wilcoxon");
    case P: return tr("p");
    case PHolm: return tr("p (Holm)");
    case RankBiserial: return tr("rank-biserial");
    }
    return {};
}

} // namespace attnui
