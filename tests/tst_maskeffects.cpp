// SPDX-License-Identifier: GPL-3.0-or-later
// Masks' effects (maskeffects.h): the same Q, K, V under several masks against the fp64 reference, and the two
// properties the Masks workspace shows — a causal mask leaks nothing from token j to positions < j, and masked
// padding leaves the real tokens' outputs alone — over random models.

#include <attnscope/maskeffects.h>
#include <attnscope/reference.h>
#include <attnscope/textmodel.h>

#include "testsupport.h"

#include <QtTest>

#include <cmath>

using namespace attn;

class TestMaskEffects : public QObject {
    Q_OBJECT
private slots:
    void compareMasksMatchesReference();
    void identicalMasksHaveZeroDifference();
    void recomputedHeadMatchesCapture();
    void causalDoesNotLeak_data();
    void causalDoesNotLeak();
    void bidirectionalLeaks();
    void leakageOnWholeModels_data();
    void leakageOnWholeModels();
    void maskedPaddingLeavesRealTokens_data();
    void maskedPaddingLeavesRealTokens();
    void errorsNameTheField();
};

namespace {

constexpr std::int64_t kL = 11;
constexpr std::int64_t kD = 8;

struct Qkv {
    test::Operand q, k, v;
};

Qkv randomQkv(std::uint64_t seed)
{
    const Shape4 s{1, 1, kL, kD};
    return {test::makeOperand(s, test::Layout::BHLD, seed), test::makeOperand(s, test::Layout::BHLD, seed + 1),
            test::makeOperand(s, test::Layout::BHLD, seed + 2)};
}

std::vector<MaskVariant> someVariants()
{
    MaskSpec custom = MaskSpec::causalMask();
    custom.causal = false;
    custom.allowed.assign(std::size_t(kL * kL), 0);
    for (std::int64_t i = 0; i < kL; ++i)
        for (std::int64_t j = 0; j < kL; ++j) custom.allowed[std::size_t(i * kL + j)] = (i + j) % 3 != 1 || i == j;
    return {{"bidirectional", MaskSpec::bidirectional()},
            {"causal", MaskSpec::causalMask()},
            {"key padding", MaskSpec::keyPadding({kL - 3}, kL)},
            {"window 2", MaskSpec::slidingWindow(2)},
            {"custom", custom}};
}

ForwardInput randomTokens(std::int64_t L, std::uint64_t seed)
{
    test::Rng rng(seed);
    ForwardInput in;
    for (std::int64_t i = 0; i < L; ++i) in.tokenIds.push_back(rng.below(256));
    return in;
}

Model openModel(const std::string &spec)
{
    auto m = Model::open(spec);
    if (!m) qFatal("%s", m.status().message().c_str());
    return *m;
}

} // namespace

void TestMaskEffects::compareMasksMatchesReference()
{
    const Qkv t = randomQkv(11);
    const auto variants = someVariants();
    auto cmp = compareMasks(t.q.view(), t.k.view(), t.v.view(), variants, 1);
    QVERIFY2(cmp, cmp.status().message().c_str());
    QCOMPARE(cmp->variants.size(), variants.size());
    QCOMPARE(cmp->length, kL);

    // Expected numbers from the fp64 oracle, per mask; differences and norms computed here from those.
    std::vector<ReferenceOutput> ref;
    for (const MaskVariant &m : variants) {
        ReferenceOptions ro;
        ro.keepWeights = true;
        auto r = referenceAttention(t.q.view(), t.k.view(), t.v.view(), m.mask, ro);
        QVERIFY(r);
        ref.push_back(*r);
    }
    for (std::size_t m = 0; m < variants.size(); ++m) {
        const HeadUnderMask &h = cmp->variants[m];
        QCOMPARE(h.name, variants[m].name);
        for (std::int64_t e = 0; e < kL * kL; ++e) {
            const std::size_t ue = std::size_t(e);
            QVERIFY(std::abs(h.weights[ue] - ref[m].P[ue]) <= 2e-6);
            QVERIFY(std::abs(h.weightDiff[ue] - (ref[m].P[ue] - ref[1].P[ue])) <= 4e-6);
            QCOMPARE(bool(h.blocked[ue]), std::isinf(ref[m].scores[ue]));
            if (h.blocked[ue]) QCOMPARE(h.weights[ue], 0.0f);
        }
        double maxDelta = 0.0;
        for (std::int64_t i = 0; i < kL; ++i) {
            double s = 0.0;
            for (std::int64_t c = 0; c < kD; ++c) {
                const std::size_t e = std::size_t(i * kD + c);
                QVERIFY(std::abs(h.output[e] - ref[m].out[e]) <= 2e-6);
                s += (ref[m].out[e] - ref[1].out[e]) * (ref[m].out[e] - ref[1].out[e]);
            }
            QVERIFY(std::abs(h.outputDelta[std::size_t(i)] - std::sqrt(s)) <= 1e-5);
            maxDelta = std::max(maxDelta, std::sqrt(s));
        }
        QVERIFY(std::abs(h.maxOutputDelta - maxDelta) <= 1e-5);
    }
    // The first query sees only itself under causal, and itself is allowed everywhere here: row 0 of the
    // bidirectional−causal difference is (P_00 − 1, P_01, …).
    QVERIFY(cmp->variants[0].maxAbsWeightDiff > 1e-3);
}

