// SPDX-License-Identifier: GPL-3.0-or-later
// Attention variants (variants.h, approximate.h): hand-computed scoring cases, the dot forms against the engine's
// fp64 oracle (attn::attention, Backend::Reference), the RNN-era step, dropout's expectation over fixed seeds with
// a Hoeffding bound, each approximation's error shrinking as its parameter grows (exactly 0 once a pattern covers
// every key), the kernel forms' linear-time evaluation against their implied weights, and hand-counted FLOPs.

#include "testsupport.h"

#include <attnscope/approximate.h>
#include <attnscope/attention.h>
#include <attnscope/variants.h>

#include <QtTest>

#include <cmath>

using namespace attn;

namespace {

QByteArray msg(const std::string &s) { return QByteArray::fromStdString(s); }

MatrixD matrix(std::int64_t rows, std::int64_t cols, std::vector<double> v)
{
    MatrixD m(rows, cols);
    m.values = std::move(v);
    return m;
}

// Inputs from the test's own generator, rounded to float so the fp32 oracle sees the same numbers.
MatrixD randomMatrix(std::int64_t rows, std::int64_t cols, std::uint64_t seed, float amp = 1.0f)
{
    const std::vector<float> f = test::randomNormal(static_cast<std::size_t>(rows * cols), seed, amp);
    return matrix(rows, cols, std::vector<double>(f.begin(), f.end()));
}

double maxAbsDiff(const std::vector<double> &a, const std::vector<double> &b)
{
    double m = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
    return m;
}

// softmax of one row, written out independently of the code under test.
std::vector<double> softmax(std::vector<double> s)
{
    double m = -INFINITY, sum = 0.0;
    for (const double v : s) m = std::max(m, v);
    for (double &v : s) sum += (v = std::exp(v - m));
    for (double &v : s) v /= sum;
    return s;
}

AttentionOutput referenceAttention(const MatrixD &Q, const MatrixD &K, const MatrixD &V, const MaskSpec &mask,
                                   float scale, std::vector<float> &storage)
{
    storage.clear();
    for (const MatrixD *m : {&Q, &K, &V}) storage.insert(storage.end(), m->values.begin(), m->values.end());
    const float *q = storage.data(), *k = q + Q.values.size(), *v = k + K.values.size();
    AttentionOptions o;
    o.backend = Backend::Reference;
    o.scale = scale;
    o.weights = WeightsRequest::all();
    auto r = attention(TensorView(q, {1, 1, Q.rows, Q.cols}), TensorView(k, {1, 1, K.rows, K.cols}),
                       TensorView(v, {1, 1, V.rows, V.cols}), mask, o);
    return r.isOk() ? std::move(*r) : AttentionOutput{};
}

struct ScoringCase {
    ScoreFunction f = ScoreFunction::Dot;
    MatrixD Q, K, V;
    ScoreParams params;
    ScoringOptions options;
    std::vector<double> raw, weights, output;   // expected, worked out below
};

} // namespace

Q_DECLARE_METATYPE(ScoringCase)
Q_DECLARE_METATYPE(ApproxSpec)

class TestVariants : public QObject {
    Q_OBJECT

private slots:
    void scoringKnownAnswers_data();
    void scoringKnownAnswers();
    void dotFormsMatchReference_data();
    void dotFormsMatchReference();
    void generalWithIdentityIsDot();
    void additiveHiddenStage();
    void scoringErrors();
    void seededStreamKnownAnswer();
    void rnnStep();
    void dropoutView();
    void dropoutExpectation_data();
    void dropoutExpectation();
    void patternGrowsToExact_data();
    void patternGrowsToExact();
    void patternTvdIsMassOutside();
    void exactMatchesReference_data();
    void exactMatchesReference();
    void linearEluKnownAnswer();
    void kernelFormsAreConsistent_data();
    void kernelFormsAreConsistent();
    void randomFeaturesConverge();
    void costsHandCounted();
    void patternCountsMatchPattern_data();
    void patternCountsMatchPattern();
    void approximationErrors();
};

