// SPDX-License-Identifier: GPL-3.0-or-later
// Metric primitives (metrics.h) against the known answers of reference/faithfulness.md, Appendix A.1 and A.2.
// The toy models of A.1 are written out here; every expected number is copied from the reference table (or
// computed by hand where the comment says so), never produced by the code under test.
#include <attnscope/analysis.h>
#include <attnscope/metrics.h>

#include <QTest>

#include <algorithm>
#include <cmath>
#include <numeric>

using Vec = std::vector<double>;

namespace {

double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }
std::vector<double> twoClass(double s) { return {s, 1.0 - s}; }

// A.1 permutation toy: y = σ(4 Σ α_t h_t − 2).
double permutationToy(const Vec &alpha, const Vec &h)
{
    double s = 0.0;
    for (std::size_t t = 0; t < alpha.size(); ++t) s += alpha[t] * h[t];
    return sigmoid(4.0 * s - 2.0);
}

// A.1 Serrano toy: z(α) = 0.1 + Σ_kept α_t v_t / Σ_kept α_t (0.1 when nothing is kept); decision z > 0.
const Vec kSerranoV = {-1, 2, -1.5, 3, -0.5};
const Vec kSerranoAlpha = {0.35, 0.25, 0.2, 0.15, 0.05};
double serranoZ(const std::vector<std::uint8_t> &kept)
{
    double num = 0.0, den = 0.0;
    for (std::size_t t = 0; t < kept.size(); ++t)
        if (kept[t]) num += kSerranoAlpha[t] * kSerranoV[t], den += kSerranoAlpha[t];
    return den > 0.0 ? 0.1 + num / den : 0.1;
}
std::int64_t serranoDecision(const std::vector<std::uint8_t> &kept) { return serranoZ(kept) > 0.0 ? 1 : 0; }

// A.1 ERASER toy: p(x) = σ(Σ_kept s_t).
const Vec kEraserS = {3, -1, 2, 0.5, -0.5, 1, 0, -2, 1.5, 0.2};
double eraserToy(const std::vector<std::uint8_t> &kept)
{
    double z = 0.0;
    for (std::size_t t = 0; t < kept.size(); ++t)
        if (kept[t]) z += kEraserS[t];
    return sigmoid(z);
}

// A.1 deletion/insertion toy: f = Σ_kept w_t, substrate 0.
const Vec kCurveW = {4, 3, 2, 1};
double curveToy(const std::vector<std::uint8_t> &kept)
{
    double f = 0.0;
    for (std::size_t t = 0; t < kept.size(); ++t)
        if (kept[t]) f += kCurveW[t];
    return f;
}

} // namespace

class TestMetrics : public QObject {
    Q_OBJECT
private slots:
    void distances_data();
    void distances();
    void rankStatistics_data();
    void rankStatistics();
    void constantVectorsGiveNaN();
    void permutationToy();
    void uniformToy();
    void seedNoiseFloor();
    void serranoFlips();
    void serranoSingleWeightJs_data();
    void serranoSingleWeightJs();
    void eraserPerBin_data();
    void eraserPerBin();
    void eraserAopc();
    void deletionInsertion_data();
    void deletionInsertion();
    void deletionRandomMean();
    void aggregation_data();
    void aggregation();
    void captumAttributions();
    void headAblationToy();
    void bhattCorrelation_data();
    void bhattCorrelation();
    void eraserK_data();
    void eraserK();
};

