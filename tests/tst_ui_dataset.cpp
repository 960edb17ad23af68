// SPDX-License-Identifier: GPL-3.0-or-later
// Faithfulness ▸ Dataset offscreen, on sample:rationale-bert and a small JSONL: the dataset runner delivers
// (started, progress up to 1, finished) and its records and summary equal the engine's own run of the same
// settings (the calls attnscope-cli makes) and the results file it writes read back; Cancel keeps the examples
// finished by then; the tables are well-behaved Qt models (QAbstractItemModelTester), sort by number and show
// the records' values; an example opens in the single-example view with its rationale; box statistics against
// hand-computed quartiles; every export writes what it says.

#include "kit/figureactions.h"
#include "kit/subject.h"
#include "plots/boxplot.h"
#include "runner/enginerunner.h"
#include "shell/mainwindow.h"
#include "plots/heatmapplot.h"
#include "workspaces/explore/datasetheadspanel.h"
#include "workspaces/explore/exploreview.h"
#include "workspaces/faithfulness/datasetcontrols.h"
#include "workspaces/faithfulness/datasetmode.h"
#include "workspaces/faithfulness/faithfulnessrun.h"
#include "workspaces/faithfulness/faithfulnessview.h"

#include <attnscope/dataset.h>
#include <attnscope/textmodel.h>

#include <QAbstractItemModelTester>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace attnui;

namespace {

TextModelPtr openModel(const char *spec)
{
    auto m = attn::TextModel::open(spec);
    return m ? std::make_shared<const attn::TextModel>(std::move(m.value())) : nullptr;
}

// Three examples: a character-span rationale, a token rationale with a string id, one without a rationale.
const char *kJsonl =
    "{\"text\": \"the lousy actor found the dog\", \"label\": \"negative\", \"rationale\": [[4, 9]]}\n"
    "{\"text\": \"their seat looked beautiful\", \"label\": 1, \"rationale_tokens\": [4], \"id\": \"b\"}\n"
    "{\"text\": \"it is a cast and then we called this theater\", \"label\": 0, \"id\": 17}\n";

// A short suite: every importance, few random orders, no head tests or sanity checks.
const QJsonObject kQuick{{"random_seeds", 2}, {"permutation_test", false}, {"uniform_test", false},
                         {"head_ablation", false}, {"sanity_check", false}};

std::string withoutTiming(attn::ExampleRecord r)
{
    r.seconds = 0.0;
    r.threads = 0;
    return attn::exampleRecordLine(r);
}

QJsonObject withoutTimingObject(const std::string &summary)
{
    QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(summary)).object();
    o.remove("timing");
    return o;
}

QString writeFile(const QTemporaryDir &dir, const char *name, const char *text)
{
    const QString path = dir.filePath(QString::fromLatin1(name));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
    f.write(text);
    return path;
}

} // namespace

class TestUiDataset : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void boxStatsKnownAnswers_data();
    void boxStatsKnownAnswers();
    void runMatchesEngineAndResultsFile();
    void cancelKeepsFinishedExamples();
    void cancelBeforeStartIsCancelled();
    void badDatasetIsReported();
    void headStatisticsOverADataset();
    void screenshots();

private:
    TextModelPtr m_bert;
    QTemporaryDir m_dir;
};

void TestUiDataset::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    m_bert = openModel("sample:rationale-bert");
    if (!m_bert) QSKIP("sample:rationale-bert not found");
    QVERIFY(m_dir.isValid());
}

void TestUiDataset::boxStatsKnownAnswers_data()
{
    QTest::addColumn<std::vector<double>>("values");
    QTest::addColumn<std::vector<double>>("expected");   // n, q1, median, q3, low whisker, high whisker, outliers...
    const double nan = std::nan("");
    // NumPy's linear percentiles by hand: h = (n − 1)·q/100.
    QTest::newRow("n=1") << std::vector<double>{0.5} << std::vector<double>{1, 0.5, 0.5, 0.5, 0.5, 0.5};
    QTest::newRow("n=4") << std::vector<double>{4, 1, 3, 2} << std::vector<double>{4, 1.75, 2.5, 3.25, 1, 4};
    QTest::newRow("outlier") << std::vector<double>{1, 2, 3, 4, 100} << std::vector<double>{5, 2, 3, 4, 1, 4, 100};
    QTest::newRow("low outlier, NaN skipped") << std::vector<double>{-50, 10, nan, 11, 12, 13}
                                              << std::vector<double>{5, 10, 11, 12, 10, 13, -50};
    QTest::newRow("empty") << std::vector<double>{nan} << std::vector<double>{0, 0, 0, 0, 0, 0};
}

