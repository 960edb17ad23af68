// SPDX-License-Identifier: GPL-3.0-or-later
// The Pipeline workspace: every stage against an fp64 reference computed here from the Q/K/V of our own forward
// pass; ÷√d_k on a hand-checkable case; stepping with the buttons and ←/→; session state round trip and errors.

#include "runner/enginerunner.h"
#include "kit/subject.h"
#include "plots/heatmapplot.h"
#include "kit/matrixpanel.h"
#include "workspaces/pipeline/pipelinecontrols.h"
#include "shell/theme.h"
#include "workspaces/pipeline/pipelineview.h"
#include "uitestsupport.h"
#include "export/figureexport.h"

#include <attnscope/mask.h>
#include <attnscope/textmodel.h>
#include <attnscope/variants.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QJsonArray>
#include <QSlider>
#include <QScrollArea>
#include <QSpinBox>
#include <QTableView>
#include <QTableWidget>
#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <limits>

using namespace attnui;

namespace {

TextModelPtr openModel(const QString &spec)
{
    auto m = attn::TextModel::open(spec.toStdString());
    if (!m) qFatal("cannot open %s: %s", qPrintable(spec), m.status().message().c_str());
    return std::make_shared<const attn::TextModel>(std::move(m).value());
}

double maxDiff(const std::vector<double> &a, const std::vector<double> &b)
{
    if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
    double m = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::isinf(a[i]) || std::isinf(b[i])) {
            if (a[i] != b[i]) return std::numeric_limits<double>::infinity();
            continue;
        }
        m = std::max(m, std::abs(a[i] - b[i]));
    }
    return m;
}

struct Fixture {
    Subject subject;
    PipelineView *view = nullptr;
    explicit Fixture(const QString &spec, const QString &text)
    {
        subject.setModel(openModel(spec), spec);
        subject.setText(text);
        view = new PipelineView(&subject);
    }
    ~Fixture() { delete view; }
    void run(const PipelineSettings &s)
    {
        view->setSettings(s);
        QVERIFY(view->runner()->waitForIdle());
        QVERIFY2(view->errorText().isEmpty(), qPrintable(view->errorText()));
        QVERIFY(view->snapshot());
    }
};

} // namespace

class TestPipeline : public QObject {
    Q_OBJECT
private slots:
    void stagesMatchReference_data();
    void stagesMatchReference();
    void scalingTwoTokensByHand();
    void scalingToggleInView();
    void maskAndPositionOptions();
    void stepping();
    void playWalksThroughTheStages();
    void multiHeadStep();
    void tiledStepByHand();
    void tiledStepMatchesTheKeysSoFar();
    void tiledStageInView();
    void toyByHand();
    void toySession();
    void toyDragAndTypedQkv();
    void clickerKeysStepWhereverTheFocusIs();
    void stageLabelsFollowTheTheme();
    void tablesAndHeatmaps();
    void exportedFigureShowsEveryTable();
    void scoreFunctionsByHand_data();
    void scoreFunctionsByHand();
    void scoreFunctionsInView();
    void dropoutOnTheSoftmaxStage();
    void sessionRoundTrip();
    void sessionErrors_data();
    void sessionErrors();
    void showView();
};

void TestPipeline::stagesMatchReference_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("layer");
    QTest::addColumn<int>("head");
    QTest::addRow("gpt2 causal L1.2") << "sample:induction-gpt2" << "bo he so ve pa va bo he" << 1 << 2;
    QTest::addRow("bert bidirectional L2.3") << "sample:rationale-bert" << "the plot was excellent." << 2 << 3;
    QTest::addRow("qwen2 sliding-window L0.1") << "sample:retrieval-qwen2" << "ka 3 mo 7 ri 1 di 5 mo" << 0 << 1;
    QTest::addRow("random alibi L0.1") << "random:layers=1,heads=2,d_model=16,seed=3,pe=alibi" << "abcdefg" << 0 << 1;
}

void TestPipeline::stagesMatchReference()
{
    QFETCH(QString, spec);
    QFETCH(QString, text);
    QFETCH(int, layer);
    QFETCH(int, head);
    Fixture f(spec, text);
    PipelineSettings s;
    s.layer = layer;
    s.head = head;
    f.run(s);
    const auto snap = f.view->snapshot();

    // Our own forward pass and our own fp64 stages from its Q, K, V.
    const TextModelPtr model = f.subject.model();
    const attn::ModelConfig &cfg = model->model().config();
    auto tokens = model->tokenize(text.toStdString());
    QVERIFY(tokens.isOk());
    attn::ForwardInput in;
    in.tokenIds = tokens->ids;
    attn::ForwardOptions opt;
    opt.captureQKV = true;
    opt.weightsMode = attn::WeightsRequest::Mode::Heads;
    opt.weightHeads = {attn::HeadRef{layer, head}};
    opt.computeLogits = false;
    auto fwd = model->model().forward(in, opt);
    QVERIFY(fwd.isOk());
    const int n = int(fwd->length), D = int(cfg.dHead);
    QCOMPARE(snap->n, n);
    QCOMPARE(snap->dHead, D);
    const auto &lq = fwd->qkv[std::size_t(layer)];
    const auto at = [&](const attn::Tensor &t, int i, int c) {
        return double(t.values[(std::size_t(head) * std::size_t(n) + std::size_t(i)) * std::size_t(D) + std::size_t(c)]);
    };
    const std::vector<float> slopes = cfg.positions == attn::PositionKind::ALiBi ? attn::alibiSlopes(cfg.heads)
                                                                                  : std::vector<float>{};
    const double scale = 1.0 / std::sqrt(double(D));
    std::vector<double> dot(std::size_t(n * n)), masked(std::size_t(n * n)), weights(std::size_t(n * n), 0.0),
        out(std::size_t(n * D), 0.0);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            double d = 0.0;
            for (int c = 0; c < D; ++c) d += at(lq.q, i, c) * at(lq.k, j, c);
            dot[std::size_t(i * n + j)] = d;
            double m = 0.0;
            const std::int64_t window = attn::layerWindow(cfg, layer);   // Hugging Face's W: W keys, the query included
            if (cfg.causal && j > i) m = -std::numeric_limits<double>::infinity();
            else if (window > 0 && i - j >= window) m = -std::numeric_limits<double>::infinity();
            else if (!slopes.empty()) m = -double(slopes[std::size_t(head)]) * std::abs(i - j);
            masked[std::size_t(i * n + j)] = d * scale + m;
        }
        double z = 0.0;
        for (int j = 0; j < n; ++j) z += std::exp(masked[std::size_t(i * n + j)]);   // exp(−inf) = 0
        for (int j = 0; j < n; ++j) weights[std::size_t(i * n + j)] = std::exp(masked[std::size_t(i * n + j)]) / z;
        for (int j = 0; j < n; ++j)
            for (int c = 0; c < D; ++c) out[std::size_t(i * D + c)] += weights[std::size_t(i * n + j)] * at(lq.v, j, c);
    }
    QVERIFY2(maxDiff(snap->stages.dot, dot) < 1e-9, "QKᵀ");
    QVERIFY2(maxDiff(snap->stages.masked, masked) < 1e-9, "scaled + M");
    QVERIFY2(maxDiff(snap->stages.weights, weights) < 1e-9, "softmax");
    QVERIFY2(maxDiff(snap->stages.output, out) < 1e-9, "·V");
    for (int i = 0; i < n; ++i) {
        double rowSum = 0.0;
        for (int j = 0; j < n; ++j) rowSum += snap->stages.weights[std::size_t(i * n + j)];
        QVERIFY(std::abs(rowSum - 1.0) < 1e-12);
    }
    // And against what the engine multiplied V with (fp32).
    std::vector<double> engine(fwd->heads[0].weights.begin(), fwd->heads[0].weights.end());
    QVERIFY(maxDiff(weights, engine) < 1e-5);
    QVERIFY(snap->maxErrWeights < 1e-5);
    QVERIFY(snap->scoresMaskAgree);
    QVERIFY(f.view->checkText().contains(QStringLiteral("✓")));
}