// A.2 rows: TVD, JSD (nats and bits), JSD max, KL, the ε = 0 adversarial vertex's JSD, W&P terms.
void TestMetrics::distances_data()
{
    QTest::addColumn<QString>("what");
    QTest::addColumn<Vec>("p");
    QTest::addColumn<Vec>("q");
    QTest::addColumn<double>("expected");
    QTest::addRow("TVD (0.7,0.3) vs (0.4,0.6)") << "tvd" << Vec{0.7, 0.3} << Vec{0.4, 0.6} << 0.3;
    QTest::addRow("JSD nats") << "jsd" << Vec{0.7, 0.3} << Vec{0.4, 0.6} << 0.04620082918151349;
    QTest::addRow("JSD bits") << "jsd_bits" << Vec{0.7, 0.3} << Vec{0.4, 0.6} << 0.06665370714512762;
    QTest::addRow("JSD max") << "jsd" << Vec{1, 0} << Vec{0, 1} << 0.6931471805599453;
    QTest::addRow("KL (.5,.5)||(.9,.1)") << "kl" << Vec{0.5, 0.5} << Vec{0.9, 0.1} << 0.5108256237659907;
    QTest::addRow("eps=0 vertex JSD") << "jsd" << Vec{0.4, 0.4, 0.1, 0.1} << Vec{0.8, 0, 0.2, 0} << 0.21576155433883562;
    // W&P: y_a = 0.6, y_b = 0.5 → two-class TVD 0.10 (batch_tvd is half: 0.05).
    QTest::addRow("two-class TVD") << "tvd" << twoClass(0.6) << twoClass(0.5) << 0.10;
}

void TestMetrics::distances()
{
    QFETCH(QString, what);
    QFETCH(Vec, p);
    QFETCH(Vec, q);
    QFETCH(double, expected);
    double got = 0.0;
    if (what == "tvd") got = attn::totalVariation(p, q);
    else if (what == "jsd") got = attn::jsDivergence(p, q);
    else if (what == "jsd_bits") got = attn::jsDivergence(p, q) / std::log(2.0);
    else got = attn::klDivergence(p, q);
    QVERIFY2(std::abs(got - expected) <= 1e-9, qPrintable(QString("got %1").arg(got, 0, 'g', 17)));
}

void TestMetrics::rankStatistics_data()
{
    QTest::addColumn<Vec>("x");
    QTest::addColumn<Vec>("y");
    QTest::addColumn<double>("tau");
    QTest::addColumn<double>("rho");
    QTest::addRow("no ties") << Vec{1, 2, 3, 4, 5} << Vec{1, 3, 2, 5, 4} << 0.6 << 0.8;
    QTest::addRow("with ties") << Vec{1, 2, 2, 3} << Vec{1, 2, 3, 3} << 0.8 << 0.8333333333333334;
    QTest::addRow("negative") << Vec{0.1, 0.4, 0.2, 0.3} << Vec{0.3, 0.2, 0.4, 0.1} << -0.3333333333333333 << -0.6;
    QTest::addRow("identical") << Vec{3, 1, 2} << Vec{3, 1, 2} << 1.0 << 1.0;   // by hand
}

void TestMetrics::rankStatistics()
{
    QFETCH(Vec, x);
    QFETCH(Vec, y);
    QFETCH(double, tau);
    QFETCH(double, rho);
    QVERIFY(std::abs(attn::kendallTauB(x, y) - tau) <= 1e-9);
    QVERIFY(std::abs(attn::spearman(x, y) - rho) <= 1e-9);
}

void TestMetrics::constantVectorsGiveNaN()
{
    QVERIFY(std::isnan(attn::kendallTauB({1, 1, 1}, {1, 2, 3})));
    QVERIFY(std::isnan(attn::spearman({1, 2, 3}, {5, 5, 5})));
    QVERIFY(std::isnan(attn::pearson({2, 2}, {1, 2})));
    QVERIFY(std::isnan(attn::kendallTauB({1}, {1})));
    QVERIFY(std::isnan(attn::normalizedAuc({1.0})));
}

// A.1/A.2: all 24 permutations of α = (0.7,0.1,0.1,0.1) with h = (1,0,0,0); median TVD 0.521992866261537.
void TestMetrics::permutationToy()
{
    const Vec alpha = {0.7, 0.1, 0.1, 0.1}, h = {1, 0, 0, 0};
    const double yHat = ::permutationToy(alpha, h);
    QVERIFY(std::abs(yHat - 0.6899744811276125) <= 1e-12);
    std::vector<int> idx = {0, 1, 2, 3};
    Vec tvds;
    int zero = 0;
    do {
        Vec permuted;
        for (int i : idx) permuted.push_back(alpha[static_cast<std::size_t>(i)]);
        const double tvd = attn::totalVariation(twoClass(::permutationToy(permuted, h)), twoClass(yHat));
        tvds.push_back(tvd);
        zero += tvd < 1e-15;
    } while (std::next_permutation(idx.begin(), idx.end()));
    QCOMPARE(zero, 6);
    QVERIFY(std::abs(attn::median(tvds) - 0.521992866261537) <= 1e-12);
    // h constant: the output ignores the permutation.
    const Vec hc = {0.3, 0.3, 0.3, 0.3};
    QVERIFY(std::abs(::permutationToy({0.1, 0.7, 0.1, 0.1}, hc) - ::permutationToy(alpha, hc)) <= 1e-12);
}

