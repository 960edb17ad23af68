// SPDX-License-Identifier: GPL-3.0-or-later
// EngineRunner: results arrive as snapshots, work runs off the GUI thread, stale results are dropped, errors and
// cancellation are reported; plus the Explore experiment that runs through it.

#include "workspaces/explore/experiment.h"
#include "workspaces/explore/modelrun.h"
#include "runner/enginerunner.h"
#include "runner/workpool.h"

#include <QThread>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

using namespace attnui;

namespace {

struct ValueSnapshot : Snapshot {
    int value = 0;
    QThread *thread = nullptr;
};

Job valueJob(int value, int sleepMs = 0)
{
    return [value, sleepMs](const JobContext &) -> attn::Result<std::shared_ptr<Snapshot>> {
        if (sleepMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(sleepMs));   // ignores cancel on purpose
        auto s = std::make_shared<ValueSnapshot>();
        s->value = value;
        s->thread = QThread::currentThread();
        return std::shared_ptr<Snapshot>(s);
    };
}

int valueOf(const QList<QVariant> &args)
{
    auto s = std::dynamic_pointer_cast<const ValueSnapshot>(args.at(0).value<SnapshotPtr>());
    return s ? s->value : -1;
}

ExperimentRequest smallRequest()
{
    ExperimentRequest r;
    r.text = QStringLiteral("the cat sat on the mat because the cat was tired");
    r.heads = 4;
    r.dModel = 32;
    r.backend = attn::Backend::Reference;
    return r;
}

} // namespace

class TestUiRunner : public QObject {
    Q_OBJECT
private slots:
    void finishedIsDelivered();
    void workRunsOffTheGuiThread();
    void workRunsAtBackgroundPriority();
    void staleResultsAreDropped();
    void failedOnBadInput_data();
    void failedOnBadInput();
    void cancelStopsTheJob();
    void progressIsForwarded();
    void experimentGivesCausalWeights();
    void everyBackendAgreesWithReference_data();
    void everyBackendAgreesWithReference();
    void sameWordSameEmbedding();
    void realModelRunsOffTheGuiThread();
    void staleModelResultsAreDropped();
    void modelErrorsNameTheProblem();
    void modelSnapshotMarksWindowsAndGroups();
    void modelRunsPairsAndTruncates();
    void openingAModelReportsItsLoad();
};

void TestUiRunner::finishedIsDelivered()
{
    EngineRunner runner;
    QSignalSpy started(&runner, &EngineRunner::started);
    QSignalSpy finished(&runner, &EngineRunner::finished);
    QSignalSpy failed(&runner, &EngineRunner::failed);
    QVERIFY(finished.isValid());
    const quint64 gen = runner.submit(valueJob(42));
    QCOMPARE(started.size(), 1);
    QVERIFY(finished.wait(5000));
    QCOMPARE(finished.size(), 1);
    QCOMPARE(failed.size(), 0);
    QCOMPARE(valueOf(finished.at(0)), 42);
    const SnapshotPtr snap = finished.at(0).at(0).value<SnapshotPtr>();
    QCOMPARE(snap->generation, gen);
    QVERIFY(snap->elapsedMs >= 0.0);
    QVERIFY(!runner.isBusy());
}

void TestUiRunner::workRunsOffTheGuiThread()
{
    EngineRunner runner;
    QSignalSpy finished(&runner, &EngineRunner::finished);
    std::atomic<QThread *> jobThread{nullptr};
    runner.submit([&jobThread](const JobContext &) -> attn::Result<std::shared_ptr<Snapshot>> {
        jobThread = QThread::currentThread();
        return std::shared_ptr<Snapshot>(std::make_shared<ValueSnapshot>());
    });
    QVERIFY(finished.wait(5000));
    QVERIFY(jobThread.load() != nullptr);
    QVERIFY(jobThread.load() != QThread::currentThread());
    QVERIFY(jobThread.load() != qApp->thread());
}