void TestVariants::scoringKnownAnswers_data()
{
    QTest::addColumn<ScoringCase>("c");
    const double e = std::exp(1.0);
    const MatrixD V = matrix(2, 2, {1, 2, 3, 4});
    const auto out = [&](double a) { return std::vector<double>{a * 1 + (1 - a) * 3, a * 2 + (1 - a) * 4}; };
    {   // q = (1, 0), k = (1, 0), (0, 1): scores 1, 0; P = (e, 1)/(e + 1).
        ScoringCase c{ScoreFunction::Dot, matrix(1, 2, {1, 0}), matrix(2, 2, {1, 0, 0, 1}), V, {}, {}, {1, 0}, {}, {}};
        c.weights = {e / (e + 1), 1 / (e + 1)};
        c.output = out(e / (e + 1));
        QTest::newRow("dot") << c;
    }
    {   // d = 4, q = k1 = (1, 1, 1, 1): q·k1 = 4, scaled by 1/√4 to 2; k2 = 0 → 0. P = (e², 1)/(e² + 1).
        ScoringCase c{ScoreFunction::ScaledDot, matrix(1, 4, {1, 1, 1, 1}), matrix(2, 4, {1, 1, 1, 1, 0, 0, 0, 0}), V,
                      {}, {}, {4, 0}, {}, {}};
        c.weights = {e * e / (e * e + 1), 1 / (e * e + 1)};
        c.output = out(e * e / (e * e + 1));
        QTest::newRow("scaled dot") << c;
    }
    {   // q = (1, 2), W = [[0, 1], [1, 0]]: qᵀW = (2, 1); k1 = (3, 0) → 6, k2 = (0, 1) → 1. P = (e⁵, 1)/(e⁵ + 1).
        ScoringCase c{ScoreFunction::General, matrix(1, 2, {1, 2}), matrix(2, 2, {3, 0, 0, 1}), V, {}, {}, {6, 1}, {},
                      {}};
        c.params.W = matrix(2, 2, {0, 1, 1, 0});
        const double a = std::exp(5.0) / (std::exp(5.0) + 1);
        c.weights = {a, 1 - a};
        c.output = out(a);
        QTest::newRow("general") << c;
    }
    {   // dq = dk = 1, dAttn = 2, Wa = [[1, −1], [0.5, 0.5]], va = (1, 2), q = 1:
        //   k1 = 0: tanh(1·1 − 1·0) = tanh 1, tanh(0.5 + 0) = tanh 0.5      → s1 = tanh 1 + 2 tanh 0.5
        //   k2 = 2: tanh(1 − 2) = −tanh 1,     tanh(0.5 + 1) = tanh 1.5     → s2 = −tanh 1 + 2 tanh 1.5
        const double s1 = std::tanh(1.0) + 2 * std::tanh(0.5), s2 = -std::tanh(1.0) + 2 * std::tanh(1.5);
        ScoringCase c{ScoreFunction::Additive, matrix(1, 1, {1}), matrix(2, 1, {0, 2}), V, {}, {}, {s1, s2}, {}, {}};
        c.params.Wa = matrix(2, 2, {1, -1, 0.5, 0.5});
        c.params.va = {1, 2};
        c.weights = softmax({s1, s2});
        c.output = out(c.weights[0]);
        QTest::newRow("additive") << c;
    }
    {   // Causal, two queries: row 0 sees key 0 only (P = 1, 0; Y = v0); row 1 as "dot" with q = (0, 0): uniform.
        ScoringCase c{ScoreFunction::Dot, matrix(2, 2, {5, 5, 0, 0}), matrix(2, 2, {1, 0, 0, 1}), V, {}, {},
                      {5, 5, 0, 0}, {1, 0, 0.5, 0.5}, {1, 2, 2, 3}};
        c.options.mask = MaskSpec::causalMask();
        QTest::newRow("dot causal") << c;
    }
    {   // Every key masked for the only query: weights 0, output 0, never NaN.
        ScoringCase c{ScoreFunction::ScaledDot, matrix(1, 2, {1, 0}), matrix(2, 2, {1, 0, 0, 1}), V, {}, {}, {1, 0},
                      {0, 0}, {0, 0}};
        c.options.mask.keyValid = {0, 0};
        QTest::newRow("fully masked row") << c;
    }
}

void TestVariants::scoringKnownAnswers()
{
    QFETCH(ScoringCase, c);
    auto t = scoreAttention(c.Q, c.K, c.V, c.f, c.params, c.options);
    QVERIFY2(t.isOk(), msg(t.status().message()));
    QVERIFY(maxAbsDiff(t->raw.values, c.raw) <= 1e-12);
    QVERIFY(maxAbsDiff(t->weights.values, c.weights) <= 1e-12);
    QVERIFY(maxAbsDiff(t->output.values, c.output) <= 1e-12);
    QCOMPARE(t->scale, c.f == ScoreFunction::ScaledDot ? 1.0 / std::sqrt(double(c.K.cols)) : 1.0);
}

void TestVariants::dotFormsMatchReference_data()
{
    QTest::addColumn<int>("Lq");
    QTest::addColumn<int>("Lk");
    QTest::addColumn<int>("d");
    QTest::addColumn<int>("dv");
    QTest::addColumn<bool>("causal");
    QTest::newRow("n=1 d=16") << 1 << 1 << 16 << 16 << false;
    QTest::newRow("n=7 d=16 dv=80 causal") << 7 << 7 << 16 << 80 << true;
    QTest::newRow("Lq=5 Lk=9 d=128 dv=7") << 5 << 9 << 128 << 7 << false;
    QTest::newRow("n=97 d=80 causal") << 97 << 97 << 80 << 16 << true;
}

void TestVariants::dotFormsMatchReference()
{
    QFETCH(int, Lq);
    QFETCH(int, Lk);
    QFETCH(int, d);
    QFETCH(int, dv);
    QFETCH(bool, causal);
    const MatrixD Q = randomMatrix(Lq, d, 11), K = randomMatrix(Lk, d, 12), V = randomMatrix(Lk, dv, 13);
    ScoringOptions o;
    o.mask.causal = causal;
    std::vector<float> storage;
    for (const ScoreFunction f : {ScoreFunction::Dot, ScoreFunction::ScaledDot}) {
        auto t = scoreAttention(Q, K, V, f, {}, o);
        QVERIFY2(t.isOk(), msg(t.status().message()));
        const AttentionOutput ref = referenceAttention(Q, K, V, o.mask, f == ScoreFunction::Dot ? 1.0f : 0.0f, storage);
        QVERIFY(ref.weights.size() == 1);
        // The oracle returns fp32: its P and O are the fp64 values rounded once (relative 2^-24).
        for (std::size_t e = 0; e < t->weights.values.size(); ++e)
            QVERIFY(std::abs(t->weights.values[e] - ref.weights[0].P[e]) <= 1e-7);
        for (std::size_t e = 0; e < t->output.values.size(); ++e)
            QVERIFY(std::abs(t->output.values[e] - ref.out.values[e]) <= 1e-6 * (1.0 + std::abs(t->output.values[e])));
    }
}