void TestMetrics::uniformToy()
{
    const Vec h = {1, 0, 0, 0};
    const double tvd = attn::totalVariation(twoClass(::permutationToy({0.25, 0.25, 0.25, 0.25}, h)),
                                            twoClass(::permutationToy({0.7, 0.1, 0.1, 0.1}, h)));
    QVERIFY(std::abs(tvd - 0.4210330597576174) <= 1e-12);
    QVERIFY(std::abs(sigmoid(-1.0) - 0.2689414214) <= 1e-10);
}

// A.1/A.2 seed floor: median over the three seeds of JSD(base, seed).
void TestMetrics::seedNoiseFloor()
{
    const Vec base = {0.7, 0.1, 0.1, 0.1};
    const std::vector<Vec> seeds = {{0.4, 0.2, 0.2, 0.2}, {0.1, 0.7, 0.1, 0.1}, {0.7, 0.1, 0.1, 0.1}};
    const Vec expected = {0.0462008292, 0.2531016154, 0.0};
    Vec jsd;
    for (std::size_t k = 0; k < seeds.size(); ++k) {
        jsd.push_back(attn::jsDivergence(base, seeds[k]));
        QVERIFY(std::abs(jsd.back() - expected[k]) <= 1e-10);
    }
    QVERIFY(std::abs(attn::median(jsd) - 0.04620082918151342) <= 1e-12);
}

// A.1/A.2 Serrano: flips under attention, gradient, gradient × attention, ascending and all 120 orders.
void TestMetrics::serranoFlips()
{
    const auto flip = [](const std::vector<int> &order) { return attn::tokensToFlip(serranoDecision, order); };
    const std::vector<int> attention = attn::descendingOrder(kSerranoAlpha);
    QCOMPARE(attention, (std::vector<int>{0, 1, 2, 3, 4}));
    QCOMPARE(flip(attention), 4);
    double mass = 0.0;
    for (int k = 0; k < 4; ++k) mass += kSerranoAlpha[static_cast<std::size_t>(attention[static_cast<std::size_t>(k)])];
    QVERIFY(std::abs(mass - 0.95) <= 1e-12);
    QCOMPARE(flip({4, 3, 2, 1, 0}), 2);                  // ascending: 0.4 of the tokens
    QCOMPARE(flip({3, 1, 4, 0, 2}), 1);                  // gradient order
    QCOMPARE(flip({1, 3, 4, 2, 0}), 1);                  // gradient × attention
    std::vector<int> order = {0, 1, 2, 3, 4};
    int flips = 0, never = 0;
    double fraction = 0.0;
    do {
        const int k = flip(order);
        if (k < 0) ++never;
        else ++flips, fraction += k / 5.0;
    } while (std::next_permutation(order.begin(), order.end()));
    QCOMPARE(flips, 88);
    QCOMPARE(never, 32);
    QVERIFY(std::abs(fraction / flips - 0.4) <= 1e-12);
    QCOMPARE(serranoZ({0, 0, 0, 0, 0}), 0.1);   // all removed: still classified, no flip
}

void TestMetrics::serranoSingleWeightJs_data()
{
    QTest::addColumn<int>("item");
    QTest::addColumn<double>("js");
    QTest::addColumn<bool>("flips");
    const double js[] = {0.0128152, 0.0102069, 0.0056049, 0.0071425, 0.0000500};
    // Flips: item 3 (reference) and item 1 (by hand: z = 0.1 + (0.275 − 0.5)/0.75 = −0.2); item 0 has the
    // largest JS and no flip.
    for (int t = 0; t < 5; ++t) QTest::addRow("item %d", t) << t << js[t] << (t == 1 || t == 3);
}

