// SPDX-License-Identifier: GPL-3.0-or-later
// Dataset statistics (stats.h) against hand-computed cases (worked out in the comments) and the known answers of
// tests/fixtures/stats/known_answers.json, made by tools/make_stats_fixtures.py with NumPy, SciPy (wilcoxon) and
// scikit-learn (average_precision_score); never by the code under test.
#include <attnscope/stats.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <limits>

using Vec = std::vector<double>;
using namespace attn::stats;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

QJsonObject knownAnswers()
{
    QFile f(QStringLiteral(ATTNSCOPE_TEST_DATA_DIR "/fixtures/stats/known_answers.json"));
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

Vec vec(const QJsonValue &v)
{
    Vec out;
    for (const QJsonValue &x : v.toArray()) out.push_back(x.toDouble());
    return out;
}

// |a − b| ≤ 1e-12·max(1, |b|): "exact where arithmetic allows".
bool close(double a, double b, double tol = 1e-12)
{
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return std::abs(a - b) <= tol * std::max(1.0, std::abs(b));
}

#define QCLOSE(a, b) QVERIFY2(close((a), (b)), qPrintable(QStringLiteral("%1 vs expected %2").arg((a), 0, 'g', 17).arg((b), 0, 'g', 17)))

} // namespace

class TestStats : public QObject {
    Q_OBJECT
private slots:
    void fixtureLoads()
    {
        const QJsonObject k = knownAnswers();
        QVERIFY(!k.isEmpty());
        QVERIFY(k.value("versions").toObject().contains("scipy"));
    }

    void handSummaries()
    {
        // (1, 2, 3, 4): mean 2.5; Σ(x − m)² = 5, sd = √(5/3); median 2.5; q = 2.5: h = 3·0.025 = 0.075 → 1.075.
        const Vec x{4, 1, 3, 2};
        QCLOSE(mean(x), 2.5);
        QCLOSE(standardDeviation(x), std::sqrt(5.0 / 3.0));
        QCLOSE(percentile(x, 50), 2.5);
        QCLOSE(percentile(x, 2.5), 1.075);
        QCLOSE(percentile(x, 100), 4.0);
        QVERIFY(std::isnan(mean({})));
        QVERIFY(std::isnan(standardDeviation({3.0})));
        QVERIFY(std::isnan(percentile({}, 50)));
    }

    void summaries_data()
    {
        QTest::addColumn<QJsonObject>("c");
        for (const QJsonValue &c : knownAnswers().value("summaries").toArray())
            QTest::newRow(qPrintable(c.toObject().value("name").toString())) << c.toObject();
    }
    void summaries()
    {
        QFETCH(QJsonObject, c);
        const Vec x = vec(c.value("x"));
        QCLOSE(mean(x), c.value("mean").toDouble());
        if (c.value("sd").isNull()) QVERIFY(std::isnan(standardDeviation(x)));
        else QCLOSE(standardDeviation(x), c.value("sd").toDouble());
        QCLOSE(percentile(x, 50), c.value("median").toDouble());
        const QJsonObject q = c.value("percentiles").toObject();
        for (auto it = q.begin(); it != q.end(); ++it) QCLOSE(percentile(x, it.key().toDouble()), it.value().toDouble());
    }

    void generator()
    {
        // SplitMix64's reference outputs for seed 0 (Vigna's splitmix64.c): e220a8397b1dcdaf, 6e789e6aa1b965f4.
        QCOMPARE(deriveSeed(0, 0) != 0, true);
        const QJsonArray s0 = knownAnswers().value("splitmix64_seed0").toArray();
        QCOMPARE(s0.at(0).toString().toULongLong(), 0xe220a8397b1dcdafull);
        QCOMPARE(s0.at(1).toString().toULongLong(), 0x6e789e6aa1b965f4ull);
        for (const QJsonValue &v : knownAnswers().value("derive_seed").toArray()) {
            const QJsonObject o = v.toObject();
            QCOMPARE(deriveSeed(o.value("seed").toString().toULongLong(), o.value("k").toString().toULongLong()),
                     o.value("value").toString().toULongLong());
        }
        // FNV-1a 64: "" → offset basis, "a" → af63dc4c8601ec8c (the published test vectors).
        QCOMPARE(nameHash("", 0), 0xcbf29ce484222325ull);
        QCOMPARE(nameHash("a", 1), 0xaf63dc4c8601ec8cull);
    }