void TestMaskEffects::identicalMasksHaveZeroDifference()
{
    const Qkv t = randomQkv(23);
    auto cmp = compareMasks(t.q.view(), t.k.view(), t.v.view(),
                            {{"causal", MaskSpec::causalMask()}, {"causal again", MaskSpec::causalMask()}}, 0);
    QVERIFY(cmp);
    for (const HeadUnderMask &h : cmp->variants) {
        QCOMPARE(h.maxAbsWeightDiff, 0.0);
        QCOMPARE(h.maxOutputDelta, 0.0);
        for (float d : h.weightDiff) QCOMPARE(d, 0.0f);
    }
}

void TestMaskEffects::recomputedHeadMatchesCapture()
{
    // The workspace recomputes a head from captured Q, K, V with the model's scale and mask: under the model's
    // own mask that must give the weights the forward pass used.
    for (const char *spec : {"random:layers=2,heads=4,d_model=32,seed=5,causal=1",
                             "random:layers=2,heads=2,d_model=16,seed=9,pe=sinusoidal"}) {
        const Model model = openModel(spec);
        ForwardOptions fo;
        fo.captureQKV = true;
        fo.weightsMode = WeightsRequest::Mode::Heads;
        fo.weightHeads = {{1, 1}};
        auto run = model.forward(randomTokens(9, 3), fo);
        QVERIFY(run);
        AttentionOptions ao;
        ao.scale = modelAttentionScale(model.config(), 1);
        const LayerQKV &qkv = run->qkv[1];
        auto cmp = compareMasks(headSlice(qkv.q, 1), headSlice(qkv.k, 1), headSlice(qkv.v, 1),
                                {{"model", modelMaskStructure(model.config(), 1)}}, 0, ao);
        QVERIFY(cmp);
        const auto &captured = run->heads.front().weights;
        for (std::size_t e = 0; e < captured.size(); ++e) QVERIFY(std::abs(cmp->variants[0].weights[e] - captured[e]) <= 1e-6);
    }
    // Gemma 2 (transformers fixture): layer 0 slides with W = 4, scores scale by query_pre_attn_scalar^-½ and are
    // soft-capped at 4. T = 9 > W, so the window bites; without the cap layer 0 is off by 0.14.
    const Model gemma = openModel(ATTNSCOPE_TEST_DATA_DIR "/fixtures/models/gemma2-softcap");
    QCOMPARE(layerWindow(gemma.config(), 0), std::int64_t(4));
    ForwardInput in;
    for (std::int64_t i = 0; i < 9; ++i) in.tokenIds.push_back((i * 7 + 3) % gemma.config().vocabSize);
    for (std::int64_t layer : {0, 1}) {
        ForwardOptions fo;
        fo.captureQKV = true;
        fo.weightsMode = WeightsRequest::Mode::Heads;
        fo.weightHeads = {{layer, 3}};
        auto run = gemma.forward(in, fo);
        QVERIFY(run);
        AttentionOptions ao;
        ao.scale = modelAttentionScale(gemma.config(), layer);
        ao.softcap = gemma.config().attnSoftcap;
        const LayerQKV &qkv = run->qkv[std::size_t(layer)];
        auto cmp = compareMasks(headSlice(qkv.q, 3), headSlice(qkv.k, 3), headSlice(qkv.v, 3),
                                {{"model", modelMaskStructure(gemma.config(), layer)}}, 0, ao);
        QVERIFY(cmp);
        const auto &captured = run->heads.front().weights;
        double worst = 0;
        for (std::size_t e = 0; e < captured.size(); ++e) worst = std::max(worst, double(std::abs(cmp->variants[0].weights[e] - captured[e])));
        QVERIFY2(worst <= 1e-6, qPrintable(QStringLiteral("layer %1: %2").arg(layer).arg(worst)));
    }
}