void TestVariants::generalWithIdentityIsDot()
{
    const MatrixD Q = randomMatrix(7, 16, 1), K = randomMatrix(9, 16, 2), V = randomMatrix(9, 3, 3);
    ScoreParams p;
    p.W = MatrixD(16, 16);
    for (int i = 0; i < 16; ++i) p.W.at(i, i) = 1.0;
    auto g = scoreAttention(Q, K, V, ScoreFunction::General, p);
    auto dot = scoreAttention(Q, K, V, ScoreFunction::Dot);
    QVERIFY(g.isOk() && dot.isOk());
    QVERIFY(maxAbsDiff(g->qW.values, Q.values) == 0.0);
    QVERIFY(maxAbsDiff(g->weights.values, dot->weights.values) <= 1e-12);
}

void TestVariants::additiveHiddenStage()
{
    // The hidden stage, recomputed from the definition with W_q = Wa[:, :dq], W_k = Wa[:, dq:].
    const int dq = 5, dk = 3, dA = 4;
    const MatrixD Q = randomMatrix(3, dq, 4), K = randomMatrix(6, dk, 5), V = randomMatrix(6, 2, 6);
    const ScoreParams p = ScoreParams::random(ScoreFunction::Additive, dq, dk, dA, 99);
    QCOMPARE(p.Wa.rows, dA);
    QCOMPARE(p.Wa.cols, dq + dk);
    const double bound = std::sqrt(6.0 / (dA + dq + dk));
    for (const double w : p.Wa.values) QVERIFY(std::abs(w) <= bound);
    auto t = scoreAttention(Q, K, V, ScoreFunction::Additive, p);
    QVERIFY2(t.isOk(), msg(t.status().message()));
    QCOMPARE(t->hidden.size(), std::size_t(3 * 6 * dA));
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 6; ++j) {
            double s = 0.0;
            for (int a = 0; a < dA; ++a) {
                double x = 0.0;
                for (int c = 0; c < dq; ++c) x += p.Wa.at(a, c) * Q.at(i, c);
                for (int c = 0; c < dk; ++c) x += p.Wa.at(a, dq + c) * K.at(j, c);
                QVERIFY(std::abs(t->hidden[std::size_t((i * 6 + j) * dA + a)] - std::tanh(x)) <= 1e-14);
                s += p.va[std::size_t(a)] * std::tanh(x);
            }
            QVERIFY(std::abs(t->raw.at(i, j) - s) <= 1e-13);
        }
    const ScoreParams again = ScoreParams::random(ScoreFunction::Additive, dq, dk, dA, 99);
    QCOMPARE(again.Wa.values, p.Wa.values);
    QVERIFY(ScoreParams::random(ScoreFunction::Additive, dq, dk, dA, 100).Wa.values != p.Wa.values);
}

void TestVariants::scoringErrors()
{
    const MatrixD Q = randomMatrix(2, 4, 1), K5 = randomMatrix(3, 5, 2), V = randomMatrix(3, 2, 3);
    const auto has = [](const Status &s, const char *text) { return s.message().find(text) != std::string::npos; };
    QVERIFY(has(scoreAttention(Q, K5, V, ScoreFunction::Dot).status(), "K has 5 columns but Q has 4"));
    QVERIFY(has(scoreAttention(Q, K5, randomMatrix(2, 2, 4), ScoreFunction::General).status(), "V has 2 rows"));
    QVERIFY(has(scoreAttention(Q, K5, V, ScoreFunction::General).status(), "scoring: W is 0×0"));
    ScoreParams bad = ScoreParams::random(ScoreFunction::Additive, 4, 4, 3, 1);
    QVERIFY(has(scoreAttention(Q, K5, V, ScoreFunction::Additive, bad).status(), "needs dq + dk = 9 columns"));
    bad = ScoreParams::random(ScoreFunction::Additive, 4, 5, 3, 1);
    bad.va.pop_back();
    QVERIFY(has(scoreAttention(Q, K5, V, ScoreFunction::Additive, bad).status(), "va has 2 values; Wa has 3 rows"));
    MatrixD nan = Q;
    nan.values[3] = NAN;
    QVERIFY(has(scoreAttention(nan, Q, Q, ScoreFunction::Dot).status(), "scoring: Q holds a NaN"));
    // 2048 × 2048 pairs through 128 hidden units is 2^29 tanh evaluations, over the 2^28 limit.
    const MatrixD Qbig = randomMatrix(2048, 4, 5);
    const ScoreParams wide = ScoreParams::random(ScoreFunction::Additive, 4, 4, 128, 1);
    QVERIFY(has(scoreAttention(Qbig, Qbig, Qbig, ScoreFunction::Additive, wide).status(),
                "over the limit of 2^28 tanh evaluations"));
    ScoringOptions o;
    o.mask.keyValid = {1};
    QVERIFY(has(scoreAttention(Q, Q, Q, ScoreFunction::Dot, {}, o).status(), "scoring: mask:"));
    o = {};
    o.scale = -1;
    QVERIFY(has(scoreAttention(Q, Q, Q, ScoreFunction::ScaledDot, {}, o).status(), "scale"));
    QCOMPARE(parseScoreFunction("additive"), std::optional(ScoreFunction::Additive));
    QVERIFY(!parseScoreFunction("bahdanau"));
}