    void bootstrap_data()
    {
        QTest::addColumn<QJsonObject>("c");
        for (const QJsonValue &c : knownAnswers().value("bootstrap").toArray()) {
            const QJsonObject o = c.toObject();
            QTest::addRow("%s seed %d B %d", qPrintable(o.value("name").toString()), o.value("seed").toInt(),
                          o.value("resamples").toInt())
                << o;
        }
    }
    void bootstrap()
    {
        QFETCH(QJsonObject, c);
        const Vec x = vec(c.value("x"));
        const Interval iv = bootstrapMeanInterval(x, static_cast<std::uint64_t>(c.value("seed").toInteger()),
                                                  c.value("resamples").toInt());
        const QJsonArray want = c.value("interval").toArray();
        QCLOSE(iv.lo, want.at(0).toDouble());
        QCLOSE(iv.hi, want.at(1).toDouble());
    }
    void bootstrapProperties()
    {
        // One value: every resample is that value.
        const Interval one = bootstrapMeanInterval({0.7}, 1, 50);
        QCOMPARE(one.lo, 0.7);
        QCOMPARE(one.hi, 0.7);
        const Vec x{0.1, 0.5, 0.2, 0.9, 0.4, 0.3, 0.8};
        const Interval a = bootstrapMeanInterval(x, 11), b = bootstrapMeanInterval(x, 11);
        QCOMPARE(a.lo, b.lo);
        QCOMPARE(a.hi, b.hi);
        QVERIFY(a.lo < mean(x) && mean(x) < a.hi);
        QVERIFY(std::isnan(bootstrapMeanInterval({}, 1).lo));
    }

    void wilcoxonHand()
    {
        // d = (1, −2, 3, 4): ranks 1..4, R+ = 1 + 3 + 4 = 8, R− = 2. Under H0 the 16 sign patterns give W = 8, 9, 10
        // once each, so P(W ≥ 8) = 3/16 and p = 2·3/16 = 0.375; rank-biserial (8 − 2)/10 = 0.6.
        const WilcoxonResult r = wilcoxonSignedRank({1, -2, 3, 4}, {0, 0, 0, 0});
        QCOMPARE(r.n, 4);
        QVERIFY(r.exact);
        QCOMPARE(r.rPlus, 8.0);
        QCOMPARE(r.rMinus, 2.0);
        QCOMPARE(r.statistic, 2.0);
        QCLOSE(r.p, 0.375);
        QCLOSE(r.rankBiserial, 0.6);
        // Every difference zero: no test.
        const WilcoxonResult z = wilcoxonSignedRank({1, 2}, {1, 2});
        QCOMPARE(z.n, 0);
        QCOMPARE(z.zeros, 2);
        QVERIFY(std::isnan(z.p));
        QVERIFY(std::isnan(z.rankBiserial));
        // One positive difference: W ∈ {0, 1}, p = min(1, 2·1/2) = 1.
        QCLOSE(wilcoxonSignedRank({2}, {1}).p, 1.0);
    }

    void wilcoxon_data()
    {
        QTest::addColumn<QJsonObject>("c");
        for (const QJsonValue &c : knownAnswers().value("wilcoxon").toArray()) {
            const QJsonObject o = c.toObject();
            QTest::addRow("n=%d zeros=%d %s%s", o.value("n").toInt(), o.value("zeros").toInt(),
                          o.value("exact").toBool() ? "exact" : "normal", o.value("ties").toBool() ? " ties" : "")
                << o;
        }
    }
    void wilcoxon()
    {
        QFETCH(QJsonObject, c);
        const WilcoxonResult r = wilcoxonSignedRank(vec(c.value("x")), vec(c.value("y")));
        QCOMPARE(r.n, c.value("n").toInt());
        QCOMPARE(r.zeros, c.value("zeros").toInt());
        QCOMPARE(r.exact, c.value("exact").toBool());
        QCOMPARE(r.ties, c.value("ties").toBool());
        QCLOSE(r.rPlus, c.value("r_plus").toDouble());
        QCLOSE(r.rMinus, c.value("r_minus").toDouble());
        QCLOSE(r.statistic, c.value("statistic").toDouble());
        QCLOSE(r.p, c.value("p").toDouble());
        QCLOSE(r.rankBiserial, c.value("rank_biserial").toDouble());
        if (c.contains("z")) QCLOSE(r.z, c.value("z").toDouble());
        else QVERIFY(std::isnan(r.z));
    }