void TestUiRunner::workRunsAtBackgroundPriority()
{
#ifdef __linux__
    // The job's thread, and a thread it starts (as the engine's parallelFor does), run kBackgroundNice lower
    // than the GUI thread; the GUI thread keeps its own priority.
    const auto niceOfThisThread = [] { return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid))); };
    const int gui = niceOfThisThread();
    EngineRunner runner;
    QSignalSpy finished(&runner, &EngineRunner::finished);
    std::atomic<int> job{-100}, child{-100};
    runner.submit([&](const JobContext &) -> attn::Result<std::shared_ptr<Snapshot>> {
        job = niceOfThisThread();
        std::thread([&] { child = niceOfThisThread(); }).join();
        return std::shared_ptr<Snapshot>(std::make_shared<ValueSnapshot>());
    });
    QVERIFY(finished.wait(5000));
    QCOMPARE(job.load(), std::min(19, gui + kBackgroundNice));
    QCOMPARE(child.load(), job.load());
    QCOMPARE(niceOfThisThread(), gui);
#else
    QSKIP("thread priorities are checked on Linux");
#endif
}

void TestUiRunner::staleResultsAreDropped()
{
    EngineRunner runner;
    QSignalSpy finished(&runner, &EngineRunner::finished);
    QSignalSpy cancelled(&runner, &EngineRunner::cancelled);
    // The first job is slow and ignores cancellation, so it finishes after the second: its result is stale.
    const quint64 first = runner.submit(valueJob(1, 300));
    const quint64 second = runner.submit(valueJob(2));
    QVERIFY(second > first);
    QVERIFY(finished.wait(5000));
    QVERIFY(runner.waitForIdle(5000));
    QTest::qWait(50);   // nothing else may arrive
    QCOMPARE(finished.size(), 1);
    QCOMPARE(valueOf(finished.at(0)), 2);
    QCOMPARE(cancelled.size(), 0);
}

void TestUiRunner::failedOnBadInput_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("dModel");
    QTest::addColumn<QString>("mentions");
    QTest::addRow("empty text") << QString("   ") << 4 << 32 << QString("empty");
    QTest::addRow("d_model not a multiple of heads") << QString("a b c") << 5 << 32 << QString("d_model 32");
    QTest::addRow("zero heads") << QString("a b c") << 0 << 32 << QString("heads is 0");
}

void TestUiRunner::failedOnBadInput()
{
    QFETCH(QString, text);
    QFETCH(int, heads);
    QFETCH(int, dModel);
    QFETCH(QString, mentions);
    EngineRunner runner;
    QSignalSpy finished(&runner, &EngineRunner::finished);
    QSignalSpy failed(&runner, &EngineRunner::failed);
    ExperimentRequest r = smallRequest();
    r.text = text;
    r.heads = heads;
    r.dModel = dModel;
    runner.submit([r](const JobContext &ctx) { return runExperiment(r, ctx); });
    QVERIFY(failed.wait(5000));
    QCOMPARE(finished.size(), 0);
    const QString message = failed.at(0).at(0).toString();
    QVERIFY2(message.contains(mentions), qPrintable(message));
}

void TestUiRunner::cancelStopsTheJob()
{
    EngineRunner runner;
    QSignalSpy finished(&runner, &EngineRunner::finished);
    QSignalSpy cancelled(&runner, &EngineRunner::cancelled);
    std::atomic<bool> running{false};
    runner.submit([&running](const JobContext &ctx) -> attn::Result<std::shared_ptr<Snapshot>> {
        running = true;
        const auto cancel = ctx.cancelFn();   // what the engine polls
        for (int i = 0; i < 1000 && !cancel(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (ctx.isCancelled()) return attn::Status::cancelled();
        return std::shared_ptr<Snapshot>(std::make_shared<ValueSnapshot>());
    });
    QVERIFY(runner.isBusy());
    QTRY_VERIFY(running.load());
    runner.cancel();
    QVERIFY(cancelled.wait(5000));
    QCOMPARE(finished.size(), 0);
    QVERIFY(!runner.isBusy());
}

void TestUiRunner::progressIsForwarded()
{
    EngineRunner runner;
    QSignalSpy progress(&runner, &EngineRunner::progress);
    QSignalSpy finished(&runner, &EngineRunner::finished);
    runner.submit([](const JobContext &ctx) -> attn::Result<std::shared_ptr<Snapshot>> {
        ctx.reportProgress(0.5);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));   // let the queued call arrive first
        return std::shared_ptr<Snapshot>(std::make_shared<ValueSnapshot>());
    });
    QVERIFY(finished.wait(5000));
    QVERIFY(!progress.isEmpty());
    QCOMPARE(progress.at(0).at(0).toDouble(), 0.5);
}

