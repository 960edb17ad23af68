// SPDX-License-Identifier: GPL-3.0-or-later
// The forward pass on the fixture and synthetic models: captures (weights of selected heads, scores, Q/K/V,
// hidden states), backends, interventions (zero/mean ablation, weight overrides, key knockout, dropped positions,
// mask override), permutation equivariance of synthetic models, progress and cancel.
#include <attnscope/attentionmap.h>
#include <attnscope/model.h>

#include "tst_model_support.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

using namespace attn;
using namespace attn::test;

class TestModelForward : public QObject {
    Q_OBJECT

private slots:
    void weightsAreDistributions()
    {
        auto model = Model::open(fixtureModel("gpt2-odd-d72h3").toStdString());
        QVERIFY(model.isOk());
        ForwardInput in = ids({3, 1, 4, 1, 5, 9, 2, 6});
        in.attentionMask = {1, 1, 1, 1, 1, 1, 0, 0};
        ForwardOptions opt;
        opt.weightsMode = WeightsRequest::Mode::All;
        opt.backend = Backend::Reference;
        auto r = model->forward(in, opt);
        QVERIFY2(r.isOk(), r.status().message().c_str());
        QCOMPARE(r->heads.size(), std::size_t(2 * 3));
        const std::int64_t L = 8;
        for (const CapturedHead &h : r->heads)
            for (std::int64_t i = 0; i < L; ++i) {
                double sum = 0.0;
                for (std::int64_t j = 0; j < L; ++j) {
                    const float p = h.weights[static_cast<std::size_t>(i * L + j)];
                    if (j > i || j >= 6) QCOMPARE(p, 0.0f);   // causal, and padding keys
                    sum += p;
                }
                QVERIFY(std::fabs(sum - 1.0) < 1e-5);
            }
    }

    void selectedHeadsMatchAll()
    {
        auto model = Model::open(fixtureModel("bert-base-d48h6").toStdString());
        QVERIFY(model.isOk());
        const ForwardInput in = ids({1, 7, 2, 9, 4, 4, 0});
        ForwardOptions all;
        all.weightsMode = WeightsRequest::Mode::All;
        ForwardOptions some;
        some.weightsMode = WeightsRequest::Mode::Heads;
        some.weightHeads = {{2, 5}, {0, 1}};
        auto a = model->forward(in, all);
        auto s = model->forward(in, some);
        QVERIFY2(a.isOk(), a.status().message().c_str());
        QVERIFY2(s.isOk(), s.status().message().c_str());
        QCOMPARE(s->heads.size(), std::size_t(2));
        QCOMPARE(s->heads[0].head, (HeadRef{2, 5}));
        // Equal up to rounding: a backend may take another (exact) weights path when every head is requested.
        QVERIFY(maxAbsDiff(s->heads[0].weights, a->heads[2 * 6 + 5].weights) < 1e-6f);
        QVERIFY(maxAbsDiff(s->heads[1].weights, a->heads[1].weights) < 1e-6f);
        QVERIFY(maxAbsDiff(s->lastHidden, a->lastHidden) < 1e-5f);
    }

    void backendsAgree()
    {
        auto model = Model::open(fixtureModel("gpt2-d40h5").toStdString());
        QVERIFY(model.isOk());
        const ForwardInput in = ids({5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55});
        ForwardOptions opt;
        opt.weightsMode = WeightsRequest::Mode::All;
        opt.backend = Backend::Reference;
        auto ref = model->forward(in, opt);
        QVERIFY(ref.isOk());
        for (Backend b : {Backend::Tiled, Backend::Unfused, Backend::Auto}) {
            opt.backend = b;
            auto r = model->forward(in, opt);
            if (!r.isOk() && r.status().code() != ErrorCode::InvalidArgument) {
                qWarning("backend %s: %s", backendName(b).c_str(), r.status().message().c_str());
                continue;   // a backend not built here; its own suites cover it
            }
            QVERIFY2(r.isOk(), r.status().message().c_str());
            for (std::size_t h = 0; h < r->heads.size(); ++h)
                QVERIFY2(maxAbsDiff(r->heads[h].weights, ref->heads[h].weights) < 1e-5f, backendName(b).c_str());
            QVERIFY2(maxAbsDiff(r->logits, ref->logits) < 1e-4f, backendName(b).c_str());
        }
    }