void TestMetrics::serranoSingleWeightJs()
{
    QFETCH(int, item);
    QFETCH(double, js);
    QFETCH(bool, flips);
    std::vector<std::uint8_t> kept(5, 1);
    const Vec p = twoClass(sigmoid(serranoZ(kept)));
    QVERIFY(std::abs(serranoZ(kept) - 0.375) <= 1e-12);
    kept[static_cast<std::size_t>(item)] = 0;
    const Vec q = twoClass(sigmoid(serranoZ(kept)));
    QVERIFY2(std::abs(attn::jsDivergence(p, q) - js) <= 5e-8, qPrintable(QString::number(attn::jsDivergence(p, q), 'g', 10)));
    QCOMPARE(serranoDecision(kept) != serranoDecision(std::vector<std::uint8_t>(5, 1)), flips);
}

void TestMetrics::eraserPerBin_data()
{
    QTest::addColumn<int>("bin");
    QTest::addColumn<int>("k");
    QTest::addColumn<double>("comp");
    QTest::addColumn<double>("suff");
    QTest::newRow("1 percent") << 0 << 1 << 0.1454519664 << 0.0384125745;
    QTest::newRow("5 percent") << 1 << 1 << 0.1454519664 << 0.0384125745;
    QTest::newRow("10 percent") << 2 << 1 << 0.1454519664 << 0.0384125745;
    QTest::newRow("20 percent") << 3 << 2 << 0.5654292182 << -0.0023204477;
    QTest::newRow("50 percent") << 4 << 5 << 0.9554155121 << -0.0086779485;
}

void TestMetrics::eraserPerBin()
{
    QFETCH(int, bin);
    QFETCH(int, k);
    QFETCH(double, comp);
    QFETCH(double, suff);
    QVERIFY(std::abs(eraserToy(std::vector<std::uint8_t>(10, 1)) - 0.9909867013) <= 1e-10);
    const auto e = attn::eraserScores(eraserToy, attn::descendingOrder(kEraserS), {0.01, 0.05, 0.1, 0.2, 0.5});
    const auto b = static_cast<std::size_t>(bin);
    QCOMPARE(e.k[b], k);
    QVERIFY(std::abs(e.comprehensiveness[b] - comp) <= 1e-10);
    QVERIFY(std::abs(e.sufficiency[b] - suff) <= 1e-10);
}

void TestMetrics::eraserAopc()
{
    const auto e = attn::eraserScores(eraserToy, attn::descendingOrder(kEraserS), {0.01, 0.05, 0.1, 0.2, 0.5});
    QVERIFY(std::abs(e.aopcComprehensiveness - 0.39144012590507743) <= 1e-12);
    QVERIFY(std::abs(e.aopcSufficiency - 0.020847865464642255) <= 1e-12);
    // The paper's formula (a 0 % bin, 1/(|B|+1)) is 5/6 of the scorer's value.
    QVERIFY(std::abs(e.aopcComprehensiveness * 5.0 / 6.0 - 0.3262001049) <= 1e-10);
}

void TestMetrics::deletionInsertion_data()
{
    QTest::addColumn<std::vector<int>>("order");
    QTest::addColumn<Vec>("deletion");
    QTest::addColumn<Vec>("insertion");
    QTest::addColumn<double>("aucDel");
    QTest::addColumn<double>("aucIns");
    QTest::addRow("ideal") << std::vector<int>{0, 1, 2, 3} << Vec{10, 6, 3, 1, 0} << Vec{0, 4, 7, 9, 10} << 3.75 << 6.25;
    // Reversed: deletion [10,9,7,4,0], insertion [0,1,3,6,10] (by hand).
    QTest::addRow("reversed") << std::vector<int>{3, 2, 1, 0} << Vec{10, 9, 7, 4, 0} << Vec{0, 1, 3, 6, 10} << 6.25 << 3.75;
}

void TestMetrics::deletionInsertion()
{
    QFETCH(std::vector<int>, order);
    QFETCH(Vec, deletion);
    QFETCH(Vec, insertion);
    QFETCH(double, aucDel);
    QFETCH(double, aucIns);
    const auto c = attn::deletionInsertionCurves(curveToy, order, 1);
    QCOMPARE(c.deletion, deletion);
    QCOMPARE(c.insertion, insertion);
    QVERIFY(std::abs(c.aucDeletion - aucDel) <= 1e-12);
    QVERIFY(std::abs(c.aucInsertion - aucIns) <= 1e-12);
}

