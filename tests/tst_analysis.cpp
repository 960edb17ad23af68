// SPDX-License-Identifier: GPL-3.0-or-later
// Head statistics, rollout and flow on hand-computed cases (reference/faithfulness.md §3.10 and Appendix A.2).

#include <attnscope/analysis.h>

#include <QtTest>

#include <cmath>

class TestAnalysis : public QObject {
    Q_OBJECT
private slots:
    void headStatisticsKnownAnswers();
    void tokenPatternScores();
    void undefinedScoresAreNaN();
    void maskedRowsAreLeftOut();
    void rollout_data();
    void rollout();
    void flow_data();
    void flow();
    void oneLayerRolloutEqualsFlow();
    void uniformWithoutResidualStaysUniform();
    void flowRefusesLongInputs();
    void meanOverHeads();
    void badShapesAreErrors();
};

namespace {

using Matrix = std::vector<double>;

void compareMatrix(const Matrix &actual, const Matrix &expected, double tol)
{
    QCOMPARE(actual.size(), expected.size());
    for (std::size_t k = 0; k < actual.size(); ++k)
        if (std::abs(actual[k] - expected[k]) > tol)
            QFAIL(qPrintable(QStringLiteral("element %1: %2, expected %3").arg(k).arg(actual[k], 0, 'g', 12)
                                 .arg(expected[k], 0, 'g', 12)));
}

const Matrix kA1 = {1, 0, 0.5, 0.5};
const Matrix kA2 = {0.5, 0.5, 0, 1};
const Matrix kC1 = {1, 0, 0, .5, .5, 0, .2, .3, .5};
const Matrix kC2 = {1, 0, 0, .9, .1, 0, .1, .1, .8};

} // namespace

void TestAnalysis::headStatisticsKnownAnswers()
{
    // Causal 3×3: rows (1,0,0), (0.5,0.5,0), (0.2,0.3,0.5).
    const std::vector<float> a = {1, 0, 0, .5f, .5f, 0, .2f, .3f, .5f};
    const attn::HeadStatistics s = attn::headStatistics(a.data(), {10, 11, 12});
    const double h1 = std::log(2.0);
    const double h2 = -(0.2 * std::log(0.2) + 0.3 * std::log(0.3) + 0.5 * std::log(0.5));
    QVERIFY(std::abs(s.entropy - (0.0 + h1 + h2) / 3.0) < 1e-6);
    QVERIFY(std::abs(s.meanDistance - (0.0 + 0.5 + (0.2 * 2 + 0.3 * 1)) / 3.0) < 1e-6);
    QVERIFY(std::abs(s.firstToken - (1.0 + 0.5 + 0.2) / 3.0) < 1e-6);
    QVERIFY(std::abs(s.self - (1.0 + 0.5 + 0.5) / 3.0) < 1e-6);
    QVERIFY(std::abs(s.previousToken - (0.5 + 0.3) / 2.0) < 1e-6);
    QVERIFY(std::isnan(s.duplicateToken));   // no repeated token
    QVERIFY(std::isnan(s.induction));
}

void TestAnalysis::tokenPatternScores()
{
    // Tokens A B A B: an induction head at position 2 (A) looks at 1 (B, after the earlier A), at 3 (B) looks
    // at 2 (A, after the earlier B). A duplicate head looks at the earlier copy.
    const std::vector<std::int64_t> tokens = {1, 2, 1, 2};
    const std::vector<float> induction = {1, 0, 0, 0,
                                          1, 0, 0, 0,
                                          0, .8f, .2f, 0,
                                          0, 0, .6f, .4f};
    const attn::HeadStatistics s = attn::headStatistics(induction.data(), tokens);
    QVERIFY(std::abs(s.induction - (0.8 + 0.6) / 2.0) < 1e-6);
    QVERIFY(std::abs(s.duplicateToken - (0.0 + 0.0) / 2.0) < 1e-6);
    QVERIFY(std::abs(s.previousToken - (1.0 + 0.8 + 0.6) / 3.0) < 1e-6);   // A[3,2] is also the previous token

    const std::vector<float> duplicate = {1, 0, 0, 0,
                                          .5f, .5f, 0, 0,
                                          .9f, 0, .1f, 0,
                                          0, .7f, 0, .3f};
    const attn::HeadStatistics d = attn::headStatistics(duplicate.data(), tokens);
    QVERIFY(std::abs(d.duplicateToken - (0.9 + 0.7) / 2.0) < 1e-6);
    QVERIFY(std::abs(d.induction - (0.0 + 0.0) / 2.0) < 1e-6);

    // Three copies: the mass on every earlier copy counts (and every following token for induction).
    const std::vector<std::int64_t> t3 = {5, 5, 5};
    const std::vector<float> u = {1, 0, 0, .5f, .5f, 0, .25f, .25f, .5f};
    const attn::HeadStatistics s3 = attn::headStatistics(u.data(), t3);
    QVERIFY(std::abs(s3.duplicateToken - (0.5 + 0.5) / 2.0) < 1e-6);        // i=1: A[1,0]; i=2: A[2,0]+A[2,1]
    QVERIFY(std::abs(s3.induction - (0.5 + (0.25 + 0.5)) / 2.0) < 1e-6);    // i=1: A[1,1]; i=2: A[2,1]+A[2,2]
}

void TestAnalysis::undefinedScoresAreNaN()
{
    const std::vector<float> one = {1};
    const attn::HeadStatistics s = attn::headStatistics(one.data(), {3});
    QCOMPARE(s.entropy, 0.0);
    QCOMPARE(s.self, 1.0);
    QVERIFY(std::isnan(s.previousToken));
    QVERIFY(std::isnan(s.duplicateToken));
}