    void scoresAndQkvAreConsistent()
    {
        auto model = Model::open(fixtureModel("gpt2-tiny").toStdString());
        QVERIFY(model.isOk());
        const ForwardInput in = ids({1, 2, 3, 4, 5, 6});
        ForwardOptions opt;
        opt.weightsMode = WeightsRequest::Mode::Heads;
        opt.weightHeads = {{1, 3}};
        opt.captureScores = true;
        opt.captureQKV = true;
        opt.captureHiddenStates = true;
        auto r = model->forward(in, opt);
        QVERIFY2(r.isOk(), r.status().message().c_str());
        QCOMPARE(r->hiddenStates.size(), std::size_t(3));
        QCOMPARE(r->qkv.size(), std::size_t(2));
        const CapturedHead &h = r->heads[0];
        const std::int64_t L = 6, dh = 16;
        const Tensor &q = r->qkv[1].q, &k = r->qkv[1].k;
        QCOMPARE(q.shape, (Shape4{1, 4, L, dh}));
        for (std::int64_t i = 0; i < L; ++i) {
            double m = -INFINITY, z = 0.0;
            for (std::int64_t j = 0; j <= i; ++j) m = std::max(m, double(h.scores[i * L + j]));
            for (std::int64_t j = 0; j <= i; ++j) z += std::exp(h.scores[i * L + j] - m);
            for (std::int64_t j = 0; j < L; ++j) {
                if (j > i) {
                    QVERIFY(std::isinf(h.scores[i * L + j]) && h.scores[i * L + j] < 0);
                    continue;
                }
                double dot = 0.0;
                for (std::int64_t d = 0; d < dh; ++d) dot += double(q.view().at(0, 3, i, d)) * k.view().at(0, 3, j, d);
                QVERIFY(std::fabs(dot / 4.0 - h.scores[i * L + j]) < 1e-4);
                QVERIFY(std::fabs(std::exp(h.scores[i * L + j] - m) / z - h.weights[i * L + j]) < 1e-6);
            }
        }
    }

    // A forward stopped at a layer hands over that layer's operands: the exact weights and block masses computed
    // from them (attentionmap.h) equal what the whole forward's reference backend captured, on Gemma 2 (layer 0:
    // sliding window 4, soft-cap 4, grouped K/V, RoPE, query_pre_attn_scalar; layer 1: full) with padding.
    void stopAtLayerGivesTheLayersOperands()
    {
        auto model = Model::open(fixtureModel("gemma2-softcap").toStdString());
        QVERIFY(model.isOk());
        ForwardInput in = ids({5, 17, 3, 44, 9, 28, 60, 12, 7, 33, 21});
        in.attentionMask = {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0};
        const std::int64_t L = 11, H = 4;
        ForwardOptions full;
        full.backend = Backend::Reference;
        full.weightsMode = WeightsRequest::Mode::All;
        auto whole = model->forward(in, full);
        QVERIFY2(whole.isOk(), whole.status().message().c_str());
        for (std::int64_t layer : {0, 1}) {
            ForwardOptions stop;
            stop.stopAtLayer = layer;
            auto r = model->forward(in, stop);
            QVERIFY2(r.isOk(), r.status().message().c_str());
            const AttentionInputs &a = r->attentionInputs;
            QCOMPARE(a.layer, layer);
            QCOMPARE(a.heads, H);
            QCOMPARE(a.kvHeads, std::int64_t(2));
            QCOMPARE(a.softcap, 4.0f);
            QCOMPARE(a.scale, 1.0f / std::sqrt(20.0f));
            QVERIFY(r->logits.empty() && r->lastHidden.empty());
            for (std::int64_t h = 0; h < H; ++h) {
                AttentionMapOptions mo;
                mo.head = h;
                mo.grid = 3;
                mo.scale = a.scale;
                mo.softcap = a.softcap;
                auto window = attentionMapWindow(a.queries(), a.keys(), a.mask, nullptr, 0, L, 0, L, mo);
                QVERIFY2(window.isOk(), window.status().message().c_str());
                const std::vector<float> &P = whole->heads[static_cast<std::size_t>(layer * H + h)].weights;
                QVERIFY2(maxAbsDiff(window->P, P) < 2e-6f, qPrintable(QStringLiteral("layer %1 head %2").arg(layer).arg(h)));
                auto overview = attentionMapOverview(a.queries(), a.keys(), a.mask, mo);
                QVERIFY(overview.isOk());
                for (std::int64_t qa = 0; qa < 3; ++qa)
                    for (std::int64_t kb = 0; kb < 3; ++kb) {
                        double mass = 0.0;
                        for (std::int64_t i = overview->rowStart[qa]; i < overview->rowStart[qa + 1]; ++i)
                            for (std::int64_t j = overview->colStart[kb]; j < overview->colStart[kb + 1]; ++j) mass += P[i * L + j];
                        QVERIFY(std::fabs(overview->mass[qa * 3 + kb] - mass) < 1e-5);
                    }
            }
            // Layer 0's window: key 0 is outside the last real query's band (keys 5..8), so its weight is exactly 0.
            if (layer == 0) QCOMPARE(whole->heads[0].weights[8 * L + 0], 0.0f);
        }
        ForwardOptions bad;
        bad.stopAtLayer = 2;
        QVERIFY(!model->forward(in, bad).isOk());
        bad.stopAtLayer = 1;
        bad.weightsMode = WeightsRequest::Mode::Heads;
        bad.weightHeads = {{1, 0}};
        auto refused = model->forward(in, bad);
        QVERIFY(!refused.isOk());
        QVERIFY2(refused.status().message().find("layer 1") != std::string::npos, refused.status().message().c_str());
        bad.weightHeads = {{0, 3}};   // a layer before the stop still runs whole and is captured
        auto earlier = model->forward(in, bad);
        QVERIFY2(earlier.isOk(), earlier.status().message().c_str());
        QCOMPARE(earlier->heads.size(), std::size_t(1));
        QVERIFY(maxAbsDiff(earlier->heads[0].weights, whole->heads[3].weights) < 1e-5f);
    }

