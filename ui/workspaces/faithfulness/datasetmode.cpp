// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/faithfulness/datasetmode.h"

#include "kit/dataexport.h"
#include "kit/subject.h"
#include "plots/boxplot.h"
#include "workspaces/faithfulness/datasetcontrols.h"

#include <QComboBox>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>

namespace attnui {

namespace {

QString betterText(const std::string &better)
{
    if (better == "higher") return QObject::tr("higher is better");
    if (better == "lower") return QObject::tr("lower is better");
    return QObject::tr("no better direction");
}

QTableView *makeTable(QAbstractItemModel *model)
{
    auto *t = new QTableView;
    t->setModel(model);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setAlternatingRowColors(true);
    t->verticalHeader()->hide();
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
    t->horizontalHeader()->setHighlightSections(false);
    return t;
}

} // namespace

DatasetMode::DatasetMode(Subject *subject, std::function<attn::DatasetSettings()> settings, QObject *parent)
    : QObject(parent), m_subject(subject),
      m_controls(new DatasetControls(subject, std::move(settings),
                                     {.resultsFile = true,
                                      .idleText = tr("The suite set up below runs on every example; each has its own seed "
                                                     "derived from the run seed and its index.")})),
      m_examples(new DatasetExampleModel(this)), m_summary(new DatasetSummaryModel(this)), m_proxy(new QSortFilterProxyModel(this))
{
    m_proxy->setSourceModel(m_examples);
    m_proxy->setSortRole(Qt::UserRole);
    buildView();
    connect(m_controls, &DatasetControls::resultReady, this, [this] {
        refresh();
        emit figureChanged();
        emit resultShown();
    });
}

DatasetMode::~DatasetMode() = default;

QWidget *DatasetMode::controls() const { return m_controls; }
QWidget *DatasetMode::view() const { return m_view; }
QWidget *DatasetMode::figure() const { return snapshot() ? m_figure : nullptr; }
EngineRunner *DatasetMode::runner() const { return m_controls->runner(); }
std::shared_ptr<const DatasetSnapshot> DatasetMode::snapshot() const { return m_controls->snapshot(); }

void DatasetMode::buildView()
{
    m_view = new QWidget;
    auto *outer = new QVBoxLayout(m_view);
    outer->setContentsMargins(0, 0, 0, 0);
    auto *split = new QSplitter(Qt::Vertical);
    outer->addWidget(split);

    m_figure = new QWidget;
    auto *fig = new QVBoxLayout(m_figure);
    fig->setContentsMargins(0, 0, 0, 0);
    auto *metricRow = new QHBoxLayout;
    metricRow->addWidget(new QLabel(tr("Metric:")));
    m_metric = new QComboBox;
    m_metric->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    metricRow->addWidget(m_metric);
    m_metricNote = new QLabel;
    metricRow->addWidget(m_metricNote, 1);
    fig->addLayout(metricRow);
    m_box = new BoxPlot;
    m_box->setMinimumHeight(220);
    fig->addWidget(m_box, 3);
    m_summaryTable = makeTable(m_summary);
    m_summaryTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_summaryTable->setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    fig->addWidget(m_summaryTable);
    split->addWidget(m_figure);

    auto *examples = new QGroupBox(tr("Per example (click a header to sort; double-click or Enter opens the example)"));
    auto *exLayout = new QVBoxLayout(examples);
    exLayout->setContentsMargins(4, 4, 4, 4);
    m_exampleTable = makeTable(m_proxy);
    m_exampleTable->setSortingEnabled(true);
    m_exampleTable->sortByColumn(0, Qt::AscendingOrder);
    exLayout->addWidget(m_exampleTable);
    split->addWidget(examples);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);

    connect(m_metric, &QComboBox::activated, this, [this] {
        m_wantedMetric = m_metric->currentData().toString().toStdString();
        refresh();
        emit figureChanged();
    });
    connect(m_exampleTable, &QTableView::activated, this, &DatasetMode::openExampleAt);
}

void DatasetMode::setMetric(const std::string &metric)
{
    m_wantedMetric = metric;
    refresh();
}

std::string DatasetMode::metric() const { return m_examples->metric(); }