    void holmHand()
    {
        // (0.01, 0.04, 0.03): sorted 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → running max 0.06.
        const Vec a = holm({0.01, 0.04, 0.03});
        QCLOSE(a[0], 0.03);
        QCLOSE(a[1], 0.06);
        QCLOSE(a[2], 0.06);
        // NaN is not a test: m = 2. 0.02·2 = 0.04, 0.5·1 = 0.5; and the cap at 1.
        const Vec b = holm({kNaN, 0.02, 0.5});
        QVERIFY(std::isnan(b[0]));
        QCLOSE(b[1], 0.04);
        QCLOSE(b[2], 0.5);
        QCLOSE(holm({0.6, 0.7})[0], 1.0);
    }
    void holmKnown()
    {
        for (const QJsonValue &c : knownAnswers().value("holm").toArray()) {
            const Vec got = holm(vec(c.toObject().value("p")));
            const Vec want = vec(c.toObject().value("adjusted"));
            QCOMPARE(got.size(), want.size());
            for (std::size_t i = 0; i < got.size(); ++i) QCLOSE(got[i], want[i]);
        }
    }

    void averagePrecisionKnown()
    {
        for (const QJsonValue &c : knownAnswers().value("average_precision").toArray()) {
            const QJsonObject o = c.toObject();
            std::vector<std::uint8_t> labels;
            for (const QJsonValue &l : o.value("labels").toArray()) labels.push_back(static_cast<std::uint8_t>(l.toInt()));
            QCLOSE(averagePrecision(vec(o.value("scores")), labels), o.value("ap").toDouble());
        }
        QVERIFY(std::isnan(averagePrecision({0.1, 0.2}, {0, 0})));
    }

    void plausibilityHand_data()
    {
        QTest::addColumn<bool>("charSpans");
        QTest::newRow("gold spans from the mask") << false;
        QTest::newRow("three separate character spans") << true;
    }
    void plausibilityHand()
    {
        QFETCH(bool, charSpans);
        // L = 8, positions 0 and 7 special (NaN). Gold {3, 4, 6}. Top-3 by score: 1 (0.9), 3 (0.8), 4 (0.7): 2 hits,
        // P = R = F1 = 2/3. Predicted spans [1,2), [3,5). Gold spans from the mask: [3,5), [6,7): [3,5) matches (IOU 1),
        // P = R = 1/2, IOU F1 = 1/2. With gold spans [3,4), [4,5), [6,7): [3,5) has IOU 1/2 ≥ 0.5 with [3,4), one
        // match, P = 1/2, R = 1/3, F1 = 2·(1/6)/(5/6) = 0.4.
        // AUPRC: ranking 1−, 3+, 4+, 6+, 2−, 5−: precision at the positives 1/2, 2/3, 3/4 → AP = (1/2 + 2/3 + 3/4)/3 = 23/36.
        const Vec scores{kNaN, 0.9, 0.1, 0.8, 0.7, 0.05, 0.3, kNaN};
        const std::vector<std::uint8_t> gold{0, 0, 0, 1, 1, 0, 1, 0};
        const std::vector<Span> spans = charSpans ? std::vector<Span>{{3, 4}, {4, 5}, {6, 7}} : std::vector<Span>{};
        const Plausibility p1 = plausibility(scores, gold, 1, spans);
        QCOMPARE(p1.goldTokens, 3);
        QCLOSE(p1.tokenF1, 2.0 / 3.0);
        QCLOSE(p1.tokenPrecision, 2.0 / 3.0);
        QCOMPARE(p1.predictedSpans, 2);
        QCOMPARE(p1.goldSpans, charSpans ? 3 : 2);
        QCOMPARE(p1.iouMatches, 1);
        QCLOSE(p1.iouF1, charSpans ? 0.4 : 0.5);
        QCLOSE(p1.auprc, 23.0 / 36.0);
        QCOMPARE(p1.k, 1);
        QCLOSE(p1.precisionAtK, 0.0);
        QCLOSE(plausibility(scores, gold, 2, spans).precisionAtK, 0.5);
        QCOMPARE(plausibility(scores, gold, 99, spans).k, 6);   // clamped to the scored tokens
    }
    void plausibilityEdges()
    {
        // No gold token among the scored ones: undefined, not 0.
        const Plausibility none = plausibility({kNaN, 0.5, 0.2}, {1, 0, 0}, 1);
        QVERIFY(std::isnan(none.tokenF1));
        QVERIFY(std::isnan(none.auprc));
        // A perfect ranking: everything 1.
        const Plausibility best = plausibility({kNaN, 0.1, 0.9, 0.8, 0.2}, {0, 0, 1, 1, 0}, 2);
        QCLOSE(best.tokenF1, 1.0);
        QCLOSE(best.iouF1, 1.0);
        QCLOSE(best.auprc, 1.0);
        QCLOSE(best.precisionAtK, 1.0);
        QCOMPARE(spansOf({1, 1, 0, 1, 0, 0, 1}), (std::vector<Span>{{0, 2}, {3, 4}, {6, 7}}));
    }
};

QTEST_GUILESS_MAIN(TestStats)
#include "tst_stats.moc"