void TestVariants::seededStreamKnownAnswer()
{
    // SplitMix64's first output for seed 0 is 0xE220A8397B1DCDAF (Vigna's reference generator); the uniform takes its
    // top 53 bits.
    const double u = double(0xE220A8397B1DCDAFull >> 11) * 0x1p-53;
    QCOMPARE(seededUniform(1, 1, 1.0, 0).values[0], 2 * u - 1);
    QCOMPARE(seededUniform(3, 4, 0.5, 7).values, seededUniform(3, 4, 0.5, 7).values);
    const MatrixD n = seededNormal(200, 50, 2.0, 3);
    double mean = 0.0, sq = 0.0;
    for (const double v : n.values) mean += v, sq += v * v;
    mean /= 10000, sq /= 10000;
    // 10000 draws of N(0, 4): the sample mean's sd is 0.02, the sample variance's ≈ 0.057; 6 sd margins.
    QVERIFY(std::abs(mean) < 0.12);
    QVERIFY(std::abs(sq - 4.0) < 0.34);
}

void TestVariants::rnnStep()
{
    // s = (1, 0) over H = [(1, 0), (0, 1), (1, 1)] with the dot score: energies (1, 0, 1), α = (e, 1, e)/(2e + 1),
    // context = α1·h1 + α2·h2 + α3·h3 = ((2e)/(2e+1), (1 + e)/(2e+1)).
    const double e = std::exp(1.0), z = 2 * e + 1;
    auto step = rnnAttentionStep({1, 0}, matrix(3, 2, {1, 0, 0, 1, 1, 1}), ScoreFunction::Dot);
    QVERIFY2(step.isOk(), msg(step.status().message()));
    QVERIFY(maxAbsDiff(step->energies, {1, 0, 1}) <= 1e-15);
    QVERIFY(maxAbsDiff(step->alignment, {e / z, 1 / z, e / z}) <= 1e-15);
    QVERIFY(maxAbsDiff(step->context, {2 * e / z, (1 + e) / z}) <= 1e-15);
    // Bahdanau's additive score with seeded parameters: the context is the α-weighted mean of the encoder states.
    const MatrixD H = randomMatrix(5, 3, 8);
    const ScoreParams p = ScoreParams::random(ScoreFunction::Additive, 4, 3, 6, 21);
    auto add = rnnAttentionStep({0.5, -1, 0.25, 2}, H, ScoreFunction::Additive, p);
    QVERIFY2(add.isOk(), msg(add.status().message()));
    for (int c = 0; c < 3; ++c) {
        double v = 0.0;
        for (int j = 0; j < 5; ++j) v += add->alignment[std::size_t(j)] * H.at(j, c);
        QVERIFY(std::abs(add->context[std::size_t(c)] - v) <= 1e-14);
    }
    QVERIFY(!rnnAttentionStep({1, 2}, H, ScoreFunction::Dot).isOk());   // dDec 2, dEnc 3
}

void TestVariants::dropoutView()
{
    auto P = scoreAttention(randomMatrix(5, 8, 1), randomMatrix(7, 8, 2), randomMatrix(7, 3, 3),
                            ScoreFunction::ScaledDot);
    QVERIFY(P.isOk());
    const MatrixD V = randomMatrix(7, 3, 3);
    auto d = attentionDropout(P->weights, 0.3, 42, &V);
    QVERIFY2(d.isOk(), msg(d.status().message()));
    bool someRowBelowOne = false;
    for (std::int64_t i = 0; i < 5; ++i) {
        double kept = 0.0;
        for (std::int64_t j = 0; j < 7; ++j) {
            const std::size_t e = std::size_t(i * 7 + j);
            QCOMPARE(d->dropped.values[e], d->keep[e] ? P->weights.values[e] : 0.0);
            QVERIFY(std::abs(d->rescaled.values[e] - d->dropped.values[e] / 0.7) <= 1e-15);
            kept += d->dropped.values[e];
        }
        QVERIFY(std::abs(d->droppedRowSums[std::size_t(i)] - kept) <= 1e-15);
        someRowBelowOne = someRowBelowOne || d->droppedRowSums[std::size_t(i)] < 1 - 1e-9;
    }
    QVERIFY(someRowBelowOne);   // 35 draws at p = 0.3 with this seed drop something
    QCOMPARE(d->output.rows, 5);
    auto again = attentionDropout(P->weights, 0.3, 42);
    QCOMPARE(again->keep, d->keep);
    auto none = attentionDropout(P->weights, 0.0, 42);
    QCOMPARE(none->rescaled.values, P->weights.values);
    QVERIFY(!attentionDropout(P->weights, 1.0, 1).isOk());
    QVERIFY(!attentionDropout(P->weights, -0.1, 1).isOk());
    QVERIFY(!attentionDropout(P->weights, 0.5, 1, &P->weights).isOk());   // V with 5 rows for 7 keys
}

void TestVariants::dropoutExpectation_data()
{
    QTest::addColumn<double>("p");
    QTest::newRow("p=0.1") << 0.1;
    QTest::newRow("p=0.5") << 0.5;
    QTest::newRow("p=0.9") << 0.9;
}