void DatasetMode::refresh()
{
    const auto snap = snapshot();
    {
        const QSignalBlocker block(m_metric);
        m_metric->clear();
        if (snap)
            for (const SummaryMetric &m : snap->summary)
                if (m.group != "heads") m_metric->addItem(datasetMetricName(m.metric), QString::fromStdString(m.metric));
        const int i = m_metric->findData(QString::fromStdString(m_wantedMetric));
        m_metric->setCurrentIndex(i >= 0 ? i : 0);
    }
    const std::string metric = m_metric->currentData().toString().toStdString();
    const SummaryMetric *m = snap ? snap->metric(metric) : nullptr;
    m_examples->setSnapshot(snap, metric);
    m_summary->setMetric(m);
    // The summary shows every row (the random baseline last) without scrolling; the box plot takes the rest.
    m_summaryTable->setFixedHeight(m_summaryTable->horizontalHeader()->sizeHint().height() +
                                   m_summary->rowCount() * m_summaryTable->verticalHeader()->defaultSectionSize() +
                                   2 * m_summaryTable->frameWidth() + 2);
    m_exampleTable->resizeColumnsToContents();
    QList<BoxSeries> boxes;
    if (m) {
        std::vector<SummaryStat> stats = m->methods;
        if (m->random) stats.push_back(*m->random);
        for (const SummaryStat &s : stats) {
            BoxSeries b;
            b.name = datasetMethodName(s.method);
            b.baseline = s.method == "random";
            for (int row = 0; row < m_examples->rowCount(); ++row) b.values.push_back(m_examples->value(row, s.method));
            b.mean = s.mean;
            b.ciLo = s.ciLo;
            b.ciHi = s.ciHi;
            boxes << b;
        }
        m_metricNote->setText(tr("%1 · %2 · over %3 examples").arg(betterText(m->better), QString::fromStdString(m->unit))
                                  .arg(snap->records.size()));
        m_box->setTitle(tr("%1 per example (%2)").arg(datasetMetricName(metric), betterText(m->better)));
        m_box->setValueLabel(QString::fromStdString(m->unit));
    } else {
        m_metricNote->clear();
        m_box->setTitle(QString());
    }
    m_box->setBoxes(boxes);
}

void DatasetMode::openExampleAt(const QModelIndex &proxyIndex)
{
    const auto snap = snapshot();
    if (!snap || !proxyIndex.isValid()) return;
    const std::int64_t index = m_examples->exampleIndex(m_proxy->mapToSource(proxyIndex).row());
    const attn::PreparedExample *p = snap->example(index);
    if (!p) return;
    QList<qint64> gold;
    for (std::size_t t = 0; t < p->gold.size(); ++t)
        if (p->gold[t]) gold << qint64(t);
    emit exampleRequested(QString::fromStdString(p->example->text), gold);
}

QString DatasetMode::caption() const
{
    const auto snap = snapshot();
    if (!snap) return {};
    const attn::DatasetSettings &s = snap->settings;
    const QString source = QString::fromStdString(snap->dataset->kind == "sample" ? "bundled rationale set"
                                                                                          : QFileInfo(QString::fromStdString(snap->dataset->path)).fileName().toStdString());
    return tr("%1 · %2, %3 of %4 examples%5 · run seed %6, %7 random orders · box: quartiles, whiskers 1.5 IQR; "
              "◆ mean with bootstrap 95 % CI")
        .arg(m_subject->modelSpec(), source)
        .arg(snap->records.size()).arg(snap->dataset->examples.size())
        .arg(snap->cancelled ? tr(" (cancelled)") : QString())
        .arg(s.seed).arg(s.faithfulness.randomSeeds);
}

QStringList DatasetMode::dataFormats() const
{
    const auto snap = snapshot();
    if (!snap) return {};
    return {tr("CSV, the per-example table as shown (*.csv)"), tr("JSON, the per-example table as shown (*.json)"),
            tr("JSON, the summary as attnscope-cli --summary writes it (*.summary.json)"),
            tr("JSONL, the results file as attnscope-cli --out writes it (*.jsonl)")};
}

bool DatasetMode::exportData(const QString &path, QString *error) const
{
    const auto snap = snapshot();
    if (!snap) {
        if (error) *error = tr("Nothing to export: run a dataset first.");
        return false;
    }
    const QString lower = path.toLower();
    if (lower.endsWith(QLatin1String(".summary.json"))) return writeTextFile(snap->summaryJson, path, error);
    if (lower.endsWith(QLatin1String(".jsonl"))) return writeTextFile(snap->resultsJsonl(), path, error);
    if (lower.endsWith(QLatin1String(".csv"))) return writeTextFile(m_examples->tableCsv().toStdString(), path, error);
    if (lower.endsWith(QLatin1String(".json"))) {
        QJsonObject doc{{QStringLiteral("format"), QStringLiteral("attnscope-dataset-table")},
                        {QStringLiteral("metric"), QString::fromStdString(m_examples->metric())},
                        {QStringLiteral("examples"), m_examples->tableJson()}};
        return writeTextFile(QJsonDocument(doc).toJson().toStdString(), path, error);
    }
    if (error) *error = tr("%1: choose .csv, .json, .summary.json or .jsonl").arg(path);
    return false;
}

} // namespace attnui