void TestUiRunner::experimentGivesCausalWeights()
{
    EngineRunner runner;
    QSignalSpy finished(&runner, &EngineRunner::finished);
    QSignalSpy failed(&runner, &EngineRunner::failed);
    const ExperimentRequest r = smallRequest();
    runner.submit([r](const JobContext &ctx) { return runExperiment(r, ctx); });
    if (!finished.wait(10000)) QFAIL(failed.isEmpty() ? "no result" : qPrintable(failed.at(0).at(0).toString()));
    auto s = std::dynamic_pointer_cast<const ExploreSnapshot>(finished.at(0).at(0).value<SnapshotPtr>());
    QVERIFY(s);
    QCOMPARE(s->length(), 11);
    QCOMPARE(s->heads, 4);
    QCOMPARE(s->backend, std::string("reference"));
    const int L = s->length();
    for (int h = 0; h < s->heads; ++h) {
        QVERIFY(s->hasWeights(0, h));
        const auto &P = s->weightsOf(0, h);
        const auto &S = s->scoresOf(0, h);
        for (int i = 0; i < L; ++i) {
            double sum = 0;
            for (int j = 0; j < L; ++j) {
                const std::size_t ij = std::size_t(i * L + j);
                sum += P[ij];
                QCOMPARE(bool(s->masked[ij]), j > i);
                if (j > i) {
                    QCOMPARE(P[ij], 0.0f);
                    QVERIFY(std::isinf(S[ij]) && S[ij] < 0);
                } else {
                    QVERIFY(std::isfinite(S[ij]));
                }
            }
            QVERIFY(std::abs(sum - 1.0) < 1e-4);
        }
    }
}

void TestUiRunner::everyBackendAgreesWithReference_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<int>("mask");
    QTest::addColumn<QString>("positional");
    for (const char *b : {"tiled", "unfused", "auto"}) {
        QTest::addRow("%s causal none", b) << QString(b) << int(MaskKind::Causal) << QString("none");
        QTest::addRow("%s window rope", b) << QString(b) << int(MaskKind::SlidingWindow) << QString("rope");
        QTest::addRow("%s bidirectional alibi", b) << QString(b) << int(MaskKind::Bidirectional) << QString("alibi");
    }
}

void TestUiRunner::everyBackendAgreesWithReference()
{
    QFETCH(QString, backend);
    QFETCH(int, mask);
    QFETCH(QString, positional);
    // What the Backend combo offers must run and show the same weights as the fp64 oracle.
    ExperimentRequest r = smallRequest();
    r.mask = MaskKind(mask);
    r.positional = *attn::parsePositional(positional.toStdString());
    JobContext ctx;
    auto ref = runExperiment(r, ctx);
    QVERIFY2(ref.isOk(), ref.isOk() ? "" : ref.status().message().c_str());
    r.backend = *attn::parseBackend(backend.toStdString());
    auto fast = runExperiment(r, ctx);
    QVERIFY2(fast.isOk(), fast.isOk() ? "" : fast.status().message().c_str());
    auto a = std::static_pointer_cast<const ExploreSnapshot>(*ref);
    auto b = std::static_pointer_cast<const ExploreSnapshot>(*fast);
    for (int h = 0; h < a->heads; ++h) {
        QVERIFY(b->hasWeights(0, h));
        for (std::size_t i = 0; i < a->weightsOf(0, h).size(); ++i)
            QVERIFY(std::abs(a->weightsOf(0, h)[i] - b->weightsOf(0, h)[i]) < 1e-4f);
    }
}

void TestUiRunner::sameWordSameEmbedding()
{
    QCOMPARE(wordEmbedding(QStringLiteral("cat"), 16), wordEmbedding(QStringLiteral("Cat"), 16));
    QVERIFY(wordEmbedding(QStringLiteral("cat"), 16) != wordEmbedding(QStringLiteral("mat"), 16));
    QCOMPARE(tokenizeWords(QStringLiteral("  the\tcat \n sat ")), QStringList({"the", "cat", "sat"}));
}