void TestVariants::dropoutExpectation()
{
    // Over S fixed seeds s = 1..S, X_s = rescaled_ij lies in [0, P_ij/(1 − p)] with mean P_ij (P(keep) = 1 − p up to
    // 2^-53). Hoeffding: P(|mean − P_ij| ≥ t) ≤ 2 exp(−2 S t² (1 − p)² / P_ij²). With t_ij = P_ij/(1 − p) ·
    // √(ln(2N/δ) / (2S)) and δ = 1e-9 over all N entries, a correct dropout fails this test for fewer than one in
    // 10⁹ choices of seeds; the seeds are fixed, so the outcome never changes from run to run (no flake).
    // Power: forgetting the rescale moves the mean to (1 − p) P_ij, off by p · P_ij > t_ij here (checked below).
    QFETCH(double, p);
    auto P = scoreAttention(randomMatrix(5, 8, 1), randomMatrix(7, 8, 2), randomMatrix(7, 3, 3),
                            ScoreFunction::ScaledDot);
    QVERIFY(P.isOk());
    const int S = 4000;
    const std::size_t N = P->weights.values.size();
    std::vector<double> mean(N, 0.0), meanDropped(N, 0.0), rowSum(5, 0.0);
    std::int64_t kept = 0;
    for (int s = 1; s <= S; ++s) {
        auto d = attentionDropout(P->weights, p, std::uint64_t(s));
        QVERIFY(d.isOk());
        for (std::size_t e = 0; e < N; ++e) {
            mean[e] += d->rescaled.values[e] / S;
            meanDropped[e] += d->dropped.values[e] / S;
        }
        for (std::size_t i = 0; i < 5; ++i) rowSum[i] += d->rescaledRowSums[i] / S;
        kept += d->keptCount;
    }
    const double delta = 1e-9, factor = std::sqrt(std::log(2.0 * double(N) / delta) / (2.0 * S)) / (1.0 - p);
    bool unscaledWouldFail = false;
    for (std::size_t e = 0; e < N; ++e) {
        const double Pij = P->weights.values[e], t = Pij * factor;
        QVERIFY2(std::abs(mean[e] - Pij) <= t, qPrintable(QString("entry %1: mean %2, P %3, bound %4")
                                                              .arg(e).arg(mean[e]).arg(Pij).arg(t)));
        unscaledWouldFail = unscaledWouldFail || std::abs(meanDropped[e] - Pij) > t;
    }
    QVERIFY(unscaledWouldFail);
    // Row sums of the rescaled weights average 1: each is a sum of independent terms in [0, P_ij/(1 − p)], so
    // Hoeffding's range is Σ_j P_ij/(1 − p) = 1/(1 − p).
    const double rowBound = std::sqrt(std::log(2.0 * 5 / delta) / (2.0 * S)) / (1.0 - p);
    for (const double r : rowSum) QVERIFY(std::abs(r - 1.0) <= rowBound);
    // The kept fraction over all S·N Bernoulli draws.
    const double frac = double(kept) / (double(S) * double(N));
    QVERIFY(std::abs(frac - (1 - p)) <= std::sqrt(std::log(2.0 / delta) / (2.0 * S * double(N))));
}

void TestVariants::patternGrowsToExact_data()
{
    QTest::addColumn<ApproxSpec>("spec");
    QTest::addColumn<QString>("parameter");
    QTest::addColumn<QList<int>>("values");   // nested patterns, growing; the last covers every key
    QTest::addColumn<int>("n");
    const auto spec = [](ApproxKind k, bool causal) {
        ApproxSpec s;
        s.kind = k;
        s.causal = causal;
        return s;
    };
    QList<int> windows;
    for (int w = 0; w <= 12; ++w) windows << w;
    QTest::newRow("window n=13") << spec(ApproxKind::LocalWindow, false) << "window" << windows << 13;
    QTest::newRow("window n=13 causal") << spec(ApproxKind::LocalWindow, true) << "window" << windows << 13;
    QTest::newRow("block n=13") << spec(ApproxKind::BlockLocal, false) << "block" << QList<int>{1, 2, 4, 8, 16} << 13;
    QTest::newRow("block n=97 causal") << spec(ApproxKind::BlockLocal, true) << "block"
                                       << QList<int>{1, 2, 4, 8, 16, 32, 64, 128} << 97;
    ApproxSpec dil = spec(ApproxKind::Dilated, false);
    dil.dilation = 1;
    QTest::newRow("dilated δ=1 n=13") << dil << "window" << windows << 13;
    QTest::newRow("strided n=13") << spec(ApproxKind::Strided, false) << "stride" << QList<int>{1, 13} << 13;
    QTest::newRow("strided n=7 causal") << spec(ApproxKind::Strided, true) << "stride" << QList<int>{1, 7} << 7;
}