void TestPipeline::scalingTwoTokensByHand()
{
    // d_k = 4, q = k0 = (1,1,1,1), k1 = 0: q·k = (4, 0). With ÷√4 the scores are (2, 0): softmax = (e²/(e²+1),
    // 1/(e²+1)) = (0.8807971, 0.1192029). Without: (4, 0) → (0.9820138, 0.0179862).
    const std::vector<double> q{1, 1, 1, 1, 0, 0, 0, 0}, k{1, 1, 1, 1, 0, 0, 0, 0}, v{1, 0, 0, 0, 0, 1, 0, 0};
    const std::vector<double> bias(4, 0.0);
    const HeadStages on = computeHeadStages(q, k, v, bias, 2, 4, 0.5, 1.0);
    const HeadStages off = computeHeadStages(q, k, v, bias, 2, 4, 1.0, 1.0);
    QCOMPARE(on.dot[0], 4.0);
    QCOMPARE(on.scaled[0], 2.0);
    QVERIFY(std::abs(on.weights[0] - 0.88079707797788) < 1e-12);
    QVERIFY(std::abs(on.weights[1] - 0.11920292202212) < 1e-12);
    QVERIFY(std::abs(off.weights[0] - 0.98201379003791) < 1e-12);
    QVERIFY(std::abs(off.weights[1] - 0.01798620996209) < 1e-12);
    QVERIFY(std::abs(on.output[0] - on.weights[0]) < 1e-15);   // y_0 = P_00 v_0 + P_01 v_1
    // Row 1: q = 0, every score 0 → uniform, whatever the scale.
    QCOMPARE(on.weights[2], 0.5);
    QCOMPARE(off.weights[3], 0.5);
    // Temperature 2 with scaling off equals ÷√4 here.
    const HeadStages t2 = computeHeadStages(q, k, v, bias, 2, 4, 1.0, 2.0);
    QVERIFY(std::abs(t2.weights[0] - on.weights[0]) < 1e-15);
    // Saturation: scaling off has the larger max weight and the lower entropy.
    QVERIFY(saturation(off.weights, 2).meanMaxWeight > saturation(on.weights, 2).meanMaxWeight);
    QVERIFY(saturation(off.weights, 2).meanEntropyBits < saturation(on.weights, 2).meanEntropyBits);
}

void TestPipeline::scalingToggleInView()
{
    // Two tokens through the view, bidirectional: row 0's weight on key 0 is 1/(1 + exp(f·(s01 − s00))), by hand.
    Fixture f(QStringLiteral("random:layers=1,heads=1,d_model=16,seed=5"), QStringLiteral("ab"));
    PipelineSettings s;
    f.run(s);
    auto on = f.view->snapshot();
    QCOMPARE(on->n, 2);
    QCOMPARE(on->factor, 0.25);
    f.view->controls()->scaleBox()->setChecked(false);   // the checkbox itself, as a student would
    f.view->rerun();
    QVERIFY(f.view->runner()->waitForIdle());
    auto off = f.view->snapshot();
    QVERIFY(!off->settings.scale);
    QCOMPARE(off->factor, 1.0);
    for (const auto &snap : {on, off}) {
        const double s00 = snap->stages.dot[0], s01 = snap->stages.dot[1];
        const double expected = 1.0 / (1.0 + std::exp(snap->factor * (s01 - s00)));
        QVERIFY(std::abs(snap->stages.weights[0] - expected) < 1e-12);
    }
    QVERIFY(on->stages.dot == off->stages.dot);   // the same Q, K; only the factor changed
    // The √d_k plot's squares: the spread of this head's own q·k over its allowed cells (bidirectional: all 4).
    const auto &d = on->stages.dot;
    const double mean = (d[0] + d[1] + d[2] + d[3]) / 4;
    const double sd = std::sqrt(((d[0] - mean) * (d[0] - mean) + (d[1] - mean) * (d[1] - mean) + (d[2] - mean) * (d[2] - mean) +
                                 (d[3] - mean) * (d[3] - mean)) / 4);
    QVERIFY(std::abs(on->dotStd - sd) < 1e-12);
    // The check still compares the model's own setting and says the stages use other settings.
    QVERIFY(off->maxErrWeights < 1e-5);
    QVERIFY(f.view->checkText().contains(QStringLiteral("not the model's")));
}

void TestPipeline::maskAndPositionOptions()
{
    Fixture f(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he so ve pa va"));
    PipelineSettings s;
    s.mask = PipelineSettings::Mask::Bidirectional;
    f.run(s);
    auto snap = f.view->snapshot();
    QVERIFY(snap->stages.weights[1] > 0.0);   // row 0 now sees key 1
    QVERIFY(snap->maxErrWeights < 1e-5);      // the engine ran with the same mask
    s.mask = PipelineSettings::Mask::Window;
    s.window = 1;
    f.run(s);
    snap = f.view->snapshot();
    const int n = snap->n;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const bool allowed = j <= i && i - j <= 1;   // causal model: window looks back only
            QCOMPARE(snap->stages.weights[std::size_t(i * n + j)] > 0.0, allowed);
        }
    s.mask = PipelineSettings::Mask::Model;
    s.positional = PipelineSettings::Positional::None;
    f.run(s);
    QVERIFY(f.view->snapshot()->canDropPositions);
    QVERIFY(f.view->snapshot()->maxErrWeights < 1e-5);
}