void TestMetrics::deletionRandomMean()
{
    std::vector<int> order = {0, 1, 2, 3};
    double sum = 0.0;
    int count = 0;
    do {
        sum += attn::deletionInsertionCurves(curveToy, order, 1).aucDeletion;
        ++count;
    } while (std::next_permutation(order.begin(), order.end()));
    QVERIFY(std::abs(sum / count - 5.0) <= 1e-12);
    // Two tokens per step: points at 0, 2, 4 removed (ideal: 10, 3, 0 → (13 − 5)/2 = 4, by hand).
    const auto c = attn::deletionInsertionCurves(curveToy, {0, 1, 2, 3}, 2);
    QCOMPARE(c.deletion, (Vec{10, 3, 0}));
    QVERIFY(std::abs(c.aucDeletion - 4.0) <= 1e-12);
}

// A.2 rollout and flow rows (analysis.h; also covered by tst_analysis), here as part of the full table.
void TestMetrics::aggregation_data()
{
    QTest::addColumn<QString>("what");
    QTest::addColumn<std::vector<Vec>>("layers");
    QTest::addColumn<Vec>("expected");
    QTest::addColumn<double>("tolerance");
    const std::vector<Vec> twoByTwo = {{1, 0, 0.5, 0.5}, {0.5, 0.5, 0, 1}};
    const std::vector<Vec> causal = {{1, 0, 0, .5, .5, 0, .2, .3, .5}, {1, 0, 0, .9, .1, 0, .1, .1, .8}};
    QTest::addRow("rollout 2x2") << "rollout" << twoByTwo << Vec{0.8125, 0.1875, 0.25, 0.75} << 1e-12;
    QTest::addRow("flow 2x2") << "flow" << twoByTwo << Vec{0.8, 0.2, 0.25, 0.75} << 1e-12;
    QTest::addRow("rollout 3 causal") << "rollout" << causal << Vec{1, 0, 0, 0.5875, 0.4125, 0, 0.1525, 0.1725, 0.675} << 1e-12;
    QTest::addRow("flow 3 causal") << "flow" << causal << Vec{1, 0, 0, 0.56, 0.44, 0, 0.173913, 0.173913, 0.652174} << 1e-6;
}

void TestMetrics::aggregation()
{
    QFETCH(QString, what);
    QFETCH(std::vector<Vec>, layers);
    QFETCH(Vec, expected);
    QFETCH(double, tolerance);
    const int n = static_cast<int>(std::lround(std::sqrt(static_cast<double>(expected.size()))));
    auto r = what == "rollout" ? attn::attentionRollout(layers, n) : attn::attentionFlow(layers, n);
    QVERIFY(r.isOk());
    for (std::size_t i = 0; i < expected.size(); ++i) QVERIFY(std::abs((*r)[i] - expected[i]) <= tolerance);
}

// A.2 Captum rows: additive f = w·x, w = (2,−1,0.5), x = (1,3,2), baseline 0; f = x1·x2 at (2,3).
void TestMetrics::captumAttributions()
{
    const Vec w = {2, -1, 0.5}, x = {1, 3, 2}, zero = {0, 0, 0};
    const attn::VectorFn linear = [&](const Vec &v) { return w[0] * v[0] + w[1] * v[1] + w[2] * v[2]; };
    const Vec expected = {2, -3, 1};
    const Vec fa = attn::featureAblation(linear, x, zero), sv = attn::shapleyValues(linear, x, zero);
    for (std::size_t i = 0; i < 3; ++i) {
        QVERIFY(std::abs(fa[i] - expected[i]) <= 1e-12);
        QVERIFY(std::abs(sv[i] - expected[i]) <= 1e-12);
    }
    const Vec occ = attn::occlusion(linear, x, zero, 2, 1), occExpected = {-1, -1.5, -2};
    for (std::size_t i = 0; i < 3; ++i) QVERIFY(std::abs(occ[i] - occExpected[i]) <= 1e-12);
    const attn::VectorFn product = [](const Vec &v) { return v[0] * v[1]; };
    const Vec px = {2, 3};
    QCOMPARE(attn::featureAblation(product, px, {0, 0}), (Vec{6, 6}));
    const Vec shap = attn::shapleyValues(product, px, {0, 0});
    QVERIFY(std::abs(shap[0] - 3) <= 1e-12 && std::abs(shap[1] - 3) <= 1e-12);
}