namespace {
// A bundled GPT-2 sample's folder (the fixtures have no tokenizer files); empty when none is there.
QString gpt2Tiny()
{
    for (const attn::SampleModelInfo &s : attn::listSampleModels())
        if (s.name.find("gpt2") != std::string::npos) return QString::fromStdString(s.folder);
    return {};
}
} // namespace

void TestUiRunner::realModelRunsOffTheGuiThread()
{
    if (gpt2Tiny().isEmpty()) QSKIP("no GPT-2 sample model in sample_models/");
    EngineRunner runner;
    QSignalSpy finished(&runner, &EngineRunner::finished);
    QSignalSpy failed(&runner, &EngineRunner::failed);
    auto jobThread = std::make_shared<std::atomic<QThread *>>(nullptr);
    ModelRequest r;
    r.spec = gpt2Tiny();
    r.text = QStringLiteral("hello hello world");
    runner.submit([r, jobThread](const JobContext &ctx) {
        jobThread->store(QThread::currentThread());
        return runModel(r, ctx);
    });
    QTRY_COMPARE_WITH_TIMEOUT(finished.size() + failed.size(), 1, 20000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QVERIFY(jobThread->load() != nullptr);
    QVERIFY(jobThread->load() != QThread::currentThread());
    auto s = std::dynamic_pointer_cast<const ModelSnapshot>(finished.first().first().value<SnapshotPtr>());
    QVERIFY(s && s->model);
    QVERIFY(s->runError.isEmpty());
    const int L = s->length();
    QVERIFY(L > 0);
    QCOMPARE(int(s->tokenIds.size()), L);
    QCOMPARE(int(s->weights.size()), s->layers * s->heads);
    for (const auto &w : s->weights) QCOMPARE(int(w.size()), L * L);
    QCOMPARE(int(s->scores.front().size()), L * L);
    QCOMPARE(int(s->stats.size()), s->layers * s->heads);
    QCOMPARE(int(s->rollout.size()), L * L);
    QCOMPARE(int(s->flow.size()), L * L);
    // GPT-2 is causal: nothing above the diagonal, and the outputs are next-token predictions.
    QCOMPARE(int(s->masked[1]), 1);
    QCOMPARE(s->weights.front()[1], 0.0f);
    QCOMPARE(s->outputs.head, attn::ModelHead::CausalLM);
    QCOMPARE(int(s->outputs.positions.size()), L);
    QVERIFY(!s->outputs.topK.back().empty());
    double sum = 0.0;
    for (const TokenPrediction &p : s->outputs.topK.back()) sum += p.probability;
    QVERIFY(sum > 0.0 && sum <= 1.0 + 1e-9);
}

void TestUiRunner::staleModelResultsAreDropped()
{
    if (gpt2Tiny().isEmpty()) QSKIP("no GPT-2 sample model in sample_models/");
    auto opened = attn::TextModel::open(gpt2Tiny().toStdString());
    QVERIFY2(opened.isOk(), opened.status().message().c_str());
    auto model = std::make_shared<const attn::TextModel>(std::move(opened).value());
    EngineRunner runner;
    QSignalSpy finished(&runner, &EngineRunner::finished);
    ModelRequest first, second;
    first.model = second.model = model;
    first.text = QStringLiteral("one two three four five six");
    second.text = QStringLiteral("one");
    runner.submit([first](const JobContext &) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));   // still running when the second arrives
        return runModel(first, JobContext());                         // ignores cancel on purpose
    });
    const quint64 gen = runner.submit([second](const JobContext &ctx) { return runModel(second, ctx); });
    QVERIFY(runner.waitForIdle(20000));
    QCOMPARE(finished.size(), 1);
    auto s = std::dynamic_pointer_cast<const ModelSnapshot>(finished.first().first().value<SnapshotPtr>());
    QCOMPARE(s->generation, gen);
    QCOMPARE(s->text, second.text);
}