    void zeroAndMeanAblation()
    {
        auto model = Model::open(fixtureModel("bert-mlm").toStdString());
        QVERIFY(model.isOk());
        const ForwardInput in = ids({2, 30, 31, 32, 33, 3});
        ForwardOptions opt;
        opt.weightsMode = WeightsRequest::Mode::Heads;
        opt.weightHeads = {{0, 2}};
        auto base = model->forward(in, opt);
        opt.ablations = {{{0, 2}, HeadAblation::Kind::Zero, {}}};
        auto zero = model->forward(in, opt);
        QVERIFY(base.isOk() && zero.isOk());
        QVERIFY(std::all_of(zero->heads[0].weights.begin(), zero->heads[0].weights.end(), [](float p) { return p == 0.0f; }));
        QVERIFY(maxAbsDiff(base->logits, zero->logits) > 1e-3f);
        // Mean ablation with an explicit zero mean is zero ablation of the output.
        opt.ablations = {{{0, 2}, HeadAblation::Kind::Mean, std::vector<float>(12, 0.0f)}};
        auto meanZero = model->forward(in, opt);
        QVERIFY(meanZero.isOk());
        QCOMPARE(meanZero->logits, zero->logits);
        // Mean over the input: every position gets the same head output, so the result differs from both.
        opt.ablations = {{{0, 2}, HeadAblation::Kind::Mean, {}}};
        auto mean = model->forward(in, opt);
        QVERIFY(mean.isOk());
        QVERIFY(maxAbsDiff(mean->logits, zero->logits) > 1e-4f);
        QVERIFY(maxAbsDiff(mean->logits, base->logits) > 1e-4f);
    }

    void weightOverrides()
    {
        auto model = Model::open(fixtureModel("gpt2-tiny").toStdString());
        QVERIFY(model.isOk());
        const ForwardInput in = ids({9, 8, 7, 6, 5, 4, 3});
        const std::int64_t L = 7;
        ForwardOptions opt;
        opt.weightsMode = WeightsRequest::Mode::Heads;
        opt.weightHeads = {{0, 1}};
        auto base = model->forward(in, opt);
        opt.overrides = {{{0, 1}, HeadOverride::Kind::Uniform, 0}};
        auto uniform = model->forward(in, opt);
        opt.overrides = {{{0, 1}, HeadOverride::Kind::Permuted, 123}};
        auto permuted = model->forward(in, opt);
        QVERIFY(base.isOk() && uniform.isOk() && permuted.isOk());
        for (std::int64_t i = 0; i < L; ++i) {
            std::vector<float> a(base->heads[0].weights.begin() + i * L, base->heads[0].weights.begin() + (i + 1) * L);
            std::vector<float> p(permuted->heads[0].weights.begin() + i * L, permuted->heads[0].weights.begin() + (i + 1) * L);
            for (std::int64_t j = 0; j < L; ++j) {
                QCOMPARE(uniform->heads[0].weights[i * L + j], j <= i ? 1.0f / float(i + 1) : 0.0f);
                if (j > i) QCOMPARE(p[j], 0.0f);
            }
            std::sort(a.begin(), a.end());
            std::sort(p.begin(), p.end());
            QCOMPARE(p, a);
        }
        QVERIFY(maxAbsDiff(uniform->logits, base->logits) > 1e-4f);
        QVERIFY(maxAbsDiff(permuted->logits, base->logits) > 1e-4f);
        auto again = model->forward(in, opt);
        QCOMPARE(again->logits, permuted->logits);   // seeded
    }