void TestMaskEffects::causalDoesNotLeak_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<int>("length");
    QTest::addColumn<int>("position");
    QTest::addColumn<int>("backend");
    QTest::addRow("1 layer, j=5, auto") << "random:layers=1,heads=4,d_model=32,seed=1" << 9 << 5 << int(Backend::Auto);
    QTest::addRow("2 layers, j=1, reference") << "random:layers=2,heads=2,d_model=16,seed=2" << 7 << 1 << int(Backend::Reference);
    QTest::addRow("3 layers sinusoidal, j=12, tiled") << "random:layers=3,heads=4,d_model=64,seed=3,pe=sinusoidal" << 20 << 12 << int(Backend::Tiled);
    QTest::addRow("2 layers rope, j=96, auto") << "random:layers=2,heads=8,d_model=64,seed=4,pe=rope" << 97 << 96 << int(Backend::Auto);
    QTest::addRow("2 layers alibi, j=0, tiled") << "random:layers=2,heads=4,d_model=32,seed=5,pe=alibi" << 13 << 0 << int(Backend::Tiled);
}

void TestMaskEffects::causalDoesNotLeak()
{
    QFETCH(QString, spec);
    QFETCH(int, length);
    QFETCH(int, position);
    QFETCH(int, backend);
    const Model model = openModel(spec.toStdString());
    const ForwardInput in = randomTokens(length, std::uint64_t(length * 31 + position));
    ForwardOptions fo;
    fo.backend = Backend(backend);
    auto r = leakageTest(model, in, position, -1, MaskSpec::causalMask(), fo);
    QVERIFY2(r, r.status().message().c_str());
    QCOMPARE(r->position, std::int64_t(position));
    QVERIFY(r->replacementId != r->originalId);
    QVERIFY2(r->maxDiffBefore <= 1e-6, qPrintable(QString::number(r->maxDiffBefore)));
    QVERIFY(r->maxDiffFromJ > 1e-3);   // token j itself changes
    // The reported per-position numbers are what two plain forward passes give (independent of the helper).
    ForwardOptions plain;
    plain.backend = Backend::Reference;
    plain.maskOverride = MaskSpec::causalMask();
    ForwardInput p = in;
    p.tokenIds[std::size_t(position)] = r->replacementId;
    auto a = model.forward(in, plain), b = model.forward(p, plain);
    QVERIFY(a && b);
    const std::int64_t D = model.config().dModel;
    for (std::int64_t i = 0; i < length; ++i) {
        double m = 0.0;
        for (std::int64_t c = 0; c < D; ++c)
            m = std::max(m, std::abs(double(a->lastHidden[std::size_t(i * D + c)]) - b->lastHidden[std::size_t(i * D + c)]));
        if (i < position) QVERIFY(m <= 1e-6);
        QVERIFY(std::abs(m - r->maxDiff[std::size_t(i)]) <= 1e-4 + 1e-3 * m);
    }
}

void TestMaskEffects::bidirectionalLeaks()
{
    for (const char *spec : {"random:layers=1,heads=4,d_model=32,seed=1", "random:layers=2,heads=4,d_model=32,seed=8,causal=1"}) {
        const Model model = openModel(spec);
        auto r = leakageTest(model, randomTokens(10, 4), 6, 65, MaskSpec::bidirectional());
        QVERIFY(r);
        QCOMPARE(r->replacementId, std::int64_t(65));
        QVERIFY2(r->maxDiffBefore > 1e-3, qPrintable(QString::number(r->maxDiffBefore)));
    }
}

// Trained and random models through TextModel specs (a sample's own mask is causal), the replacement one id up.
void TestMaskEffects::leakageOnWholeModels_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<int>("length");
    QTest::addColumn<int>("position");
    QTest::addRow("random causal j=5") << "random:layers=2,heads=4,d_model=64,seed=7" << true << 12 << 5;
    QTest::addRow("random causal rope j=1") << "random:layers=3,heads=2,d_model=32,seed=1,pe=rope" << true << 30 << 1;
    QTest::addRow("random causal j=last") << "random:layers=1,heads=1,d_model=8,seed=3" << true << 9 << 8;
    QTest::addRow("random bidirectional j=5") << "random:layers=2,heads=4,d_model=64,seed=7" << false << 12 << 5;
    QTest::addRow("gpt2 causal j=4") << "sample:induction-gpt2" << true << 10 << 4;
    QTest::addRow("gpt2 forced bidirectional j=4") << "sample:induction-gpt2" << false << 10 << 4;
}