void TestPipeline::stepping()
{
    Fixture f(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he so ve"));
    f.run(PipelineSettings{});
    // The keys are window shortcuts: they need the view shown in the active window.
    f.view->show();
    QApplication::setActiveWindow(f.view);
    QVERIFY(QTest::qWaitForWindowActive(f.view));
    QSignalSpy changed(f.view, &Workspace::figureChanged);
    f.view->setStage(PipelineStage::Input);
    QCOMPARE(f.view->panels().size(), 1);
    QCOMPARE(f.view->formulaText(), stageFormula(PipelineStage::Input));
    const QList<int> expectedPanels{1, 3, 3, 2, 3, 2, 3, 3, 3};
    for (int i = 1; i < kPipelineStageCount; ++i) {
        QTest::keyClick(f.view, Qt::Key_Right);
        QCOMPARE(int(f.view->stage()), i);
        QCOMPARE(f.view->panels().size(), expectedPanels[i]);
        QCOMPARE(f.view->formulaText(), stageFormula(PipelineStage(i)));
    }
    QTest::keyClick(f.view, Qt::Key_Right);   // stays on the last stage
    QCOMPARE(f.view->stage(), PipelineStage::Heads);
    QTest::keyClick(f.view, Qt::Key_Left);
    QCOMPARE(f.view->stage(), PipelineStage::Tiled);
    f.view->stepBack();
    QCOMPARE(f.view->stage(), PipelineStage::Output);
    f.view->stepBack();
    QCOMPARE(f.view->stage(), PipelineStage::Softmax);
    f.view->stepBack();
    QCOMPARE(f.view->stage(), PipelineStage::Mask);
    QCOMPARE(f.view->panels().at(1)->matrix().title, QStringLiteral("+ M  (0 = allowed, −∞ = masked)"));
    QVERIFY(changed.count() >= kPipelineStageCount);
}

// Play steps through the stages on its own, at the chosen speed, from X again after ·V; Space pauses it.
void TestPipeline::playWalksThroughTheStages()
{
    Fixture f(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he so ve"));
    f.run(PipelineSettings{});
    f.view->show();
    QApplication::setActiveWindow(f.view);
    QVERIFY(QTest::qWaitForWindowActive(f.view));
    QCOMPARE(f.view->speedBox()->count(), 3);
    QCOMPARE(f.view->playInterval(), 2500);
    f.view->speedBox()->setCurrentIndex(2);
    QCOMPARE(f.view->playInterval(), 1200);
    f.view->setStage(PipelineStage::Softmax);
    QVERIFY(!f.view->isPlaying());
    f.view->setPlaying(true);
    QVERIFY(f.view->isPlaying());
    QTRY_COMPARE_WITH_TIMEOUT(f.view->stage(), PipelineStage::Output, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(f.view->stage(), PipelineStage::Input, 5000);   // round again
    QTest::keyClick(f.view, Qt::Key_Space);
    QVERIFY(!f.view->isPlaying());
    const PipelineStage paused = f.view->stage();
    QTest::qWait(1500);
    QCOMPARE(f.view->stage(), paused);
    QTest::keyClick(f.view, Qt::Key_Space);
    QVERIFY(f.view->isPlaying());
    f.view->setPlaying(false);
}

// The multi-head step: each head's Y in its d_k columns of the concatenation (the head on screen exactly its ·V
// stage), every head against the engine's attention() on the captured Q, K, V, and the product with the
// checkpoint's W_O and b_O, written out here with the parameters read from the model.
void TestPipeline::multiHeadStep()
{
    Fixture f(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he so ve pa va bo he"));
    PipelineSettings st;
    st.layer = 1;
    st.head = 2;
    f.run(st);
    const auto s = f.view->snapshot();
    const int n = s->n, H = s->heads, D = s->dHead, DM = s->dModel;
    QCOMPARE(int(s->concat.size()), n * H * D);
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < D; ++c) QCOMPARE(s->concat[std::size_t(i * H * D + st.head * D + c)], s->stages.output[std::size_t(i * D + c)]);
    QVERIFY2(s->maxErrHeadOutputs >= 0 && s->maxErrHeadOutputs < 1e-5, qPrintable(QString::number(s->maxErrHeadOutputs)));
    const std::vector<float> *wo = f.subject.model()->model().parameter("layer.1.o.weight");
    const std::vector<float> *bo = f.subject.model()->model().parameter("layer.1.o.bias");
    QVERIFY(wo && bo);
    QCOMPARE(int(s->layerOutput.size()), n * DM);
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < DM; ++c) {
            double y = (*bo)[std::size_t(c)];
            for (int r = 0; r < H * D; ++r) y += s->concat[std::size_t(i * H * D + r)] * (*wo)[std::size_t(r * DM + c)];
            QVERIFY(std::abs(y - s->layerOutput[std::size_t(i * DM + c)]) < 1e-9);
        }
    f.view->setStage(PipelineStage::Heads);
    QCOMPARE(f.view->panels().size(), 3);
    QCOMPARE(f.view->panels().at(0)->matrix().cols, H * D);
    QCOMPARE(f.view->panels().at(1)->matrix().rows, H * D);
    QCOMPARE(f.view->panels().at(2)->matrix().cols, DM);
    QVERIFY2(f.view->checkText().contains(QStringLiteral("✓")), qPrintable(f.view->checkText()));
    QCOMPARE(f.view->formulaText(), stageFormula(PipelineStage::Heads));
}

// The online softmax on numbers worked by hand: one query, two keys with scores 0 and ln 3, one key per block.
// Block 0: m = 0, l = 1, Õ = v0. Block 1: m = ln 3, the rescale e^(0 − ln 3) = 1/3, l = 1/3 + 1 = 4/3,
// Õ = v0/3 + v1, O = (v0 + 3 v1) / 4 — the softmax weights 1/4 and 3/4. A masked key (−∞) changes nothing.
void TestPipeline::tiledStepByHand()
{
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> masked{0.0, std::log(3.0), -inf,   // row 0
                                     -inf, -inf, -inf,           // row 1: sees nothing
                                     -inf, 2.0, 2.0};            // row 2: two equal scores after a masked key
    const std::vector<double> v{4.0, 8.0,  12.0, -4.0,  100.0, 100.0};   // [3, 2]
    TiledStep t = tiledStep(masked, v, 3, 2, 1, 0);
    QCOMPARE(t.blocks, 3);
    QCOMPARE(t.keyBegin, 0);
    QCOMPARE(t.keyEnd, 1);
    QCOMPARE(t.m[0], 0.0);
    QCOMPARE(t.l[0], 1.0);
    QCOMPARE(t.acc[0], 4.0);
    QCOMPARE(t.acc[1], 8.0);
    QCOMPARE(t.m[1], -inf);
    QCOMPARE(t.l[1], 0.0);
    QCOMPARE(t.out[2], 0.0);   // row 1 has seen no key: O = 0, as the engine returns
    QCOMPARE(t.m[2], -inf);
    t = tiledStep(masked, v, 3, 2, 1, 1);
    QVERIFY(std::abs(t.m[0] - std::log(3.0)) < 1e-15);
    QVERIFY(std::abs(t.rescale[0] - 1.0 / 3.0) < 1e-15);
    QVERIFY(std::abs(t.l[0] - 4.0 / 3.0) < 1e-15);
    QVERIFY(std::abs(t.acc[0] - (4.0 / 3.0 + 12.0)) < 1e-12);
    QVERIFY(std::abs(t.out[0] - (4.0 + 3.0 * 12.0) / 4.0) < 1e-12);
    QVERIFY(std::abs(t.out[1] - (8.0 - 3.0 * 4.0) / 4.0) < 1e-12);
    QVERIFY(std::abs(t.lse[0] - std::log(4.0)) < 1e-15);   // ln(e^0 + e^(ln 3))
    QCOMPARE(t.m[2], 2.0);
    QCOMPARE(t.rescale[2], 0.0);   // from nothing (−∞) to 2: the empty l and Õ are multiplied by 0
    QCOMPARE(t.l[2], 1.0);
    t = tiledStep(masked, v, 3, 2, 1, 2);
    QCOMPARE(t.rescale[0], 1.0);   // a masked key: the maximum did not grow
    QVERIFY(std::abs(t.l[0] - 4.0 / 3.0) < 1e-15);
    QCOMPARE(t.rescale[2], 1.0);   // an equal score: no rescale, l = 2
    QCOMPARE(t.l[2], 2.0);
    QCOMPARE(t.out[4], (12.0 + 100.0) / 2.0);   // keys 1 and 2 weigh 1/2 each
    QCOMPARE(t.out[5], (-4.0 + 100.0) / 2.0);
    QVERIFY(std::abs(t.lse[2] - (2.0 + std::log(2.0))) < 1e-15);
    QCOMPARE(tiledStep(masked, v, 3, 2, 1, 9).block, 2);   // clamped
    QCOMPARE(tiledStep(masked, v, 3, 2, 0, 0).keyEnd, 1);  // at least one key per block
}

// On a real head (induction-gpt2 L1 H2, causal, 11 tokens) with 3 keys per block: after every block each row's m,
// l and Õ are those of the keys read so far, summed here directly without any recurrence; the rescale is
// e^(m before − m after); and after the last block O and the LSE are the softmax stage's P V and ln Σ e^S″.
void TestPipeline::tiledStepMatchesTheKeysSoFar()
{
    Fixture f(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he so ve pa va bo he so ve pa"));
    PipelineSettings st;
    st.layer = 1;
    st.head = 2;
    f.run(st);
    const auto s = f.view->snapshot();
    const int n = s->n, D = s->dHead;
    const double inf = std::numeric_limits<double>::infinity();
    const auto upTo = [&](int i, int end, std::vector<double> *acc) {
        double m = -inf, l = 0.0;
        for (int j = 0; j < end; ++j) m = std::max(m, s->stages.masked[std::size_t(i * n + j)]);
        if (acc) acc->assign(std::size_t(D), 0.0);
        if (m == -inf) return std::make_pair(m, l);
        for (int j = 0; j < end; ++j) {
            const double e = std::exp(s->stages.masked[std::size_t(i * n + j)] - m);
            l += e;
            if (acc)
                for (int c = 0; c < D; ++c) (*acc)[std::size_t(c)] += e * s->v[std::size_t(j * D + c)];
        }
        return std::make_pair(m, l);
    };
    const int blocks = (n + 2) / 3;
    double grewSomewhere = 0;
    for (int b = 0; b < blocks; ++b) {
        const TiledStep t = tiledStep(s->stages.masked, s->v, n, D, 3, b);
        QCOMPARE(t.blocks, blocks);
        QCOMPARE(t.keyBegin, 3 * b);
        QCOMPARE(t.keyEnd, std::min(n, 3 * b + 3));
        for (int i = 0; i < n; ++i) {
            std::vector<double> acc;
            const auto [m, l] = upTo(i, t.keyEnd, &acc);
            const auto [mBefore, lBefore] = upTo(i, t.keyBegin, nullptr);
            QCOMPARE(t.m[std::size_t(i)], m);
            QVERIFY(std::abs(t.l[std::size_t(i)] - l) < 1e-12 * std::max(1.0, l));
            for (int c = 0; c < D; ++c) QVERIFY(std::abs(t.acc[std::size_t(i * D + c)] - acc[std::size_t(c)]) < 1e-9);
            const double rescale = m == -inf ? 1.0 : (mBefore == -inf ? 0.0 : std::exp(mBefore - m));
            QVERIFY(std::abs(t.rescale[std::size_t(i)] - rescale) < 1e-15);
            if (b > 0 && lBefore > 0 && rescale < 1.0) ++grewSomewhere;
        }
        if (b + 1 == blocks) {
            QVERIFY(maxDiff(t.out, s->stages.output) < 1e-12);
            for (int i = 0; i < n; ++i) {
                const auto [m, l] = upTo(i, n, nullptr);
                QVERIFY(std::abs(t.lse[std::size_t(i)] - (m + std::log(l))) < 1e-12);
            }
        }
    }
    QVERIFY(grewSomewhere > 0);   // the head does rescale somewhere: the recurrence is exercised
}

// The stage in the view: the block's scores, m / l / rescale and Õ; stepping the blocks; the check at the last
// block; keys per block and the block in sessions; an input over the limit is said, not computed.
void TestPipeline::tiledStageInView()
{
    Fixture f(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he so ve pa va bo he"));
    f.run(PipelineSettings{});
    const int n = f.view->snapshot()->n;
    f.view->setStage(PipelineStage::Tiled);
    QCOMPARE(f.view->panels().size(), 3);
    QVERIFY(f.view->tiledStepShown());
    QCOMPARE(f.view->tiledStepShown()->keyEnd, (n + 3) / 4);   // default: four blocks
    QVERIFY2(f.view->panels().at(0)->matrix().title.contains(QStringLiteral("block 0 of 4")),
             qPrintable(f.view->panels().at(0)->matrix().title));
    QCOMPARE(f.view->panels().at(1)->matrix().cols, 3);
    QCOMPARE(f.view->panels().at(2)->matrix().cols, f.view->snapshot()->dHead);
    QVERIFY(!f.view->checkText().contains(QStringLiteral("✓")));
    f.view->setTileStep(2, 99);   // clamped to the last block
    QCOMPARE(f.view->tileBlock(), (n + 1) / 2 - 1);
    QVERIFY2(f.view->checkText().contains(QStringLiteral("✓")), qPrintable(f.view->checkText()));
    QVERIFY(f.view->panels().at(2)->matrix().title.startsWith(QStringLiteral("O = Õ / l")));
    QCOMPARE(*f.view->panels().at(2)->matrix().values, f.view->tiledStepShown()->out);
    f.view->setTileStep(2, 1);
    QCOMPARE(f.view->panels().at(0)->matrix().cols, 2);
    QCOMPARE(f.view->panels().at(0)->matrix().colLabels, f.view->snapshot()->tokens.mid(2, 2));
    const QJsonObject state = f.view->sessionState();
    QCOMPARE(state.value("tile_keys").toInt(), 2);
    QCOMPARE(state.value("tile_block").toInt(), 1);
    QCOMPARE(state.value("stage").toString(), QStringLiteral("tiled"));
    PipelineView other(&f.subject);
    QString error;
    QVERIFY2(other.restoreSessionState(state, &error), qPrintable(error));
    QVERIFY(other.runner()->waitForIdle());
    QCOMPARE(other.sessionState(), state);
    QCOMPARE(other.tiledStepShown()->keyBegin, 2);
    QVERIFY(!other.restoreSessionState(QJsonObject{{"tile_keys", 513}}, &error));
    QVERIFY2(error.startsWith(QStringLiteral("tile_keys:")), qPrintable(error));

    // Over the step-through's limit: said in the check line, no panel left showing an earlier stage's matrix.
    const QString spec = QStringLiteral("random:layers=1,heads=2,d_model=16,seed=3");
    QString words;
    for (int i = 0; i < 300; ++i) words += QStringLiteral("ab ");
    Fixture big(spec, words);
    big.run(PipelineSettings{});
    QVERIFY(big.view->snapshot()->n > PipelineView::kTiledMaxTokens);
    big.view->setStage(PipelineStage::Output);
    QCOMPARE(big.view->panels().size(), 3);
    big.view->setStage(PipelineStage::Tiled);
    QCOMPARE(big.view->panels().size(), 0);
    QVERIFY(!big.view->tiledStepShown());
    QVERIFY2(big.view->checkText().contains(QStringLiteral("up to 512 tokens")), qPrintable(big.view->checkText()));
}

// The toy: two tokens, d_model 2, d_k 1, numbers chosen so that every stage is worked out by hand, and a number
// typed into the table changes the stages.
void TestPipeline::toyByHand()
{
    Fixture f(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he"));
    f.run(PipelineSettings{});
    f.view->show();   // edits run after a debounce, and a hidden workspace holds its runs
    ToyHead t;
    t.n = 2, t.dModel = 2, t.dHead = 1;
    t.x = {1, 0,
           0, 2};
    t.wq = {1, 1};   // q = x0 + x1: q0 = 1, q1 = 2
    t.wk = {2, 0};   // k = 2·x0: k0 = 2, k1 = 0
    t.wv = {0, 1};   // v = x1: v0 = 0, v1 = 2
    f.view->setToy(t);
    QVERIFY(f.view->isToy());
    QVERIFY(f.view->runner()->waitForIdle());
    QTRY_VERIFY(f.view->snapshot() && f.view->snapshot()->toy);
    auto s = f.view->snapshot();
    QCOMPARE(s->q, (std::vector<double>{1, 2}));
    QCOMPARE(s->k, (std::vector<double>{2, 0}));
    QCOMPARE(s->v, (std::vector<double>{0, 2}));
    QCOMPARE(s->stages.dot, (std::vector<double>{2, 0, 4, 0}));   // S_ij = q_i k_j
    // d_k = 1: ÷√1 changes nothing; bidirectional: P_00 = e²/(e² + 1), P_10 = e⁴/(e⁴ + 1); Y_i = 2·P_i1.
    const double p00 = std::exp(2.0) / (std::exp(2.0) + 1), p10 = std::exp(4.0) / (std::exp(4.0) + 1);
    QVERIFY(std::abs(s->stages.weights[0] - p00) < 1e-12);
    QVERIFY(std::abs(s->stages.weights[2] - p10) < 1e-12);
    QVERIFY(std::abs(s->stages.output[0] - 2 * (1 - p00)) < 1e-12);
    QVERIFY(std::abs(s->stages.output[1] - 2 * (1 - p10)) < 1e-12);
    QVERIFY(s->maxErrWeights < 1e-6 && s->maxErrHeadOutputs < 1e-6);   // the engine agrees
    QVERIFY2(f.view->checkText().contains(QStringLiteral("✓")), qPrintable(f.view->checkText()));
    QVERIFY(f.view->figureCaption().contains(QStringLiteral("your toy head")));
    // Typing into W_K's table: k1 = 2·x1[0] + 3·x1[1] = 6, so S_01 = q0·k1 = 6.
    ToyEditor *editor = f.view->controls()->toyEditor();
    editor->matrixBox()->setCurrentIndex(2);
    QCOMPARE(editor->table()->rowCount(), 2);
    editor->table()->item(1, 0)->setText(QStringLiteral("3"));
    QTRY_VERIFY_WITH_TIMEOUT(f.view->snapshot()->k == (std::vector<double>{2, 6}), 5000);
    QCOMPARE(f.view->snapshot()->stages.dot[1], 6.0);
    // Not a number: the cell shows its value again, nothing runs.
    editor->table()->item(1, 0)->setText(QStringLiteral("abc"));
    QCOMPARE(editor->table()->item(1, 0)->text(), QStringLiteral("3"));
    // A larger toy keeps the numbers it had; off again, the model's head is back.
    editor->findChildren<QSpinBox *>().first()->setValue(3);
    QTRY_VERIFY_WITH_TIMEOUT(f.view->snapshot()->n == 3, 5000);
    QCOMPARE(f.view->snapshot()->x[0], 1.0);
    editor->setChecked(false);
    QTRY_VERIFY_WITH_TIMEOUT(!f.view->snapshot()->toy, 10000);
}

void TestPipeline::toySession()
{
    Fixture f(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he"));
    f.run(PipelineSettings{});
    f.view->setToy(ToyHead::example());
    const QJsonObject state = f.view->sessionState();
    QVERIFY(state.value(QStringLiteral("toy")).isObject());
    Fixture g(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he"));
    QString error;
    QVERIFY2(g.view->restoreSessionState(state, &error), qPrintable(error));
    QVERIFY(g.view->isToy());
    QCOMPARE(g.view->controls()->toyEditor()->toy(), ToyHead::example());
    QCOMPARE(g.view->sessionState(), state);
    // Bad toys are refused with the field named, and nothing changes.
    QJsonObject bad = state;
    QJsonObject toy = bad.value(QStringLiteral("toy")).toObject();
    toy.insert(QStringLiteral("n"), 9);
    bad.insert(QStringLiteral("toy"), toy);
    QVERIFY(!g.view->restoreSessionState(bad, &error));
    QVERIFY2(error.startsWith(QStringLiteral("toy: n")), qPrintable(error));
    toy.insert(QStringLiteral("n"), 3);
    toy.insert(QStringLiteral("w_q"), QJsonArray{1, 2});
    bad.insert(QStringLiteral("toy"), toy);
    QVERIFY(!g.view->restoreSessionState(bad, &error));
    QVERIFY2(error.contains(QStringLiteral("w_q")), qPrintable(error));
    QCOMPARE(g.view->sessionState(), state);
}

// The toy by mouse and with Q, K, V typed directly: a drag right over a cell of X adds kDragStep per kDragPixels
// (and Q follows as X·W_Q); typing into Q makes Q, K, V the head's own, worked out by hand; editing X computes them
// from X again; sessions keep the typed Q, K, V.
void TestPipeline::toyDragAndTypedQkv()
{
    Fixture f(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he"));
    f.run(PipelineSettings{});
    f.view->show();
    ToyHead t;
    t.n = 2, t.dModel = 2, t.dHead = 1;
    t.x = {1, 0,
           0, 2};
    t.wq = {1, 1};   // q = x0 + x1
    t.wk = {2, 0};   // k = 2·x0
    t.wv = {0, 1};   // v = x1
    f.view->setToy(t);
    QTRY_VERIFY_WITH_TIMEOUT(f.view->snapshot() && f.view->snapshot()->toy && f.view->snapshot()->q == (std::vector<double>{1, 2}), 5000);
    ToyEditor *editor = f.view->controls()->toyEditor();
    QTableWidget *table = editor->table();
    editor->matrixBox()->setCurrentIndex(ToyEditor::X);
    QVERIFY(QTest::qWaitForWindowExposed(table->window()));
    // Drag X[0][0] (1) five steps to the right: 1.5; q0 = 1.5 + 0 = 1.5.
    const QPoint cell = table->visualItemRect(table->item(0, 0)).center();
    QTest::mousePress(table->viewport(), Qt::LeftButton, {}, cell);
    QMouseEvent move(QEvent::MouseMove, QPointF(cell + QPoint(5 * ToyEditor::kDragPixels, 0)),
                     table->viewport()->mapToGlobal(QPointF(cell + QPoint(5 * ToyEditor::kDragPixels, 0))), Qt::NoButton,
                     Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(table->viewport(), &move);
    QTest::mouseRelease(table->viewport(), Qt::LeftButton, {}, cell + QPoint(5 * ToyEditor::kDragPixels, 0));
    QCOMPARE(editor->toy().x[0], 1.5);
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("1.5"));
    QTRY_VERIFY_WITH_TIMEOUT(f.view->snapshot()->q == (std::vector<double>{1.5, 2}), 5000);
    QVERIFY(!f.view->snapshot()->toyDirect);

    // Q shown as X·W_Q until a number is typed into it; then Q, K, V are typed: q = (3, 2), k = (2·1.5, 0) = (3, 0).
    editor->matrixBox()->setCurrentIndex(ToyEditor::Q);
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("1.5"));
    QVERIFY(editor->noteText().contains(QStringLiteral("X · W")));
    table->item(0, 0)->setText(QStringLiteral("3"));
    QVERIFY(editor->toy().direct);
    QTRY_VERIFY_WITH_TIMEOUT(f.view->snapshot()->toyDirect, 5000);
    auto s = f.view->snapshot();
    QCOMPARE(s->q, (std::vector<double>{3, 2}));
    QCOMPARE(s->k, (std::vector<double>{3, 0}));
    QCOMPARE(s->v, (std::vector<double>{0, 2}));
    QCOMPARE(s->stages.dot, (std::vector<double>{9, 0, 6, 0}));   // S_ij = q_i k_j
    // P_00 = e⁹/(e⁹ + 1) (d_k = 1: no scaling); Y_0 = 2·P_01.
    const double p00 = std::exp(9.0) / (std::exp(9.0) + 1);
    QVERIFY(std::abs(s->stages.weights[0] - p00) < 1e-12);
    QVERIFY(std::abs(s->stages.output[0] - 2 * (1 - p00)) < 1e-12);
    QVERIFY(s->maxErrWeights < 1e-6 && s->maxErrHeadOutputs < 1e-6);
    QVERIFY(editor->noteText().contains(QStringLiteral("typed directly")));

    // Sessions keep the typed Q, K, V; a state with only some of them is refused, naming them.
    const QJsonObject state = f.view->sessionState();
    QVERIFY(state.value(QStringLiteral("toy")).toObject().contains(QStringLiteral("q")));
    Fixture g(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he"));
    QString error;
    QVERIFY2(g.view->restoreSessionState(state, &error), qPrintable(error));
    QCOMPARE(g.view->controls()->toyEditor()->toy(), editor->toy());
    QCOMPARE(g.view->sessionState(), state);
    QJsonObject bad = state, badToy = state.value(QStringLiteral("toy")).toObject();
    badToy.remove(QStringLiteral("k"));
    bad.insert(QStringLiteral("toy"), badToy);
    QVERIFY(!g.view->restoreSessionState(bad, &error));
    QVERIFY2(error.startsWith(QStringLiteral("toy: q, k, v")), qPrintable(error));

    // Editing X again: Q, K, V are computed from X and the W's once more.
    editor->matrixBox()->setCurrentIndex(ToyEditor::X);
    table->item(1, 1)->setText(QStringLiteral("1"));
    QVERIFY(!editor->toy().direct);
    QTRY_VERIFY_WITH_TIMEOUT(!f.view->snapshot()->toyDirect, 5000);
    QCOMPARE(f.view->snapshot()->q, (std::vector<double>{1.5, 1}));
    QVERIFY(!f.view->sessionState().value(QStringLiteral("toy")).toObject().contains(QStringLiteral("q")));
}

// The luma (Rec. 601) of the pixel of `image` farthest from `background`'s: the label's text.
static double textLuma(const QImage &image, const QColor &background)
{
    const double bg = 0.299 * background.redF() + 0.587 * background.greenF() + 0.114 * background.blueF();
    double best = bg;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            const double l = 0.299 * c.redF() + 0.587 * c.greenF() + 0.114 * c.blueF();
            if (std::abs(l - bg) > std::abs(best - bg)) best = l;
        }
    return best;
}

void TestPipeline::stageLabelsFollowTheTheme()
{
    Fixture f(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he so ve pa"));
    f.view->resize(1200, 800);
    f.view->show();
    QVERIFY(QTest::qWaitForWindowExposed(f.view));
    QVERIFY(f.view->runner()->waitForIdle());
    f.view->setStage(PipelineStage::Dot);
    // Each theme in turn, switched while the view is on screen: the unchecked labels' text stands out from the
    // window (contrast ≥ 0.4 in luma), and the current one's text from the highlight.
    for (const Theme theme : {Theme::Dark, Theme::Light, Theme::Dark}) {
        applyTheme(theme);
        QCoreApplication::processEvents();
        const QPalette pal = QApplication::palette();
        QAbstractButton *other = f.view->stageButton(PipelineStage::Input);
        QAbstractButton *current = f.view->stageButton(PipelineStage::Dot);
        QVERIFY(current->isChecked() && !other->isChecked());
        const QColor window = pal.color(QPalette::Window), highlight = pal.color(QPalette::Highlight);
        const double windowLuma = 0.299 * window.redF() + 0.587 * window.greenF() + 0.114 * window.blueF();
        const double highlightLuma = 0.299 * highlight.redF() + 0.587 * highlight.greenF() + 0.114 * highlight.blueF();
        // Cut from a grab of the whole view, as it is on screen (a grab of the button alone polishes it anew and
        // hides the stale colours).
        const QImage view = f.view->grab().toImage();
        const auto cut = [&](QWidget *w) {
            const qreal dpr = view.devicePixelRatio();
            const QRect r(w->mapTo(f.view, QPoint(0, 0)), w->size());
            return view.copy(QRect((QPointF(r.topLeft()) * dpr).toPoint(), (QSizeF(r.size()) * dpr).toSize()));
        };
        const QImage otherImage = cut(other), currentImage = cut(current);
        const double otherText = textLuma(otherImage, window);
        QVERIFY2(std::abs(otherText - windowLuma) >= 0.4,
                 qPrintable(QStringLiteral("theme %1: label text luma %2 on window %3").arg(themeName(theme)).arg(otherText).arg(windowLuma)));
        // The checked label's background is the highlight; its text is the highlighted text colour.
        const QColor centre = currentImage.pixelColor(2, currentImage.height() / 2);
        QVERIFY2(std::abs(centre.red() - highlight.red()) + std::abs(centre.green() - highlight.green()) +
                         std::abs(centre.blue() - highlight.blue()) < 40,
                 qPrintable(QStringLiteral("theme %1: current label's background %2, highlight %3")
                                .arg(themeName(theme), centre.name(), highlight.name())));
        QVERIFY(std::abs(textLuma(currentImage, highlight) - highlightLuma) >= 0.4);
    }
    applyTheme(Theme::Light);
}

// What presentation clickers send (←/→, PageUp/PageDown) steps the stages wherever the focus is, and never
// moves a slider; in a number editor the arrows stay the editor's.
void TestPipeline::clickerKeysStepWhereverTheFocusIs()
{
    Fixture f(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he so ve"));
    f.run(PipelineSettings{});
    f.view->show();
    QApplication::setActiveWindow(f.view);
    QVERIFY(QTest::qWaitForWindowActive(f.view));
    f.view->setStage(PipelineStage::Dot);
    auto *slider = f.view->controls()->findChild<QSlider *>();
    QVERIFY(slider);
    slider->setFocus();
    QTRY_VERIFY(slider->hasFocus());
    const int value = slider->value();
    QTest::keyClick(slider, Qt::Key_Right);
    QCOMPARE(f.view->stage(), PipelineStage::Scale);
    QTest::keyClick(slider, Qt::Key_PageDown);
    QCOMPARE(f.view->stage(), PipelineStage::Mask);
    QTest::keyClick(slider, Qt::Key_PageUp);
    QCOMPARE(f.view->stage(), PipelineStage::Scale);
    QTest::keyClick(slider, Qt::Key_Left);
    QCOMPARE(f.view->stage(), PipelineStage::Dot);
    QCOMPARE(slider->value(), value);
    // A number editor keeps its arrows (they move its text cursor): the stage stays.
    QSpinBox *spin = nullptr;
    for (QSpinBox *s : f.view->findChildren<QSpinBox *>())
        if (s->isEnabled() && s->isVisible()) spin = s;
    QVERIFY(spin);
    spin->setFocus();
    QTRY_VERIFY(spin->hasFocus());
    QTest::keyClick(spin, Qt::Key_Right);
    QTest::keyClick(spin, Qt::Key_Left);
    QCOMPARE(f.view->stage(), PipelineStage::Dot);
}

void TestPipeline::tablesAndHeatmaps()
{
    Fixture f(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he so ve pa va"));
    f.run(PipelineSettings{});
    f.view->setStage(PipelineStage::Mask);
    MatrixPanel *m = f.view->panels().at(1);
    QVERIFY(m->showsTable());
    QCOMPARE(m->cellText(0, 1), QStringLiteral("−∞"));   // causal: the future is masked
    QCOMPARE(m->cellText(1, 0), QStringLiteral("0.00"));
    f.view->setStage(PipelineStage::Input);
    QCOMPARE(f.view->panels().at(0)->table()->model()->columnCount(), MatrixPanel::kMaxTableCols);   // of 64
    QVERIFY(f.view->figureWidget());
    // Layer 0, head 0: the caption says L0 H0, counting as the settings do.
    QVERIFY2(f.view->figureCaption().contains(QStringLiteral("L0 H0")), qPrintable(f.view->figureCaption()));

    f.subject.setText(QStringLiteral("bo he so ve pa va ro na ga mu ta zo bo he"));   // 14 tokens
    f.view->rerun();
    QVERIFY(f.view->runner()->waitForIdle());
    f.view->setStage(PipelineStage::Softmax);
    MatrixPanel *p = f.view->panels().at(1);
    QVERIFY(!p->showsTable());
    QCOMPARE(p->plot()->data().rows, 14);
    QCOMPARE(f.view->currentFigure(), p->plot());
    QVERIFY(std::isnan(p->plot()->cellValue(0, 5)));   // masked cells have no value
}

// The default export size makes room for all of the stage's tables: laid out at it, the matrices' scroll area
// hides nothing (at the size on screen, 1200 × 800, it scrolls: P and V stacked are taller than the window).
void TestPipeline::exportedFigureShowsEveryTable()
{
    Fixture f(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he so ve pa va ro na ga mu ta zo"));
    f.view->resize(1200, 800);
    f.view->show();
    QVERIFY(QTest::qWaitForWindowExposed(f.view));
    f.run(PipelineSettings{});
    f.view->setStage(PipelineStage::Output);   // P and V on the left, Y on the right: three 12-row tables
    QCoreApplication::processEvents();
    QWidget *figure = f.view->figureWidget();
    QVERIFY(figure);
    QScrollArea *area = nullptr;
    for (QScrollArea *a : figure->findChildren<QScrollArea *>())
        if (a->isVisibleTo(figure) && a->widgetResizable()) area = a;
    QVERIFY(area);
    const auto hides = [area] {
        const QSize need = area->widget()->sizeHint(), have = area->viewport()->size();
        return need.width() > have.width() || need.height() > have.height();
    };
    QVERIFY2(hides(), "the window was meant to be too small for the tables");
    const QString caption = f.view->figureCaption();
    const QSize size = defaultFigureSize(figure, caption);
    // As an export lays it out: the figure on its own at the size, less the caption line.
    QWidget *parent = figure->parentWidget();
    figure->setParent(nullptr);
    figure->resize(size.width(), size.height() - int(std::ceil(QFontMetricsF(figure->font()).height() * 1.8)));
    figure->show();
    QVERIFY(QTest::qWaitForWindowExposed(figure));
    QCoreApplication::processEvents();
    QVERIFY2(!hides(), qPrintable(QStringLiteral("content %1×%2, shown %3×%4")
                                      .arg(area->widget()->sizeHint().width()).arg(area->widget()->sizeHint().height())
                                      .arg(area->viewport()->width()).arg(area->viewport()->height())));
    figure->setParent(parent);   // back, to be deleted with the view
}

// The toy with d_k = 1 and two tokens, where every score function is a formula on four numbers: q = (1, 2),
// k = (2, 0). Dot: S_ij = q_i k_j. General: S_ij = q_i w k_j with the seeded 1 × 1 W. Additive (d_attn = d_k = 1):
// S_ij = v_a tanh(w_q q_i + w_k k_j) with the seeded W_a = [w_q | w_k] and v_a. None is scaled; T and M still apply.
void TestPipeline::scoreFunctionsByHand_data()
{
    QTest::addColumn<int>("function");
    QTest::addRow("dot") << int(attn::ScoreFunction::Dot);
    QTest::addRow("general") << int(attn::ScoreFunction::General);
    QTest::addRow("additive") << int(attn::ScoreFunction::Additive);
}

void TestPipeline::scoreFunctionsByHand()
{
    QFETCH(int, function);
    ToyHead t;
    t.n = 2, t.dModel = 2, t.dHead = 1;
    t.x = {1, 0, 0, 2};
    t.wq = {1, 1};   // q = (1, 2)
    t.wk = {2, 0};   // k = (2, 0)
    t.wv = {0, 1};   // v = (0, 2)
    PipelineSettings st;
    st.score = attn::ScoreFunction(function);
    st.scoreSeed = 11;
    st.temperature = 2.0;
    st.mask = PipelineSettings::Mask::Causal;
    auto r = runToyPipeline(t, st);
    QVERIFY2(r, r ? "" : r.status().message().c_str());
    const auto *s = static_cast<const PipelineSnapshot *>(r->get());
    const double q[2] = {1, 2}, k[2] = {2, 0};
    double S[4];
    const attn::ScoreParams params = attn::ScoreParams::random(st.score, 1, 1, 1, 11);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            switch (st.score) {
            case attn::ScoreFunction::Dot: S[i * 2 + j] = q[i] * k[j]; break;
            case attn::ScoreFunction::General: S[i * 2 + j] = q[i] * params.W.at(0, 0) * k[j]; break;
            default:
                S[i * 2 + j] = params.va[0] * std::tanh(params.Wa.at(0, 0) * q[i] + params.Wa.at(0, 1) * k[j]);
            }
        }
    if (st.score == attn::ScoreFunction::General) QVERIFY(params.W.at(0, 0) != 0.0);
    for (int c = 0; c < 4; ++c) QVERIFY2(std::abs(s->stages.dot[std::size_t(c)] - S[c]) < 1e-12, qPrintable(QString::number(c)));
    QCOMPARE(s->factor, 1.0);   // only the scaled dot product is scaled
    for (int c = 0; c < 4; ++c) QVERIFY(std::abs(s->stages.scaled[std::size_t(c)] - S[c] / 2.0) < 1e-12);
    // Causal: row 0 sees key 0 only; row 1: P_11 = 1 / (1 + e^((S_10 − S_11)/T)); y_1 = 2 P_11.
    QCOMPARE(s->stages.weights[0], 1.0);
    QCOMPARE(s->stages.weights[1], 0.0);
    const double p11 = 1.0 / (1.0 + std::exp((S[2] - S[3]) / 2.0));
    QVERIFY(std::abs(s->stages.weights[3] - p11) < 1e-12);
    QVERIFY(std::abs(s->stages.output[1] - 2.0 * p11) < 1e-12);
    // The check is the model's own scaled dot product, whatever is on screen.
    QVERIFY(s->maxErrWeights < 1e-6);
    if (st.score == attn::ScoreFunction::General) QCOMPARE(s->score.qW, (std::vector<double>{params.W.at(0, 0), 2 * params.W.at(0, 0)}));
    if (st.score == attn::ScoreFunction::Additive) {
        QCOMPARE(s->score.dAttn, 1);
        QVERIFY(std::abs(s->score.projK[0] - 2 * params.Wa.at(0, 1)) < 1e-15);
    }
}

// A real head: every score function against sums written out here over the head's captured q and k, the seeded
// parameters drawn again here; the heads stage uses the same function; the controls follow.
void TestPipeline::scoreFunctionsInView()
{
    Fixture f(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he so ve pa"));
    PipelineSettings st;
    st.layer = 1;
    st.head = 1;
    f.run(st);
    const auto exact = f.view->snapshot();
    const int n = exact->n, D = exact->dHead;
    for (attn::ScoreFunction fn : {attn::ScoreFunction::Dot, attn::ScoreFunction::General, attn::ScoreFunction::Additive}) {
        f.view->controls()->scoreBox()->setCurrentIndex(f.view->controls()->scoreBox()->findData(int(fn)));
        f.view->controls()->scoreSeedBox()->setValue(4);
        f.view->rerun();
        QVERIFY(f.view->runner()->waitForIdle());
        const auto s = f.view->snapshot();
        QCOMPARE(s->settings.score, fn);
        QVERIFY(!f.view->controls()->scaleBox()->isEnabled());
        const attn::ScoreParams params = attn::ScoreParams::random(fn, D, D, D, 4);
        double worst = 0.0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                double e = 0.0;
                if (fn == attn::ScoreFunction::Dot) {
                    for (int c = 0; c < D; ++c) e += s->q[std::size_t(i * D + c)] * s->k[std::size_t(j * D + c)];
                } else if (fn == attn::ScoreFunction::General) {
                    for (int a = 0; a < D; ++a)
                        for (int b = 0; b < D; ++b)
                            e += s->q[std::size_t(i * D + a)] * params.W.at(a, b) * s->k[std::size_t(j * D + b)];
                } else {
                    for (int a = 0; a < D; ++a) {
                        double h = 0.0;
                        for (int c = 0; c < D; ++c)
                            h += params.Wa.at(a, c) * s->q[std::size_t(i * D + c)] + params.Wa.at(a, D + c) * s->k[std::size_t(j * D + c)];
                        e += params.va[std::size_t(a)] * std::tanh(h);
                    }
                }
                worst = std::max(worst, std::abs(e - s->stages.dot[std::size_t(i * n + j)]));
            }
        QVERIFY2(worst < 1e-9, qPrintable(QString::number(worst)));
        QCOMPARE(s->factor, 1.0);
        QVERIFY(s->stages.dot != exact->stages.dot || fn == attn::ScoreFunction::Dot);
        // The heads stage runs the same function: this head's columns are its Y.
        const int H = s->heads;
        for (int i = 0; i < n; ++i)
            for (int c = 0; c < D; ++c)
                QCOMPARE(s->concat[std::size_t(i * H * D + st.head * D + c)], s->stages.output[std::size_t(i * D + c)]);
        // The dot stage shows the function's own intermediate matrices, and says what it is.
        f.view->setStage(PipelineStage::Dot);
        const QList<MatrixPanel *> panels = f.view->panels();
        QCOMPARE(panels.size(), 3);
        if (fn == attn::ScoreFunction::General) QVERIFY(panels[0]->matrix().title.startsWith(QStringLiteral("Q W")));
        if (fn == attn::ScoreFunction::Additive) {
            QVERIFY(panels[0]->matrix().title.startsWith(QStringLiteral("W_q q_i")));
            QCOMPARE(panels[1]->matrix().cols, D);
        }
        QCOMPARE(f.view->formulaText(), scoreFormula(fn));
        QVERIFY(f.view->checkText().contains(QStringLiteral("not the model's")));
        QVERIFY(s->maxErrWeights < 1e-5);   // the model's own setting still checked
        QVERIFY(f.view->figureCaption().contains(QStringLiteral("score ") + QString::fromStdString(attn::scoreFunctionName(fn))));
    }
    f.view->controls()->scoreBox()->setCurrentIndex(0);
    f.view->rerun();
    QVERIFY(f.view->runner()->waitForIdle());
    QVERIFY(f.view->controls()->scaleBox()->isEnabled());
    QCOMPARE(f.view->snapshot()->stages.weights, exact->stages.weights);
    QCOMPARE(f.view->formulaText(), stageFormula(PipelineStage::Dot));
}

// Dropout on the softmax stage: each weight kept exactly when the seed's uniform u_ij ≥ p (u drawn again here
// from seededUniform: bound · (2u − 1) with bound ½ is u − ½ exactly), the kept ones rescaled by 1/(1 − p), the Σ
// column the row sums; every stage after softmax stays exact.
void TestPipeline::dropoutOnTheSoftmaxStage()
{
    Fixture f(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he so ve pa va"));
    PipelineSettings st;
    f.run(st);
    const auto exact = f.view->snapshot();
    QVERIFY(!exact->dropout);
    f.view->setStage(PipelineStage::Softmax);
    QCOMPARE(f.view->panels().size(), 2);
    f.view->controls()->dropoutBox()->setValue(0.3);
    f.view->controls()->dropoutSeedBox()->setValue(9);
    f.view->rerun();
    QVERIFY(f.view->runner()->waitForIdle());
    const auto s = f.view->snapshot();
    QVERIFY(s->dropout);
    const DropoutStage &d = *s->dropout;
    QCOMPARE(d.p, 0.3);
    QCOMPARE(d.seed, std::uint64_t(9));
    const int n = s->n, W = n + 1;
    const attn::MatrixD u = attn::seededUniform(n, n, 0.5, 9);
    std::int64_t kept = 0, allowed = 0, dropped = 0;
    for (int i = 0; i < n; ++i) {
        double rowDropped = 0.0, rowRescaled = 0.0;
        for (int j = 0; j < n; ++j) {
            const double P = s->stages.weights[std::size_t(i * n + j)];
            const bool keep = u.at(i, j) + 0.5 >= 0.3;
            QCOMPARE(d.dropped[std::size_t(i * W + j)], keep ? P : 0.0);
            QVERIFY(std::abs(d.rescaled[std::size_t(i * W + j)] - (keep ? P / 0.7 : 0.0)) < 1e-15);
            QCOMPARE(std::isinf(d.keepBias[std::size_t(i * W + j)]), !keep || std::isinf(s->bias[std::size_t(i * n + j)]));
            rowDropped += d.dropped[std::size_t(i * W + j)];
            rowRescaled += d.rescaled[std::size_t(i * W + j)];
            if (P > 0.0) {
                ++allowed;
                kept += keep;
                dropped += !keep;
            }
        }
        QVERIFY(std::abs(d.dropped[std::size_t(i * W + n)] - rowDropped) < 1e-12);
        QVERIFY(std::abs(d.rescaled[std::size_t(i * W + n)] - rowRescaled) < 1e-12);
    }
    QCOMPARE(d.kept, kept);
    QCOMPARE(d.allowed, allowed);
    QVERIFY(dropped > 0 && d.minRowSum < 1.0);   // this seed drops something, so some row no longer sums to 1
    // Y and every other stage: exactly as without dropout.
    QCOMPARE(s->stages.weights, exact->stages.weights);
    QCOMPARE(s->stages.output, exact->stages.output);
    QCOMPARE(s->concat, exact->concat);
    QVERIFY(d.output != s->stages.output);   // what a training step's Y would have been
    // The stage shows P, the kept weights and the rescaled ones, each with its Σ column.
    QList<MatrixPanel *> panels = f.view->panels();
    QCOMPARE(panels.size(), 3);
    QCOMPARE(panels[1]->matrix().cols, n + 1);
    QCOMPARE(panels[2]->matrix().colLabels.last(), QStringLiteral("Σ"));
    QVERIFY2(f.view->checkText().contains(QStringLiteral("%1 of %2 weights kept").arg(kept).arg(allowed)),
             qPrintable(f.view->checkText()));
    QVERIFY(f.view->formulaText().contains(QStringLiteral("(1 − p)")));
    f.view->setStage(PipelineStage::Output);
    QCOMPARE(f.view->panels().at(0)->matrix().values.get(), &f.view->snapshot()->stages.weights);   // ·V uses P
    // Off again: two panels.
    f.view->controls()->dropoutBox()->setValue(0.0);
    f.view->rerun();
    QVERIFY(f.view->runner()->waitForIdle());
    QVERIFY(!f.view->snapshot()->dropout);
}

void TestPipeline::sessionRoundTrip()
{
    Fixture f(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he so ve"));
    PipelineSettings s;
    s.layer = 1;
    s.head = 3;
    s.scale = false;
    s.temperature = 0.5;
    s.mask = PipelineSettings::Mask::Window;
    s.window = 3;
    s.positional = PipelineSettings::Positional::None;
    s.score = attn::ScoreFunction::Additive;
    s.scoreSeed = 5;
    s.dropout = 0.35;
    s.dropoutSeed = 7;
    f.run(s);
    f.view->setStage(PipelineStage::Scale);
    const QJsonObject state = f.view->sessionState();

    PipelineView other(&f.subject);
    QString error;
    QVERIFY2(other.restoreSessionState(state, &error), qPrintable(error));
    QVERIFY(other.runner()->waitForIdle());
    QCOMPARE(other.sessionState(), state);
    QCOMPARE(other.stage(), PipelineStage::Scale);
    QCOMPARE(other.snapshot()->settings.temperature, 0.5);
    QVERIFY(!other.controls()->scaleBox()->isChecked());
    QCOMPARE(other.snapshot()->settings.score, attn::ScoreFunction::Additive);
    QCOMPARE(other.snapshot()->settings.scoreSeed, std::uint64_t(5));
    QCOMPARE(other.snapshot()->settings.dropout, 0.35);
    QCOMPARE(other.snapshot()->settings.dropoutSeed, std::uint64_t(7));
    QCOMPARE(other.controls()->scoreBox()->currentData().toInt(), int(attn::ScoreFunction::Additive));
    QCOMPARE(other.snapshot()->stages.dot, f.view->snapshot()->stages.dot);
    QVERIFY(other.restoreSessionState(QJsonObject{}, &error));   // empty: nothing changes
    QCOMPARE(other.sessionState(), state);
}

void TestPipeline::sessionErrors_data()
{
    QTest::addColumn<QJsonObject>("state");
    QTest::addColumn<QString>("field");
    QTest::addRow("layer out of range") << QJsonObject{{"layer", 5000}} << "layer";
    QTest::addRow("head negative") << QJsonObject{{"head", -1}} << "head";
    QTest::addRow("head not a number") << QJsonObject{{"head", "two"}} << "head";
    QTest::addRow("stage unknown") << QJsonObject{{"stage", "relu"}} << "stage";
    QTest::addRow("scale not bool") << QJsonObject{{"scale", 1}} << "scale";
    QTest::addRow("temperature 0") << QJsonObject{{"temperature", 0}} << "temperature";
    QTest::addRow("temperature text") << QJsonObject{{"temperature", "hot"}} << "temperature";
    QTest::addRow("mask unknown") << QJsonObject{{"mask", "diagonal"}} << "mask";
    QTest::addRow("window fraction") << QJsonObject{{"window", 1.5}} << "window";
    QTest::addRow("positional") << QJsonObject{{"positional", "rope"}} << "positional";
    QTest::addRow("score unknown") << QJsonObject{{"score", "cosine"}} << "score";
    QTest::addRow("score_seed negative") << QJsonObject{{"score_seed", -1}} << "score_seed";
    QTest::addRow("dropout 0.95") << QJsonObject{{"dropout", 0.95}} << "dropout";
    QTest::addRow("dropout text") << QJsonObject{{"dropout", "half"}} << "dropout";
    QTest::addRow("dropout_seed too large") << QJsonObject{{"dropout_seed", 10000000}} << "dropout_seed";
    QTest::addRow("unknown field") << QJsonObject{{"colour", "red"}} << "colour";
}

void TestPipeline::sessionErrors()
{
    QFETCH(QJsonObject, state);
    QFETCH(QString, field);
    Fixture f(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he"));
    f.run(PipelineSettings{});
    const QJsonObject before = f.view->sessionState();
    QString error;
    QVERIFY(!f.view->restoreSessionState(state, &error));
    QVERIFY2(error.startsWith(field + QLatin1Char(':')), qPrintable(error));
    QCOMPARE(f.view->sessionState(), before);   // a rejected state changes nothing
}

void TestPipeline::showView()
{
    Fixture f(QStringLiteral("sample:induction-gpt2"), QStringLiteral("bo he so"));
    QCOMPARE(f.view->viewPrefixes(), QStringList{QStringLiteral("pipeline")});
    QString error;
    QVERIFY2(f.view->showView(QStringLiteral("pipeline:1.2"), &error), qPrintable(error));
    QVERIFY(f.view->runner()->waitForIdle());
    QCOMPARE(f.view->snapshot()->settings.layer, 1);
    QCOMPARE(f.view->snapshot()->settings.head, 2);
    QCOMPARE(f.view->stage(), PipelineStage::Output);
    // The spec, the boxes and the caption all count from 0, over the model's 2 layers and 4 heads.
    QSpinBox *layer = test::spinBoxWithPrefix(f.view, QStringLiteral("layer "));
    QSpinBox *head = test::spinBoxWithPrefix(f.view, QStringLiteral("head "));
    QVERIFY(layer && head);
    QCOMPARE(layer->text(), QStringLiteral("layer 1"));
    QCOMPARE(head->text(), QStringLiteral("head 2"));
    QCOMPARE(layer->minimum(), 0);
    QCOMPARE(layer->maximum(), 1);
    QCOMPARE(head->maximum(), 3);
    QVERIFY2(f.view->figureCaption().contains(QStringLiteral("L1 H2")), qPrintable(f.view->figureCaption()));
    QCOMPARE(f.view->sessionState().value(QStringLiteral("layer")).toInt(), 1);
    QCOMPARE(f.view->sessionState().value(QStringLiteral("head")).toInt(), 2);
    // A person picks head 0 in the box: index 0.
    head->setValue(0);
    QCOMPARE(f.view->settings().head, 0);
    QVERIFY(!f.view->showView(QStringLiteral("pipeline:one"), &error));
    QVERIFY(error.contains(QStringLiteral("pipeline:LAYER.HEAD")));
    QVERIFY(!f.view->showView(QStringLiteral("pipeline:1.2:relu"), &error));
    QVERIFY2(error.contains(QStringLiteral("tiled")), qPrintable(error));
    QVERIFY2(f.view->showView(QStringLiteral("pipeline:1.0:tiled"), &error), qPrintable(error));
    QVERIFY(f.view->runner()->waitForIdle());
    QCOMPARE(f.view->stage(), PipelineStage::Tiled);
    QCOMPARE(f.view->panels().size(), 3);
    // A layer the model lacks is accepted (a session restores state before its model opens) and the run says why.
    QVERIFY(f.view->showView(QStringLiteral("pipeline:9.0"), &error));
    QVERIFY(f.view->runner()->waitForIdle());
    QVERIFY2(f.view->errorText().contains(QStringLiteral("layer: 9 is outside [0, 2)")), qPrintable(f.view->errorText()));
    QCOMPARE(f.view->snapshot()->settings.layer, 1);   // the last good result stays on screen
    // The model changes to one with fewer layers: the view falls back to layer 0.
    f.subject.setModel(openModel(QStringLiteral("random:layers=1,heads=2,d_model=16,seed=1")), QStringLiteral("random:layers=1,heads=2,d_model=16,seed=1"));
    QCOMPARE(f.view->settings().layer, 0);
    f.view->rerun();
    QVERIFY(f.view->runner()->waitForIdle());
    QVERIFY(f.view->errorText().isEmpty());
}

QTEST_MAIN(TestPipeline)
#include "tst_ui_pipeline.moc"
