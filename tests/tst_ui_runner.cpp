// SPDX-License-Identifier: GPL-3.0-or-later
// EngineRunner: results arrive as snapshots, work runs off the GUI thread, stale results are dropped, errors and
// cancellation are reported; plus the Explore experiment that runs through it.

#include "explore/experiment.h"
#include "runner/enginerunner.h"

#include <QThread>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

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
    void staleResultsAreDropped();
    void failedOnBadInput_data();
    void failedOnBadInput();
    void cancelStopsTheJob();
    void progressIsForwarded();
    void experimentGivesCausalWeights();
    void everyBackendAgreesWithReference_data();
    void everyBackendAgreesWithReference();
    void sameWordSameEmbedding();
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

QTEST_MAIN(TestUiRunner)
#include "tst_ui_runner.moc"