void TestAnalysis::maskedRowsAreLeftOut()
{
    // Row 1 is fully masked (all zero): the means are over rows 0 and 2 only.
    const std::vector<float> a = {1, 0, 0, 0, 0, 0, 0, .5f, .5f};
    const attn::HeadStatistics s = attn::headStatistics(a.data(), {1, 2, 3});
    QVERIFY(std::abs(s.self - (1.0 + 0.5) / 2.0) < 1e-6);
    QVERIFY(std::abs(s.previousToken - 0.5) < 1e-6);   // only i = 2 counts
    QVERIFY(std::abs(s.entropy - std::log(2.0) / 2.0) < 1e-6);
}

void TestAnalysis::rollout_data()
{
    QTest::addColumn<std::vector<Matrix>>("layers");
    QTest::addColumn<int>("n");
    QTest::addColumn<bool>("residual");
    QTest::addColumn<Matrix>("expected");
    QTest::addRow("2x2 residual") << std::vector<Matrix>{kA1, kA2} << 2 << true << Matrix{0.8125, 0.1875, 0.25, 0.75};
    QTest::addRow("2x2 no residual") << std::vector<Matrix>{kA1, kA2} << 2 << false << Matrix{0.75, 0.25, 0.5, 0.5};
    QTest::addRow("3-token causal") << std::vector<Matrix>{kC1, kC2} << 3 << true
                                    << Matrix{1, 0, 0, 0.5875, 0.4125, 0, 0.1525, 0.1725, 0.675};
}

void TestAnalysis::rollout()
{
    QFETCH(std::vector<Matrix>, layers);
    QFETCH(int, n);
    QFETCH(bool, residual);
    QFETCH(Matrix, expected);
    auto r = attn::attentionRollout(layers, n, residual);
    QVERIFY2(r.isOk(), r.status().message().c_str());
    compareMatrix(*r, expected, 1e-12);
    for (int i = 0; i < n; ++i) {
        double sum = 0.0;
        for (int j = 0; j < n; ++j) sum += (*r)[std::size_t(i * n + j)];
        QVERIFY(std::abs(sum - 1.0) < 1e-12);
    }
}

void TestAnalysis::flow_data()
{
    QTest::addColumn<std::vector<Matrix>>("layers");
    QTest::addColumn<int>("n");
    QTest::addColumn<Matrix>("expected");
    QTest::addColumn<double>("tolerance");
    QTest::addRow("2x2") << std::vector<Matrix>{kA1, kA2} << 2 << Matrix{0.8, 0.2, 0.25, 0.75} << 1e-12;
    // The table gives the causal row to six decimals (4/23, 4/23, 15/23).
    QTest::addRow("3-token causal") << std::vector<Matrix>{kC1, kC2} << 3
                                    << Matrix{1, 0, 0, 0.56, 0.44, 0, 4.0 / 23, 4.0 / 23, 15.0 / 23} << 1e-9;
}

void TestAnalysis::flow()
{
    QFETCH(std::vector<Matrix>, layers);
    QFETCH(int, n);
    QFETCH(Matrix, expected);
    QFETCH(double, tolerance);
    auto f = attn::attentionFlow(layers, n);
    QVERIFY2(f.isOk(), f.status().message().c_str());
    compareMatrix(*f, expected, tolerance);
}

void TestAnalysis::oneLayerRolloutEqualsFlow()
{
    const Matrix expected = {1, 0, 0, 0.25, 0.75, 0, 0.1, 0.15, 0.75};   // Ã of kC1
    auto r = attn::attentionRollout({kC1}, 3);
    auto f = attn::attentionFlow({kC1}, 3);
    QVERIFY(r.isOk() && f.isOk());
    compareMatrix(*r, expected, 1e-12);
    compareMatrix(*f, expected, 1e-12);
}

void TestAnalysis::uniformWithoutResidualStaysUniform()
{
    const int n = 4;
    const Matrix u(std::size_t(n * n), 0.25);
    auto r = attn::attentionRollout({u, u, u}, n, false);
    QVERIFY(r.isOk());
    compareMatrix(*r, u, 1e-12);
}

void TestAnalysis::flowRefusesLongInputs()
{
    const int n = attn::kMaxFlowTokens + 1;
    const Matrix u(std::size_t(n) * std::size_t(n), 1.0 / n);
    auto f = attn::attentionFlow({u}, n);
    QVERIFY(!f.isOk());
    QVERIFY(f.status().message().find(std::to_string(attn::kMaxFlowTokens)) != std::string::npos);
    auto cancelled = attn::attentionFlow({kA1, kA2}, 2, true, [] { return true; });
    QCOMPARE(cancelled.status().code(), attn::ErrorCode::Cancelled);
}

void TestAnalysis::meanOverHeads()
{
    const std::vector<float> h1 = {1, 0, 0, 1}, h2 = {0, 1, 0.5f, 0.5f};
    compareMatrix(attn::meanOverHeads({h1.data(), h2.data()}, 2), {0.5, 0.5, 0.25, 0.75}, 1e-12);
}

void TestAnalysis::badShapesAreErrors()
{
    QVERIFY(!attn::attentionRollout({}, 2).isOk());
    QVERIFY(!attn::attentionRollout({kA1}, 3).isOk());
    QVERIFY(!attn::attentionFlow({kA1, Matrix{1}}, 2).isOk());
}

QTEST_APPLESS_MAIN(TestAnalysis)
#include "tst_analysis.moc"