void TestVariants::patternGrowsToExact()
{
    // For a sparse pattern the row TVD is the exact weight outside it (patternTvdIsMassOutside), so it can only
    // shrink as the pattern grows, and it is 0 — and Y exactly the exact Y — once every key is in the pattern.
    QFETCH(ApproxSpec, spec);
    QFETCH(QString, parameter);
    QFETCH(QList<int>, values);
    QFETCH(int, n);
    const MatrixD Q = randomMatrix(n, 16, 31, 2.0f), K = randomMatrix(n, 16, 32, 2.0f), V = randomMatrix(n, 5, 33);
    double previous = 2.0;
    ApproxResult last;
    for (const int v : values) {
        (parameter == "window" ? spec.window : parameter == "block" ? spec.block : spec.stride) = v;
        auto r = approximateAttention(Q, K, V, spec);
        QVERIFY2(r.isOk(), msg(r.status().message()));
        QVERIFY2(r->maxRowTvd <= previous + 1e-15, qPrintable(QString("%1 = %2: TVD %3 after %4")
                                                                  .arg(parameter).arg(v).arg(r->maxRowTvd).arg(previous)));
        previous = r->maxRowTvd;
        last = std::move(*r);
    }
    QCOMPARE(last.maxAbsDeltaY, 0.0);
    QCOMPARE(last.maxAbsDeltaP, 0.0);
    QVERIFY(values.size() < 3 || previous < 2.0);
}

void TestVariants::patternTvdIsMassOutside()
{
    const int n = 11;
    const MatrixD Q = randomMatrix(n, 16, 41, 2.0f), K = randomMatrix(n, 16, 42, 2.0f), V = randomMatrix(n, 4, 43);
    for (const ApproxKind kind : {ApproxKind::LocalWindow, ApproxKind::BlockLocal, ApproxKind::Strided,
                                  ApproxKind::Dilated}) {
        ApproxSpec s;
        s.kind = kind;
        s.window = 2;
        s.block = 3;
        s.stride = 3;
        s.dilation = 2;
        auto r = approximateAttention(Q, K, V, s);
        QVERIFY2(r.isOk(), msg(r.status().message()));
        double worst = 0.0;
        for (int i = 0; i < n; ++i) {
            double inside = 0.0;
            for (int j = 0; j < n; ++j) inside += r->pattern[std::size_t(i * n + j)] ? r->exactWeights.at(i, j) : 0.0;
            worst = std::max(worst, 1.0 - inside);
        }
        QVERIFY2(std::abs(worst - r->maxRowTvd) <= 1e-12, approxKindName(kind).c_str());
        QVERIFY(r->maxRowTvd > 0.0);
        // |ΔY_i| ≤ 2 · TVD_i · max|v| (both weight rows sum to 1).
        double vmax = 0.0;
        for (const double v : V.values) vmax = std::max(vmax, std::abs(v));
        QVERIFY(r->maxAbsDeltaY <= 2.0 * r->maxRowTvd * vmax + 1e-12);
    }
}

void TestVariants::exactMatchesReference_data()
{
    QTest::addColumn<int>("Lq");
    QTest::addColumn<int>("Lk");
    QTest::addColumn<bool>("causal");
    QTest::newRow("n=1") << 1 << 1 << false;
    QTest::newRow("n=97 causal") << 97 << 97 << true;
    QTest::newRow("Lq=5 Lk=12 causal (bottom-right)") << 5 << 12 << true;
    QTest::newRow("Lq=9 Lk=4 causal (rows without keys)") << 9 << 4 << true;
}

void TestVariants::exactMatchesReference()
{
    QFETCH(int, Lq);
    QFETCH(int, Lk);
    QFETCH(bool, causal);
    const MatrixD Q = randomMatrix(Lq, 80, 51), K = randomMatrix(Lk, 80, 52), V = randomMatrix(Lk, 16, 53);
    ApproxSpec s;
    s.kind = ApproxKind::LinearElu;
    s.causal = causal;
    auto r = approximateAttention(Q, K, V, s);
    QVERIFY2(r.isOk(), msg(r.status().message()));
    std::vector<float> storage;
    const AttentionOutput ref = referenceAttention(Q, K, V, causal ? MaskSpec::causalMask() : MaskSpec{}, 0.0f, storage);
    QVERIFY(ref.weights.size() == 1);
    for (std::size_t e = 0; e < r->exactWeights.values.size(); ++e)
        QVERIFY(std::abs(r->exactWeights.values[e] - ref.weights[0].P[e]) <= 1e-7);
    for (std::size_t e = 0; e < r->exactOutput.values.size(); ++e)
        QVERIFY(std::abs(r->exactOutput.values[e] - ref.out.values[e]) <= 1e-6 * (1 + std::abs(ref.out.values[e])));
}

void TestVariants::linearEluKnownAnswer()
{
    // d = dv = 1: φ(0) = 1, φ(1) = 2, φ(−1) = e⁻¹. Query q = 0 over keys 0, 1 with values 1, 3:
    //   A = (1·1, 1·2)/3 = (1/3, 2/3),  Y = 1/3 + 2 = 7/3.  Causal (Lq = Lk = 2, second query q = −1): row 0 sees
    //   key 0 only → Y = 1; row 1: A = (e⁻¹, 2e⁻¹)/(3e⁻¹) = (1/3, 2/3) → Y = 7/3.
    ApproxSpec s;
    s.kind = ApproxKind::LinearElu;
    auto r = approximateAttention(matrix(1, 1, {0}), matrix(2, 1, {0, 1}), matrix(2, 1, {1, 3}), s);
    QVERIFY2(r.isOk(), msg(r.status().message()));
    QVERIFY(maxAbsDiff(r->approxWeights.values, {1.0 / 3, 2.0 / 3}) <= 1e-15);
    QVERIFY(std::abs(r->approxOutput.values[0] - 7.0 / 3) <= 1e-15);
    s.causal = true;
    auto c = approximateAttention(matrix(2, 1, {0, -1}), matrix(2, 1, {0, 1}), matrix(2, 1, {1, 3}), s);
    QVERIFY2(c.isOk(), msg(c.status().message()));
    QVERIFY(maxAbsDiff(c->approxWeights.values, {1, 0, 1.0 / 3, 2.0 / 3}) <= 1e-15);
    QVERIFY(maxAbsDiff(c->approxOutput.values, {1, 7.0 / 3}) <= 1e-15);
}