    void keyKnockout()
    {
        auto model = Model::open(fixtureModel("bert-cls-d72h3").toStdString());
        QVERIFY(model.isOk());
        const ForwardInput in = ids({2, 11, 12, 13, 14, 3});
        ForwardOptions opt;
        opt.weightsMode = WeightsRequest::Mode::All;
        opt.knockouts = {{3, -1}, {1, 1}};
        auto r = model->forward(in, opt);
        QVERIFY2(r.isOk(), r.status().message().c_str());
        for (const CapturedHead &h : r->heads)
            for (std::int64_t i = 0; i < 6; ++i) {
                QCOMPARE(h.weights[i * 6 + 3], 0.0f);
                if (h.head.layer == 1) QCOMPARE(h.weights[i * 6 + 1], 0.0f);
                else QVERIFY(h.weights[i * 6 + 1] > 0.0f);
            }
        QCOMPARE(r->logits.size(), std::size_t(3));
    }

    void dropPositions()
    {
        auto model = Model::open(fixtureModel("gpt2-tiny").toStdString());
        QVERIFY(model.isOk());
        const ForwardInput in = ids({1, 2, 3});
        ForwardOptions opt;
        auto with = model->forward(in, opt);
        opt.dropPositions = true;
        auto without = model->forward(in, opt);
        QVERIFY(with.isOk() && without.isOk());
        QVERIFY(maxAbsDiff(with->logits, without->logits) > 1e-3f);
    }