// Explore's picture of a model whose layers differ: the masked cells of each layer are exactly where the engine's
// captured scores are −∞ (the sliding window of layer 0, plain causal in layer 1), the K/V head of each query
// head, and the model line says what is special.
void TestUiRunner::modelSnapshotMarksWindowsAndGroups()
{
    ModelRequest r;
    r.spec = QStringLiteral("sample:retrieval-qwen2");
    r.text = QStringLiteral("ka 3 mo 7 ri 1 di 5 mo");
    JobContext ctx;
    auto result = runModel(r, ctx);
    QVERIFY2(result.isOk(), result.status().message().c_str());
    auto s = std::dynamic_pointer_cast<const ModelSnapshot>(result.value());
    QVERIFY(s && s->runError.isEmpty());
    QCOMPARE(s->layerWindow, (std::vector<int>{3, 0}));
    QCOMPARE(s->kvHeadOf, (std::vector<int>{0, 0, 1, 1}));
    const int L = s->length();
    QVERIFY(L > 4);
    int windowCells = 0;
    for (int layer = 0; layer < s->layers; ++layer)
        for (int head = 0; head < s->heads; ++head) {
            const std::vector<float> &scores = s->scoresOf(layer, head);
            const std::vector<std::uint8_t> &masked = s->maskedOf(layer);
            QCOMPARE(int(scores.size()), L * L);
            for (int c = 0; c < L * L; ++c) {
                const bool minusInf = std::isinf(scores[std::size_t(c)]) && scores[std::size_t(c)] < 0;
                QCOMPARE(bool(masked[std::size_t(c)]), minusInf);
                if (layer == 0 && head == 0 && minusInf && c % L < c / L) ++windowCells;   // below the diagonal
            }
        }
    QCOMPARE(windowCells, (L - 3) * (L - 2) / 2);   // keys i−3 and earlier, for every query i ≥ 3
    QVERIFY(s->maskDescriptionOf(0).contains(QStringLiteral("sliding window W = 3")));
    QVERIFY(!s->maskDescriptionOf(1).contains(QStringLiteral("sliding")));
    const QString about = describeAttention(s->model->model().config());
    for (const QString &part : {QStringLiteral("Qwen2"), QStringLiteral("GQA: 4 query heads share 2 K/V heads"),
                                QStringLiteral("RoPE θ 10000"), QStringLiteral("sliding window 3 on layer 0"),
                                QStringLiteral("tied embeddings")})
        QVERIFY2(about.contains(part), qPrintable(about + "\n  missing: " + part));
    // A model with neither: nothing per layer.
    ModelRequest gpt;
    gpt.spec = QStringLiteral("sample:induction-gpt2");
    gpt.text = QStringLiteral("bo he so ve");
    auto plain = runModel(gpt, ctx);
    QVERIFY(plain.isOk());
    auto p = std::dynamic_pointer_cast<const ModelSnapshot>(plain.value());
    QVERIFY(p->layerWindow.empty() && p->layerMasked.empty() && p->kvHeadOf.empty());
}

// Explore's pair and truncation: the token types reach the model (as the CLI's run gives them), and a cut text
// says how much it kept.
void TestUiRunner::modelRunsPairsAndTruncates()
{
    ModelRequest r;
    r.spec = QStringLiteral("sample:rationale-bert");
    r.text = QStringLiteral("the plot was excellent");
    r.tokenize.pair = "the dog was awful";
    JobContext ctx;
    auto result = runModel(r, ctx);
    QVERIFY2(result.isOk(), result.status().message().c_str());
    auto s = std::dynamic_pointer_cast<const ModelSnapshot>(result.value());
    QVERIFY(s && s->runError.isEmpty());
    QCOMPARE(s->textPair, QStringLiteral("the dog was awful"));
    const int L = s->length();
    QCOMPARE(int(s->tokenTypeIds.size()), L);
    const int firstSep = int(s->tokens.indexOf(QStringLiteral("[SEP]")));
    QVERIFY(firstSep > 0 && firstSep < L - 1);
    for (int i = 0; i < L; ++i) QCOMPARE(s->tokenTypeIds[std::size_t(i)], std::int64_t(i <= firstSep ? 0 : 1));
    // The same head's weights as a forward pass with those types given by hand.
    attn::ForwardInput in;
    in.tokenIds = s->tokenIds;
    in.tokenTypeIds = s->tokenTypeIds;
    attn::ForwardOptions o;
    o.weightsMode = attn::WeightsRequest::Mode::Heads;
    o.weightHeads = {attn::HeadRef{1, 2}};
    o.captureScores = true;   // as Explore runs it
    auto direct = s->model->model().forward(in, o);
    in.tokenTypeIds.clear();
    auto untyped = s->model->model().forward(in, o);
    QVERIFY(direct.isOk() && untyped.isOk());
    double same = 0, moved = 0;
    for (std::size_t k = 0; k < direct->heads.front().weights.size(); ++k) {
        same = std::max(same, double(std::abs(s->weightsOf(1, 2)[k] - direct->heads.front().weights[k])));
        moved = std::max(moved, double(std::abs(s->weightsOf(1, 2)[k] - untyped->heads.front().weights[k])));
    }
    QVERIFY2(same < 1e-6, qPrintable(QString::number(same)));
    QVERIFY2(moved > 1e-4, qPrintable(QString::number(moved)));   // the types matter to this head

    ModelRequest longer;
    longer.model = s->model;
    longer.spec = r.spec;
    longer.text = QString(QStringLiteral("film ")).repeated(300);
    auto refused = runModel(longer, ctx);
    QVERIFY(!refused.isOk());
    longer.tokenize.truncate = true;
    auto cut = runModel(longer, ctx);
    QVERIFY2(cut.isOk(), cut.status().message().c_str());
    auto c = std::dynamic_pointer_cast<const ModelSnapshot>(cut.value());
    QCOMPARE(c->length(), 128);
    QVERIFY2(c->inputNote.contains(QStringLiteral("128 of 302")), qPrintable(c->inputNote));
}