void TestUiDataset::boxStatsKnownAnswers()
{
    QFETCH(std::vector<double>, values);
    QFETCH(std::vector<double>, expected);
    const BoxStats s = computeBoxStats(values);
    QCOMPARE(s.n, int(expected[0]));
    QCOMPARE(s.q1, expected[1]);
    QCOMPARE(s.median, expected[2]);
    QCOMPARE(s.q3, expected[3]);
    QCOMPARE(s.lowWhisker, expected[4]);
    QCOMPARE(s.highWhisker, expected[5]);
    QCOMPARE(s.outliers, std::vector<double>(expected.begin() + 6, expected.end()));
}

void TestUiDataset::runMatchesEngineAndResultsFile()
{
    const QString data = writeFile(m_dir, "small.jsonl", kJsonl);
    const QString results = m_dir.filePath("gui-results.jsonl");
    Subject subject;
    subject.setModel(m_bert, QStringLiteral("sample:rationale-bert"));
    FaithfulnessView view(&subject);
    QString error;
    QVERIFY2(view.restoreSessionState(kQuick, &error), qPrintable(error));
    view.setDatasetMode(true);
    QVERIFY(view.isDatasetMode());
    DatasetMode *mode = view.datasetMode();
    mode->datasetControls()->setDataset(data);
    mode->datasetControls()->setResultsFile(results, false);

    QSignalSpy started(mode->runner(), &EngineRunner::started);
    QSignalSpy progress(mode->runner(), &EngineRunner::progress);
    QSignalSpy finished(mode->runner(), &EngineRunner::finished);
    QSignalSpy failed(mode->runner(), &EngineRunner::failed);
    QSignalSpy shown(&view, &Workspace::resultShown);
    mode->datasetControls()->run();
    QVERIFY(mode->runner()->waitForIdle(300000));
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QCOMPARE(started.size(), 1);
    QCOMPARE(finished.size(), 1);
    QCOMPARE(shown.size(), 1);
    QVERIFY(!progress.isEmpty());
    double last = -1;
    for (const QList<QVariant> &p : progress) {
        QVERIFY(p.first().toDouble() >= last);
        last = p.first().toDouble();
    }
    QCOMPARE(last, 1.0);
    const auto snap = mode->snapshot();
    QVERIFY(snap);
    QVERIFY(!snap->cancelled);
    QCOMPARE(snap->records.size(), std::size_t(3));
    QVERIFY2(mode->datasetControls()->statusText().contains("3 examples in"), qPrintable(mode->datasetControls()->statusText()));

    // The engine's own run with the same settings (what attnscope-cli faithfulness --dataset calls).
    const attn::DatasetSettings s = view.datasetSettings();
    auto dataset = attn::openDataset(data.toStdString(), modelFolder("sample:rationale-bert").toStdString());
    QVERIFY(dataset);
    auto prepared = attn::prepareDataset(*m_bert, *dataset, s);
    QVERIFY(prepared);
    std::vector<attn::ExampleRecord> engine;
    QVERIFY(attn::runDataset(*m_bert, *prepared, s, {}, [&](const attn::ExampleRecord &r) { engine.push_back(r); return attn::Status::ok(); }));
    QCOMPARE(engine.size(), snap->records.size());
    for (std::size_t i = 0; i < engine.size(); ++i) QCOMPARE(withoutTiming(snap->records[i]), withoutTiming(engine[i]));
    QCOMPARE(snap->header, attn::datasetResultsHeader(*m_bert, *dataset, s));
    const auto engineSummary = attn::datasetSummaryJson(snap->header, engine, {-1.0, 1});
    QVERIFY(engineSummary);
    QCOMPARE(withoutTimingObject(snap->summaryJson), withoutTimingObject(*engineSummary));
    // The results file the GUI wrote reads back to the same summary (as `attnscope-cli --summary` computes it).
    auto file = attn::readResultsFile(results.toStdString());
    QVERIFY(file);
    QCOMPARE(file->header, snap->header);
    const auto fileSummary = attn::datasetSummaryJson(file->header, file->records, {-1.0, 1});
    QVERIFY(fileSummary);
    QCOMPARE(withoutTimingObject(*fileSummary), withoutTimingObject(snap->summaryJson));

    // The tables: well-behaved models whose cells are the records' values and the summary's numbers.
    QAbstractItemModelTester t1(mode->exampleModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(mode->summaryModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t3(mode->exampleProxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    mode->setMetric("token_f1");
    QCOMPARE(mode->metric(), std::string("token_f1"));
    DatasetExampleModel *ex = mode->exampleModel();
    QCOMPARE(ex->rowCount(), 3);
    const std::vector<std::string> &methods = ex->methods();
    QCOMPARE(methods.back(), std::string("random"));
    QVERIFY(std::find(methods.begin(), methods.end(), "rollout") != methods.end());
    for (int row = 0; row < 3; ++row)
        for (const attn::MetricValue &v : engine[std::size_t(row)].metrics)
            if (v.metric == "token_f1") {
                const double shown = ex->value(row, v.method);
                QVERIFY2(std::isnan(v.value) ? std::isnan(shown) : shown == v.value, v.method.c_str());
            }
    // The third example has no rationale: its plausibility is undefined, shown as a dash.
    QVERIFY(std::isnan(ex->value(2, "rollout")));
    QCOMPARE(ex->data(ex->index(2, DatasetExampleModel::kFixedColumns)).toString(), QStringLiteral("—"));
    const QJsonObject doc = QJsonDocument::fromJson(QByteArray::fromStdString(snap->summaryJson)).object();
    QJsonObject tokenF1;
    for (const QJsonValue &m : doc["metrics"].toArray())
        if (m["metric"].toString() == "token_f1") tokenF1 = m.toObject();
    DatasetSummaryModel *sm = mode->summaryModel();
    QCOMPARE(sm->rowCount(), tokenF1["methods"].toArray().size() + 1);
    for (int row = 0; row < sm->rowCount() - 1; ++row) {
        const QJsonObject m = tokenF1["methods"].toArray()[row].toObject();
        QCOMPARE(sm->stat(row)->method, m["method"].toString().toStdString());
        QCOMPARE(sm->data(sm->index(row, DatasetSummaryModel::Mean), Qt::UserRole).toDouble(), m["mean"].toDouble());
        QCOMPARE(sm->stat(row)->ciHi, m["ci95"].toArray()[1].toDouble());
        const QJsonObject t = tokenF1["tests"].toArray()[row].toObject();
        QCOMPARE(sm->stat(row)->pHolm, t["p_holm"].toDouble());
        QCOMPARE(sm->stat(row)->rankBiserial, t["rank_biserial"].toDouble());
    }
    QCOMPARE(sm->stat(sm->rowCount() - 1)->method, std::string("random"));
    QCOMPARE(sm->stat(sm->rowCount() - 1)->mean, tokenF1["random"].toObject()["mean"].toDouble());
    // The box plot: one box per method and random, over the examples that have a value.
    QCOMPARE(mode->boxPlot()->boxes().size(), sm->rowCount());
    QCOMPARE(mode->boxPlot()->stats().front().n, 2);
    QVERIFY(mode->boxPlot()->boxes().back().baseline);

    // Sorting by a metric column orders by the number (undefined values together), not the text.
    mode->setMetric("aopc_comprehensiveness");
    const int column = DatasetExampleModel::kFixedColumns;
    mode->exampleTable()->sortByColumn(column, Qt::DescendingOrder);
    QSortFilterProxyModel *proxy = mode->exampleProxy();
    for (int row = 1; row < proxy->rowCount(); ++row)
        QVERIFY(proxy->index(row - 1, column).data(Qt::UserRole).toDouble() >= proxy->index(row, column).data(Qt::UserRole).toDouble());

    // Exports: the table as CSV and JSON, the summary and the results file as the CLI writes them, the figure.
    QVERIFY(view.dataFormats().size() == 4);
    QVERIFY2(view.exportData(m_dir.filePath("t.csv"), &error), qPrintable(error));
    QFile csv(m_dir.filePath("t.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 4);
    QVERIFY(lines[0].startsWith("index,id,label,predicted,target_score,tokens,aopc_comprehensiveness/"));
    QVERIFY2(view.exportData(m_dir.filePath("t.json"), &error), qPrintable(error));
    QFile tj(m_dir.filePath("t.json"));
    QVERIFY(tj.open(QIODevice::ReadOnly));
    const QJsonObject table = QJsonDocument::fromJson(tj.readAll()).object();
    QCOMPARE(table["examples"].toArray().size(), 3);
    QCOMPARE(table["examples"].toArray()[1].toObject()["id"].toString(), QStringLiteral("b"));
    QVERIFY2(view.exportData(m_dir.filePath("s.summary.json"), &error), qPrintable(error));
    QFile sj(m_dir.filePath("s.summary.json"));
    QVERIFY(sj.open(QIODevice::ReadOnly));
    QCOMPARE(sj.readAll().toStdString(), snap->summaryJson);
    QVERIFY2(view.exportData(m_dir.filePath("r.jsonl"), &error), qPrintable(error));
    auto exported = attn::readResultsFile(m_dir.filePath("r.jsonl").toStdString());
    QVERIFY(exported);
    QCOMPARE(exported->records.size(), std::size_t(3));
    QVERIFY(!view.exportData(m_dir.filePath("t.txt"), &error));
    QVERIFY(view.figureCaption().contains("small.jsonl, 3 of 3 examples"));
    for (const char *name : {"f.png", "f.svg", "f.pdf"}) {
        QVERIFY2(exportWorkspaceFigure(&view, m_dir.filePath(name), &error), qPrintable(error));
        QVERIFY(QFileInfo(m_dir.filePath(name)).size() > 0);
    }
    QVERIFY(!QImage(m_dir.filePath("f.png")).isNull());

    // Double-click (activated) on an example: the single-example view with its text and rationale tokens.
    QTableView *table2 = mode->exampleTable();
    table2->sortByColumn(0, Qt::AscendingOrder);
    emit table2->activated(proxy->index(0, 1));
    QVERIFY(!view.isDatasetMode());
    QCOMPARE(subject.text(), QStringLiteral("the lousy actor found the dog"));
    QCOMPARE(view.goldTokens(), engine[0].rationaleTokens);
    QVERIFY(!engine[0].rationaleTokens.empty());
    view.runner()->waitForIdle(120000);
}

void TestUiDataset::cancelKeepsFinishedExamples()
{
    const QString data = writeFile(m_dir, "cancel.jsonl", kJsonl);
    Subject subject;
    subject.setModel(m_bert, QStringLiteral("sample:rationale-bert"));
    FaithfulnessView view(&subject);
    QString error;
    QVERIFY2(view.restoreSessionState(kQuick, &error), qPrintable(error));
    view.setDatasetMode(true);
    DatasetMode *mode = view.datasetMode();
    EngineRunner *runner = mode->runner();
    QSignalSpy finished(runner, &EngineRunner::finished);
    QSignalSpy cancelled(runner, &EngineRunner::cancelled);
    // Cancel as soon as the first example has finished (from the job's own callback: no race with the clock).
    DatasetRequest r;
    r.model = m_bert;
    r.datasetSpec = data;
    r.settings = view.datasetSettings();
    r.onExample = [runner](const attn::DatasetProgress &p) {
        if (p.done == 1) runner->cancel();
    };
    runner->submit([r](const JobContext &ctx) { return runDatasetJob(r, ctx); });
    QVERIFY(runner->waitForIdle(300000));
    QCOMPARE(finished.size(), 1);
    QCOMPARE(cancelled.size(), 0);
    const auto snap = mode->snapshot();
    QVERIFY(snap && snap->cancelled);
    QCOMPARE(snap->records.size(), std::size_t(1));
    QCOMPARE(snap->total, std::int64_t(3));
    QCOMPARE(mode->exampleModel()->rowCount(), 1);
    QVERIFY2(mode->datasetControls()->statusText().contains("after 1 of 3 examples"), qPrintable(mode->datasetControls()->statusText()));
    QVERIFY(view.figureCaption().contains("(cancelled)"));
}

void TestUiDataset::cancelBeforeStartIsCancelled()
{
    const QString data = writeFile(m_dir, "early.jsonl", kJsonl);
    Subject subject;
    subject.setModel(m_bert, QStringLiteral("sample:rationale-bert"));
    FaithfulnessView view(&subject);
    view.setDatasetMode(true);
    DatasetMode *mode = view.datasetMode();
    mode->datasetControls()->setDataset(data);
    QSignalSpy cancelled(mode->runner(), &EngineRunner::cancelled);
    QSignalSpy finished(mode->runner(), &EngineRunner::finished);
    mode->datasetControls()->run();
    mode->datasetControls()->cancel();   // before the worker picked it up, or before its first example finished: nothing to show
    QVERIFY(mode->runner()->waitForIdle(300000));
    QCOMPARE(cancelled.size() + finished.size(), 1);
    if (!cancelled.isEmpty()) {
        QVERIFY(!mode->snapshot());
        QVERIFY(view.dataFormats().isEmpty());
        QVERIFY(!view.figureWidget());
    } else {
        QVERIFY(mode->snapshot()->cancelled);   // the worker was faster than the cancel: what finished is kept
    }
}

void TestUiDataset::badDatasetIsReported()
{
    const QString data = writeFile(m_dir, "bad.jsonl", "{\"text\": \"fine\"}\n{\"label\": 1}\n");
    Subject subject;
    subject.setModel(m_bert, QStringLiteral("sample:rationale-bert"));
    FaithfulnessView view(&subject);
    view.setDatasetMode(true);
    DatasetMode *mode = view.datasetMode();
    mode->datasetControls()->setDataset(data);
    QSignalSpy failed(mode->runner(), &EngineRunner::failed);
    mode->datasetControls()->run();
    QVERIFY(mode->runner()->waitForIdle(60000));
    QCOMPARE(failed.size(), 1);
    QVERIFY2(mode->datasetControls()->statusText().contains("bad.jsonl:2") && mode->datasetControls()->statusText().contains("'text'"), qPrintable(mode->datasetControls()->statusText()));
}

void TestUiDataset::headStatisticsOverADataset()
{
    Subject subject;
    subject.setModel(m_bert, QStringLiteral("sample:rationale-bert"));
    DatasetHeadsPanel panel(&subject);
    DatasetControls *controls = panel.datasetControls();
    controls->setDataset(QStringLiteral("sample"));
    controls->setLimit(4);
    QSignalSpy finished(controls->runner(), &EngineRunner::finished);
    controls->run();
    QVERIFY(controls->runner()->waitForIdle(120000));
    QCOMPARE(finished.size(), 1);
    QVERIFY2(controls->snapshot(), qPrintable(controls->statusText()));
    QCOMPARE(controls->snapshot()->records.size(), std::size_t(4));

    // The engine's `run` analysis on the same four examples, summarized.
    attn::DatasetSettings s;
    s.analysis = attn::DatasetAnalysis::Run;
    auto dataset = attn::openDataset("sample", modelFolder("sample:rationale-bert").toStdString());
    QVERIFY(dataset);
    dataset->examples.resize(4);
    auto prepared = attn::prepareDataset(*m_bert, *dataset, s);
    QVERIFY(prepared);
    std::vector<attn::ExampleRecord> engine;
    QVERIFY(attn::runDataset(*m_bert, *prepared, s, {}, [&](const attn::ExampleRecord &r) { engine.push_back(r); return attn::Status::ok(); }));
    const auto summary = attn::datasetSummaryJson(controls->snapshot()->header, engine, {-1.0, 1});
    QVERIFY(summary);
    const std::vector<SummaryMetric> expected = parseSummary(*summary);
    const attn::ModelConfig &c = m_bert->model().config();
    for (const char *metric : {"previous_token", "first_token", "entropy"}) {
        panel.setStatistic(metric);
        const SummaryMetric *m = nullptr;
        for (const SummaryMetric &e : expected)
            if (e.metric == metric) m = &e;
        QVERIFY(m);
        QCOMPARE(int(m->methods.size()), int(c.layers * c.heads));
        HeatmapPlot *plot = panel.plot();
        QCOMPARE(plot->data().rows, int(c.layers));
        QCOMPARE(plot->data().cols, int(c.heads));
        for (const SummaryStat &e : m->methods) {
            int layer = -1, head = -1;
            QVERIFY(std::sscanf(e.method.c_str(), "L%d H%d", &layer, &head) == 2);
            const SummaryStat *shown = panel.headStat(layer, head);
            QVERIFY(shown);
            QCOMPARE(shown->mean, e.mean);
            QCOMPARE(shown->ciLo, e.ciLo);
            QCOMPARE(shown->ciHi, e.ciHi);
            QCOMPARE(plot->data().values[std::size_t(layer * c.heads + head)], float(e.mean));
        }
        QVERIFY(panel.topHeadsText().contains("Highest means"));
    }
}

// Documentation screenshots (docs/screenshots/faithfulness-dataset*.png), not a test: only with
// ATTNSCOPE_SCREENSHOT_DIR set, run on a real display (xvfb-run -a -s "-screen 0 1600x1000x24", QT_QPA_PLATFORM=xcb).
// The bundled rationale set with the default suite; ATTNSCOPE_SCREENSHOT_EXAMPLES limits it (default: all 150).
void TestUiDataset::screenshots()
{
    const QString dir = qEnvironmentVariable("ATTNSCOPE_SCREENSHOT_DIR");
    if (dir.isEmpty()) QSKIP("ATTNSCOPE_SCREENSHOT_DIR is not set");
    const int limit = qEnvironmentVariableIntValue("ATTNSCOPE_SCREENSHOT_EXAMPLES");
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openModel(QStringLiteral("sample:rationale-bert"));
    QVERIFY(QTest::qWaitFor([&] { return w.explore()->currentModel() && w.explore()->currentModel()->spec() == "sample:rationale-bert"; }, 60000));
    QVERIFY(w.showWorkspace(QStringLiteral("faithfulness")));
    auto *view = w.findChild<FaithfulnessView *>();
    QVERIFY(view);
    view->setDatasetMode(true);
    DatasetMode *mode = view->datasetMode();
    mode->datasetControls()->setDataset(QStringLiteral("sample"));
    mode->datasetControls()->setLimit(limit);
    mode->datasetControls()->run();
    QVERIFY(QTest::qWaitFor([&] { return !mode->runner()->isBusy(); }, 3600000));
    QVERIFY2(mode->snapshot(), qPrintable(mode->datasetControls()->statusText()));
    mode->setMetric("aopc_comprehensiveness");
    for (const QSize size : {QSize(1600, 1000), QSize(1280, 720)}) {
        w.showNormal();
        w.resize(size);
        QTest::qWait(800);
        const QString name = size.width() == 1600 ? QStringLiteral("faithfulness-dataset.png") : QStringLiteral("faithfulness-dataset-1280.png");
        QVERIFY(w.grab().save(QDir(dir).filePath(name)));
    }
    mode->setMetric("token_f1");
    mode->exampleTable()->sortByColumn(DatasetExampleModel::kFixedColumns, Qt::AscendingOrder);
    w.resize(1600, 1000);
    QTest::qWait(800);
    QVERIFY(w.grab().save(QDir(dir).filePath(QStringLiteral("faithfulness-dataset-token-f1.png"))));

    // Explore ▸ Heads over a dataset, on the same examples.
    QVERIFY(w.showWorkspace(QStringLiteral("explore")));
    w.explore()->setCurrentTab(ExploreView::DatasetTab);
    DatasetHeadsPanel *heads = w.explore()->datasetHeadsPanel();
    heads->datasetControls()->setDataset(QStringLiteral("sample"));
    heads->datasetControls()->setLimit(limit);
    heads->datasetControls()->run();
    QVERIFY(QTest::qWaitFor([&] { return !heads->datasetControls()->runner()->isBusy(); }, 3600000));
    QVERIFY2(heads->datasetControls()->snapshot(), qPrintable(heads->datasetControls()->statusText()));
    heads->setStatistic("first_token");
    QTest::qWait(800);
    QVERIFY(w.grab().save(QDir(dir).filePath(QStringLiteral("explore-dataset-heads.png"))));
}

QTEST_MAIN(TestUiDataset)
#include "tst_ui_dataset.moc"