    void syntheticEquivariance_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<bool>("dropPositions");
        QTest::addColumn<bool>("equivariant");
        QTest::addRow("pe=none") << "random:layers=2,heads=4,d_model=32,seed=7" << false << true;
        QTest::addRow("pe=sinusoidal") << "random:layers=2,heads=4,d_model=32,seed=7,pe=sinusoidal" << false << false;
        QTest::addRow("pe=sinusoidal dropped") << "random:layers=2,heads=4,d_model=32,seed=7,pe=sinusoidal" << true << true;
        QTest::addRow("pe=rope") << "random:layers=1,heads=2,d_model=16,seed=3,pe=rope" << false << false;
        QTest::addRow("pe=alibi") << "random:layers=1,heads=2,d_model=16,seed=3,pe=alibi" << false << false;
        QTest::addRow("causal") << "random:layers=1,heads=2,d_model=16,seed=3,causal=1" << false << false;
    }
    void syntheticEquivariance()
    {
        QFETCH(QString, spec);
        QFETCH(bool, dropPositions);
        QFETCH(bool, equivariant);
        auto model = Model::open(spec.toStdString());
        QVERIFY2(model.isOk(), model.status().message().c_str());
        const std::vector<std::int64_t> tokens{10, 200, 33, 47, 5, 90};
        const std::vector<std::int64_t> perm{3, 0, 5, 1, 4, 2};   // position p of the permuted input holds tokens[perm[p]]
        std::vector<std::int64_t> permuted;
        for (auto p : perm) permuted.push_back(tokens[static_cast<std::size_t>(p)]);
        ForwardOptions opt;
        opt.dropPositions = dropPositions;
        opt.weightsMode = WeightsRequest::Mode::All;
        auto a = model->forward(ids(tokens), opt);
        auto b = model->forward(ids(permuted), opt);
        QVERIFY(a.isOk() && b.isOk());
        const std::int64_t L = 6, D = model->config().dModel;
        float err = 0.0f;
        for (std::int64_t p = 0; p < L; ++p)
            for (std::int64_t d = 0; d < D; ++d)
                err = std::max(err, std::fabs(b->lastHidden[p * D + d] - a->lastHidden[perm[p] * D + d]));
        for (std::size_t h = 0; h < a->heads.size(); ++h)
            for (std::int64_t i = 0; i < L; ++i)
                for (std::int64_t j = 0; j < L; ++j)
                    err = std::max(err, std::fabs(b->heads[h].weights[i * L + j] - a->heads[h].weights[perm[i] * L + perm[j]]));
        if (equivariant) QVERIFY2(err < 1e-5f, qPrintable(QString::number(err)));
        else QVERIFY2(err > 1e-3f, qPrintable(QString::number(err)));
    }

    void syntheticIsDeterministicAndTakesEmbeddings()
    {
        auto a = Model::open("random:layers=1,heads=2,d_model=8,seed=5");
        auto b = Model::open("random:layers=1,heads=2,d_model=8,seed=5");
        auto c = Model::open("random:layers=1,heads=2,d_model=8,seed=6");
        QVERIFY(a.isOk() && b.isOk() && c.isOk());
        const ForwardInput in = ids({1, 2, 3});
        QCOMPARE(a->forward(in)->lastHidden, b->forward(in)->lastHidden);
        QVERIFY(maxAbsDiff(a->forward(in)->lastHidden, c->forward(in)->lastHidden) > 1e-3f);
        ForwardInput emb;
        emb.inputEmbeddings = ramp(5 * 8, 1.0f);
        auto r = a->forward(emb);
        QVERIFY2(r.isOk(), r.status().message().c_str());
        QCOMPARE(r->length, std::int64_t(5));
    }

    void progressAndCancel()
    {
        auto model = Model::open(fixtureModel("gpt2-d40h5").toStdString());
        QVERIFY(model.isOk());
        const ForwardInput in = ids({1, 2, 3, 4});
        ForwardOptions opt;
        std::vector<double> seen;
        opt.progress = [&](double f) { seen.push_back(f); };
        QVERIFY(model->forward(in, opt).isOk());
        QVERIFY(!seen.empty());
        QCOMPARE(seen.back(), 1.0);
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));

        std::atomic<int> polls{0};
        opt.progress = {};
        opt.cancel = [&] { return ++polls > 1; };
        auto r = model->forward(in, opt);
        QVERIFY(!r.isOk());
        QCOMPARE(r.status().code(), ErrorCode::Cancelled);
    }

    void concurrentForwardPasses()
    {
        // One Model shared by several threads (the UI runs analyses in parallel): results must not interfere.
        auto model = Model::open(fixtureModel("bert-cls-d72h3").toStdString());
        QVERIFY(model.isOk());
        const ForwardInput in = ids({2, 5, 6, 7, 8, 9, 10, 3});
        ForwardOptions opt;
        opt.weightsMode = WeightsRequest::Mode::All;
        opt.threads = 1;
        auto expected = model->forward(in, opt);
        QVERIFY(expected.isOk());
        std::vector<std::vector<float>> logits(4);
        std::vector<std::thread> threads;
        for (std::size_t t = 0; t < logits.size(); ++t)
            threads.emplace_back([&, t] {
                for (int rep = 0; rep < 5; ++rep) {
                    const Model copy = *model;   // copies share the weights
                    auto r = copy.forward(in, opt);
                    if (r.isOk()) logits[t] = r->logits;
                }
            });
        for (auto &th : threads) th.join();
        for (const auto &l : logits) QCOMPARE(l, expected->logits);
    }

    void maskOverride()
    {
        auto model = Model::open(fixtureModel("bert-base-d48h6").toStdString());
        QVERIFY(model.isOk());
        ForwardOptions opt;
        opt.weightsMode = WeightsRequest::Mode::Heads;
        opt.weightHeads = {{1, 1}};
        opt.maskOverride = MaskSpec::slidingWindow(1);
        auto r = model->forward(ids({1, 2, 3, 4, 5}), opt);
        QVERIFY2(r.isOk(), r.status().message().c_str());
        for (std::int64_t i = 0; i < 5; ++i)
            for (std::int64_t j = 0; j < 5; ++j)
                if (std::abs(i - j) > 1) QCOMPARE(r->heads[0].weights[i * 5 + j], 0.0f);
    }
};

QTEST_GUILESS_MAIN(TestModelForward)
#include "tst_model_forward.moc"