void TestVariants::kernelFormsAreConsistent_data()
{
    QTest::addColumn<ApproxSpec>("spec");
    QTest::addColumn<int>("Lq");
    QTest::addColumn<int>("Lk");
    ApproxSpec elu;
    elu.kind = ApproxKind::LinearElu;
    ApproxSpec rf;
    rf.kind = ApproxKind::RandomFeatures;
    rf.features = 64;
    rf.seed = 5;
    QTest::newRow("linear-elu n=97") << elu << 97 << 97;
    QTest::newRow("random-features n=13") << rf << 13 << 13;
    elu.causal = rf.causal = true;
    QTest::newRow("linear-elu causal Lq=5 Lk=12") << elu << 5 << 12;
    QTest::newRow("linear-elu causal Lq=9 Lk=4") << elu << 9 << 4;
    QTest::newRow("random-features causal n=7") << rf << 7 << 7;
}

void TestVariants::kernelFormsAreConsistent()
{
    // The linear-time evaluation (running S and z) gives the implied weights' output, rows of the implied weights
    // sum to 1 (or 0 for a row with no visible key), and causal forms put no weight on future keys.
    QFETCH(ApproxSpec, spec);
    QFETCH(int, Lq);
    QFETCH(int, Lk);
    const MatrixD Q = randomMatrix(Lq, 16, 61), K = randomMatrix(Lk, 16, 62), V = randomMatrix(Lk, 7, 63);
    auto r = approximateAttention(Q, K, V, spec);
    QVERIFY2(r.isOk(), msg(r.status().message()));
    for (int i = 0; i < Lq; ++i) {
        const int ip = i + (Lk - Lq);
        double sum = 0.0;
        for (int j = 0; j < Lk; ++j) {
            QVERIFY(r->approxWeights.at(i, j) >= 0.0);
            if (spec.causal && j > ip) QCOMPARE(r->approxWeights.at(i, j), 0.0);
            sum += r->approxWeights.at(i, j);
        }
        QVERIFY(std::abs(sum - (spec.causal && ip < 0 ? 0.0 : 1.0)) <= 1e-12);
        for (int c = 0; c < 7; ++c) {
            double y = 0.0;
            for (int j = 0; j < Lk; ++j) y += r->approxWeights.at(i, j) * V.at(j, c);
            QVERIFY(std::abs(r->approxOutput.at(i, c) - y) <= 1e-12);
        }
    }
    QVERIFY(r->pattern.empty());
    QVERIFY(r->maxAbsDeltaY > 0.0);   // neither kernel form is softmax attention
}

void TestVariants::randomFeaturesConverge()
{
    // The estimator's error falls like 1/√m: 4× the features should halve it. Over 24 fixed seeds per m, require
    // the mean max|ΔP| and the mean max|ΔY| to fall by at least a quarter per 4× step (measured: by 0.43–0.63).
    // Small inputs (‖x·√scale‖² ≈ 1): the estimator's relative variance grows like exp(‖q̃ + k̃‖²), and with unit
    // inputs (≈ 4) even 16384 features leave max|ΔP| ≈ 0.27 (docs/variants.md). Fixed seeds: no flake.
    const int n = 13;
    const MatrixD Q = randomMatrix(n, 16, 71, 0.5f), K = randomMatrix(n, 16, 72, 0.5f), V = randomMatrix(n, 4, 73);
    double previousP = 0.0, previousY = 0.0;
    for (const int m : {64, 256, 1024, 4096}) {
        double meanP = 0.0, meanY = 0.0;
        for (std::uint64_t seed = 1; seed <= 24; ++seed) {
            ApproxSpec s;
            s.kind = ApproxKind::RandomFeatures;
            s.features = m;
            s.seed = seed;
            auto r = approximateAttention(Q, K, V, s);
            QVERIFY2(r.isOk(), msg(r.status().message()));
            meanP += r->maxAbsDeltaP / 24;
            meanY += r->maxAbsDeltaY / 24;
        }
        qInfo("m = %4d: mean max|ΔP| = %.4f, mean max|ΔY| = %.4f", m, meanP, meanY);
        if (previousP > 0.0) {
            QVERIFY2(meanP < 0.75 * previousP, qPrintable(QString("m = %1: %2 after %3").arg(m).arg(meanP).arg(previousP)));
            QVERIFY2(meanY < 0.75 * previousY, qPrintable(QString("m = %1: %2 after %3").arg(m).arg(meanY).arg(previousY)));
        }
        previousP = meanP;
        previousY = meanY;
    }
    QVERIFY(previousY < 0.05);   // m = 4096
}