void TestMaskEffects::leakageOnWholeModels()
{
    QFETCH(QString, spec);
    QFETCH(bool, causal);
    QFETCH(int, length);
    QFETCH(int, position);
    auto m = attn::TextModel::open(spec.toStdString());
    QVERIFY2(m, m ? "" : m.status().message().c_str());
    ForwardInput in;
    for (int i = 0; i < length; ++i) in.tokenIds.push_back(10 + (i * 13) % 40);
    const std::int64_t replacement = in.tokenIds[std::size_t(position)] + 1;
    auto r = leakageTest(m->model(), in, position, replacement, causal ? MaskSpec::causalMask() : MaskSpec::bidirectional());
    QVERIFY2(r, r ? "" : r.status().message().c_str());
    QCOMPARE(r->replacementId, replacement);
    QVERIFY(r->maxDiffFromJ > 1e-4);   // the perturbed token itself changes
    if (causal) QVERIFY2(r->maxDiffBefore <= 1e-6, qPrintable(QString::number(r->maxDiffBefore)));
    else QVERIFY2(r->maxDiffBefore > 1e-4, qPrintable(QString::number(r->maxDiffBefore)));
}

void TestMaskEffects::maskedPaddingLeavesRealTokens_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<int>("pads");
    QTest::addRow("1 layer, 3 pads") << "random:layers=1,heads=4,d_model=32,seed=1" << 3;
    QTest::addRow("2 layers sinusoidal, 1 pad") << "random:layers=2,heads=2,d_model=16,seed=6,pe=sinusoidal" << 1;
    QTest::addRow("2 layers rope, 17 pads") << "random:layers=2,heads=4,d_model=32,seed=7,pe=rope" << 17;
}

void TestMaskEffects::maskedPaddingLeavesRealTokens()
{
    QFETCH(QString, spec);
    QFETCH(int, pads);
    const Model model = openModel(spec.toStdString());
    const ForwardInput in = randomTokens(8, 77);
    auto r = paddingTest(model, in, pads, -1, MaskSpec::bidirectional());
    QVERIFY2(r, r.status().message().c_str());
    QCOMPARE(r->realLength, std::int64_t(8));
    QCOMPARE(r->maxDiffMasked.size(), std::size_t(8));
    QVERIFY2(r->maxMasked <= 1e-6, qPrintable(QString::number(r->maxMasked)));
    QVERIFY2(r->maxUnmasked > 1e-3, qPrintable(QString::number(r->maxUnmasked)));
    // Under a causal mask, padding after the text cannot reach it, masked or not.
    auto c = paddingTest(model, in, pads, -1, MaskSpec::causalMask());
    QVERIFY(c);
    QVERIFY(c->maxMasked <= 1e-6 && c->maxUnmasked <= 1e-6);
}

void TestMaskEffects::errorsNameTheField()
{
    const Qkv t = randomQkv(5);
    auto badBase = compareMasks(t.q.view(), t.k.view(), t.v.view(), {{"causal", MaskSpec::causalMask()}}, 3);
    QVERIFY(!badBase);
    QVERIFY(badBase.status().message().find("baseline") != std::string::npos);
    MaskSpec wrong;
    wrong.allowed.assign(5, 1);
    auto badMask = compareMasks(t.q.view(), t.k.view(), t.v.view(), {{"mine", wrong}}, 0);
    QVERIFY(!badMask);
    QVERIFY(badMask.status().message().find("mine") != std::string::npos);

    const Model model = openModel("random:layers=1,heads=2,d_model=16,seed=1");
    auto badPos = leakageTest(model, randomTokens(4, 1), 4, -1, MaskSpec::causalMask());
    QVERIFY(!badPos);
    QVERIFY(badPos.status().message().find("position 4") != std::string::npos);
    auto badId = leakageTest(model, randomTokens(4, 1), 1, 999, MaskSpec::causalMask());
    QVERIFY(!badId);
    QVERIFY(badId.status().message().find("replacement id") != std::string::npos);
    auto badPads = paddingTest(model, randomTokens(4, 1), 0, -1, MaskSpec::bidirectional());
    QVERIFY(!badPads);
    QVERIFY(badPads.status().message().find("pad count") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestMaskEffects)
#include "tst_maskeffects.moc"