// Opening a model: the progress bar follows the checkpoint's bytes converted (up to 0.9), then the forward pass;
// never backwards. A cancelled load ends as cancelled.
void TestUiRunner::openingAModelReportsItsLoad()
{
    EngineRunner runner;
    QSignalSpy progress(&runner, &EngineRunner::progress);
    QSignalSpy finished(&runner, &EngineRunner::finished);
    ModelRequest r;
    r.spec = QStringLiteral("sample:rationale-bert");
    r.text = QStringLiteral("the plot was excellent");
    runner.submit([r](const JobContext &ctx) {
        auto result = runModel(r, ctx);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));   // let the queued progress arrive first
        return result;
    });
    QVERIFY(finished.wait(20000));
    std::vector<double> seen;
    for (const QList<QVariant> &p : progress) seen.push_back(p.at(0).toDouble());
    QVERIFY2(seen.size() >= 3, qPrintable(QString::number(seen.size())));
    const auto loading = std::count_if(seen.begin(), seen.end(), [](double f) { return f > 0.0 && f <= 0.9; });
    QVERIFY2(loading >= 2, qPrintable(QString::number(loading)));   // the load's own steps
    QVERIFY(seen.back() > 0.9 && seen.back() <= 1.0);

    // Cancel (what the job's cancelFn() answers once the user presses it) stops the load: nothing is opened.
    attn::LoadOptions load;
    load.cancel = [] { return true; };
    auto opened = attn::TextModel::open("sample:rationale-bert", load);
    QVERIFY(!opened.isOk());
    QCOMPARE(opened.status().code(), attn::ErrorCode::Cancelled);
}

void TestUiRunner::modelErrorsNameTheProblem()
{
    JobContext ctx;
    ModelRequest bad;
    bad.spec = QStringLiteral("/nonexistent/model-folder");
    bad.text = QStringLiteral("hi");
    auto r = runModel(bad, ctx);
    QVERIFY(!r.isOk());
    QVERIFY2(r.status().message().find("model-folder") != std::string::npos, r.status().message().c_str());

    // A model that opens but cannot run the text is still handed back, with the reason.
    if (gpt2Tiny().isEmpty()) QSKIP("no GPT-2 sample model in sample_models/");
    ModelRequest tooLong;
    tooLong.spec = gpt2Tiny();
    tooLong.text = QString(QStringLiteral("a ")).repeated(5000);
    auto t = runModel(tooLong, ctx);
    QVERIFY(t.isOk());
    auto s = std::dynamic_pointer_cast<const ModelSnapshot>(*t);
    QVERIFY(s && s->model);
    QVERIFY2(s->runError.contains(QStringLiteral("positions")), qPrintable(s->runError));
}

QTEST_MAIN(TestUiRunner)
#include "tst_ui_runner.moc"