void TestVariants::costsHandCounted()
{
    // n = 4, d = 2, dv = 3: a computed score costs 2d + 2dv + 6 = 16 FLOPs.
    QCOMPARE(exactAttentionCost(4, 2, 3, false).flops, 16.0 * 16);
    QCOMPARE(exactAttentionCost(4, 2, 3, true).flops, 10.0 * 16);   // 4·5/2 scores
    QCOMPARE(exactAttentionCost(4, 2, 3, false).memory, 16.0);
    const auto cost = [](ApproxKind k, int w, int b, int st, int dil, int m) {
        ApproxSpec s;
        s.kind = k;
        s.window = w;
        s.block = b;
        s.stride = st;
        s.dilation = dil;
        s.features = m;
        auto c = approximateAttentionCost(s, 4, 2, 3);
        return c.isOk() ? *c : CostCount{-1, -1};
    };
    QCOMPARE(cost(ApproxKind::LocalWindow, 1, 1, 1, 1, 1).flops, 10.0 * 16);   // rows see 2, 3, 3, 2 keys
    QCOMPARE(cost(ApproxKind::BlockLocal, 1, 2, 1, 1, 1).flops, 8.0 * 16);     // two 2×2 blocks
    // stride 2: rows {0,1,2}, {0,1,2,3}, {0,1,2,3}, {1,2,3} = 14 scores
    QCOMPARE(cost(ApproxKind::Strided, 1, 1, 2, 1, 1).flops, 14.0 * 16);
    QCOMPARE(cost(ApproxKind::Dilated, 1, 1, 1, 2, 1).flops, 8.0 * 16);        // {0,2}, {1,3}, {0,2}, {1,3}
    // linear: n(5d + 4d·dv + dv) = 4 · (10 + 24 + 3) = 148; memory d·dv + d = 8
    QCOMPARE(cost(ApproxKind::LinearElu, 1, 1, 1, 1, 1).flops, 148.0);
    QCOMPARE(cost(ApproxKind::LinearElu, 1, 1, 1, 1, 1).memory, 8.0);
    // m = 3: n(4md + 4d + 9m + 4m·dv + dv) = 4 · (24 + 8 + 27 + 36 + 3) = 392; memory m·d + m·dv + m = 18
    QCOMPARE(cost(ApproxKind::RandomFeatures, 1, 1, 1, 1, 3).flops, 392.0);
    QCOMPARE(cost(ApproxKind::RandomFeatures, 1, 1, 1, 1, 3).memory, 18.0);
    // The curve: exact grows like n², a window of 8 like n.
    ApproxSpec w;
    w.window = 8;
    auto curve = costCurve(w, {1024, 2048}, 64, 64);
    QVERIFY(curve.isOk());
    QCOMPARE((*curve)[1].exact.flops / (*curve)[0].exact.flops, 4.0);
    QVERIFY(std::abs((*curve)[1].approx.flops / (*curve)[0].approx.flops - 2.0) < 0.01);
    QVERIFY(!costCurve(w, {0}, 64, 64).isOk());
}

void TestVariants::patternCountsMatchPattern_data()
{
    QTest::addColumn<ApproxSpec>("spec");
    for (const bool causal : {false, true})
        for (const ApproxKind k : {ApproxKind::LocalWindow, ApproxKind::BlockLocal, ApproxKind::Strided,
                                   ApproxKind::Dilated}) {
            ApproxSpec s;
            s.kind = k;
            s.causal = causal;
            s.window = 3;
            s.block = 5;
            s.stride = 4;
            s.dilation = 3;
            QTest::addRow("%s%s", approxKindName(k).c_str(), causal ? " causal" : "") << s;
        }
}

void TestVariants::patternCountsMatchPattern()
{
    // The closed forms of the cost curve against the pattern the approximation actually computes.
    QFETCH(ApproxSpec, spec);
    for (const int n : {1, 7, 13, 97}) {
        const MatrixD X = randomMatrix(n, 16, 81);
        auto r = approximateAttention(X, X, X, spec);
        QVERIFY2(r.isOk(), msg(r.status().message()));
        QCOMPARE(patternScoreCount(spec, n), r->computedScores);
        QCOMPARE(r->approxCost.flops, double(r->computedScores) * (2 * 16 + 2 * 16 + 6));
        QCOMPARE(r->exactCost.flops, exactAttentionCost(n, 16, 16, spec.causal).flops);
    }
}

void TestVariants::approximationErrors()
{
    const MatrixD X = randomMatrix(4, 8, 1);
    const auto error = [&](ApproxSpec s, const MatrixD &K) {
        auto r = approximateAttention(X, K, K, s);
        return r.isOk() ? std::string() : r.status().message();
    };
    ApproxSpec s;
    s.window = -1;
    QVERIFY(error(s, X).find("approximation window: window -1") != std::string::npos);
    s = {};
    s.kind = ApproxKind::BlockLocal;
    s.block = 0;
    QVERIFY(error(s, X).find("block 0") != std::string::npos);
    s = {};
    s.kind = ApproxKind::RandomFeatures;
    s.features = 0;
    QVERIFY(error(s, X).find("features 0") != std::string::npos);
    // Few rows but wide: the projection [d, m] = 300 × 65536 is what goes over 2^24 values.
    s.features = 65536;
    const MatrixD wide = randomMatrix(2, 300, 3);
    auto r = approximateAttention(wide, wide, wide, s);
    QVERIFY(!r.isOk() && r.status().message().find("rows of width 300 is over the limit") != std::string::npos);
    s = {};
    QVERIFY(error(s, randomMatrix(4, 5, 2)).find("K has 5 columns but Q has 8") != std::string::npos);
    QCOMPARE(parseApproxKind("random-features"), std::optional(ApproxKind::RandomFeatures));
    QVERIFY(!parseApproxKind("performer"));
}

QTEST_APPLESS_MAIN(TestVariants)
#include "tst_variants.moc"