// A.1/A.2 head toy: out = ξ1·a + ξ2·b, a = 2, b = −1, L = 0.5·out², base L 0.5. Zero ablation of a head is
// FeatureAblation over the gates ξ with baseline 0; mean ablation over the head outputs (a, b) with head 1's
// output replaced by the mean of its references {2, 0, 1} = 1. dL = L(ablated) − L = −FeatureAblation.
void TestMetrics::headAblationToy()
{
    const auto loss = [](double out) { return 0.5 * out * out; };
    const attn::VectorFn byGates = [&](const Vec &xi) { return loss(xi[0] * 2.0 + xi[1] * -1.0); };
    const Vec zero = attn::featureAblation(byGates, {1, 1}, {0, 0});
    QVERIFY(std::abs(-zero[0] - 0.0) <= 1e-12);
    QVERIFY(std::abs(-zero[1] - 1.5) <= 1e-12);
    QCOMPARE(byGates({1, 1}), 0.5);
    const attn::VectorFn byOutputs = [&](const Vec &o) { return loss(o[0] + o[1]); };
    const Vec mean = attn::featureAblation(byOutputs, {2, -1}, {1, -1});
    QVERIFY(std::abs(-mean[0] - -0.5) <= 1e-12);
    // |dL/dξ| = (2, 1), but zero ablation ranks head 2 first: first-order importance is not the ablation effect.
    QVERIFY(std::abs(zero[1]) > std::abs(zero[0]));
}

// A.1/A.2 Bhatt: f = w·x, baseline 0, Φ = w∘x, all 15 subsets of size 2; drop = f(x) − f(x with S := 0).
void TestMetrics::bhattCorrelation_data()
{
    QTest::addColumn<bool>("absolute");
    QTest::addColumn<double>("expected");
    QTest::addRow("signed") << false << 1.0;
    QTest::addRow("abs") << true << -0.862090010925898;
}

void TestMetrics::bhattCorrelation()
{
    QFETCH(bool, absolute);
    QFETCH(double, expected);
    const Vec w = {0.5, -1, 2, 0, 1.5, -0.5}, x = {1, 2, -1, 3, 0.5, 2};
    Vec phi;
    for (std::size_t i = 0; i < 6; ++i) phi.push_back(absolute ? std::abs(w[i] * x[i]) : w[i] * x[i]);
    std::vector<std::vector<int>> subsets;
    Vec drops;
    for (int a = 0; a < 6; ++a)
        for (int b = a + 1; b < 6; ++b) {
            subsets.push_back({a, b});
            drops.push_back(w[static_cast<std::size_t>(a)] * x[static_cast<std::size_t>(a)] +
                            w[static_cast<std::size_t>(b)] * x[static_cast<std::size_t>(b)]);
        }
    QCOMPARE(subsets.size(), std::size_t{15});
    QVERIFY(std::abs(attn::faithfulnessCorrelation(phi, subsets, drops) - expected) <= 1e-12);
}

// k = max(1, ceil(p·T)) (pitfall 11: round(p·T) gives 0 on short inputs).
void TestMetrics::eraserK_data()
{
    QTest::addColumn<double>("p");
    QTest::addColumn<int>("T");
    QTest::addColumn<int>("k");
    QTest::newRow("1 percent of 10") << 0.01 << 10 << 1;
    QTest::newRow("10 percent of 10") << 0.1 << 10 << 1;
    QTest::newRow("20 percent of 10") << 0.2 << 10 << 2;
    QTest::newRow("50 percent of 10") << 0.5 << 10 << 5;
    QTest::newRow("5 percent of 62") << 0.05 << 62 << 4;
    QTest::newRow("100 percent of 3") << 1.0 << 3 << 3;
}

void TestMetrics::eraserK()
{
    QFETCH(double, p);
    QFETCH(int, T);
    QFETCH(int, k);
    QCOMPARE(attn::eraserK(p, T), k);
}

QTEST_APPLESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
