// SPDX-License-Identifier: GPL-3.0-or-later
// Tiny problems (n = 1..3, d = 1 or 2) whose answers are worked out by hand in the comments, run through every
// backend (outputs, LSE and weights within 1e-6) and through the fp64 oracle itself.

#include "testsupport.h"

#include <attnscope/attention.h>
#include <attnscope/reference.h>

#include <QtTest>

#include <cmath>
#include <limits>

using namespace attn;
using namespace attn::test;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

QByteArray msg(const std::string &s) { return QByteArray::fromStdString(s); }

} // namespace

struct KnownCase {
    Shape4 qShape, kShape, vShape;
    std::vector<float> q, k, v;
    MaskSpec mask;
    float scale = 0.0f;
    std::vector<double> out;   // [B, H, Lq, Dv]
    std::vector<double> lse;   // [B, H, Lq]
    std::vector<double> P;     // [B, H, Lq, Lk], empty: not checked
};
Q_DECLARE_METATYPE(KnownCase)

class TestKnownAnswers : public QObject {
    Q_OBJECT

private slots:
    void knownAnswers_data();
    void knownAnswers();
};

void TestKnownAnswers::knownAnswers_data()
{
    QTest::addColumn<KnownCase>("c");
    const double inf = std::numeric_limits<double>::infinity();
    const float ln2 = std::log(2.0f), ln3 = std::log(3.0f);

    {   // q = 0: every score is 0, so P is uniform and O is the mean of V: (1 + 2 + 6) / 3 = 3; lse = ln 3.
        KnownCase c{{1, 1, 1, 1}, {1, 1, 3, 1}, {1, 1, 3, 1}, {0}, {1, 2, 3}, {1, 2, 6}, {}, 0, {3.0}, {std::log(3.0)},
                    {1 / 3.0, 1 / 3.0, 1 / 3.0}};
        QTest::newRow("equal scores -> mean of V") << c;
    }
    {   // Same, key 2 is padding: O = (1 + 2) / 2 = 1.5, lse = ln 2, P = [1/2, 1/2, 0].
        KnownCase c{{1, 1, 1, 1}, {1, 1, 3, 1}, {1, 1, 3, 1}, {0}, {1, 2, 3}, {1, 2, 6}, {}, 0, {1.5}, {std::log(2.0)},
                    {0.5, 0.5, 0.0}};
        c.mask.keyValid = {1, 1, 0};
        QTest::newRow("one masked key") << c;
    }
    {   // Additive mask [0, ln 3] multiplies key 1's weight by e^{ln 3} = 3: P = [1/4, 3/4];
        // O = 4/4 + 3·8/4 = 7; lse = ln(1 + 3) = ln 4.
        KnownCase c{{1, 1, 1, 1}, {1, 1, 2, 1}, {1, 1, 2, 1}, {0}, {5, -5}, {4, 8}, {}, 0, {7.0}, {std::log(4.0)},
                    {0.25, 0.75}};
        c.mask.additive = {0.0f, ln3};
        QTest::newRow("additive mask shifts by e^x") << c;
    }
    {   // scale 1, q = 1, k = [0, ln 2]: scores 0 and ln 2, P = [1/3, 2/3]; O = 3/3 + 2·6/3 = 5; lse = ln 3.
        KnownCase c{{1, 1, 1, 1}, {1, 1, 2, 1}, {1, 1, 2, 1}, {1}, {0, ln2}, {3, 6}, {}, 1.0f, {5.0}, {std::log(3.0)},
                    {1 / 3.0, 2 / 3.0}};
        QTest::newRow("explicit scale, scores 0 and ln2") << c;
    }
    {   // Causal 3×3 with q = 0, V = [3, 6, 9]: row i averages keys 0..i -> O = [3, 4.5, 6]; lse = [0, ln 2, ln 3].
        KnownCase c{{1, 1, 3, 1}, {1, 1, 3, 1}, {1, 1, 3, 1}, {0, 0, 0}, {1, 2, 3}, {3, 6, 9}, MaskSpec::causalMask(),
                    0, {3, 4.5, 6}, {0, std::log(2.0), std::log(3.0)},
                    {1, 0, 0, 0.5, 0.5, 0, 1 / 3.0, 1 / 3.0, 1 / 3.0}};
        QTest::newRow("causal 3x3 running mean") << c;
    }
    {   // Lq = 3 > Lk = 2, causal bottom-right: i' = i − 1. Row 0 sees nothing (O 0, lse +inf), row 1 sees key 0,
        // row 2 sees both. V = [2, 4] -> O = [0, 2, 3]; lse = [+inf, 0, ln 2].
        KnownCase c{{1, 1, 3, 1}, {1, 1, 2, 1}, {1, 1, 2, 1}, {0, 0, 0}, {1, 1}, {2, 4}, MaskSpec::causalMask(), 0,
                    {0, 2, 3}, {inf, 0, std::log(2.0)}, {0, 0, 1, 0, 0.5, 0.5}};
        QTest::newRow("causal lq>lk fully masked first row") << c;
    }
    {   // Lq = 2 < Lk = 3, causal bottom-right: i' = i + 1. Row 0 sees keys 0,1, row 1 sees all.
        // V = [3, 6, 9] -> O = [4.5, 6].
        KnownCase c{{1, 1, 2, 1}, {1, 1, 3, 1}, {1, 1, 3, 1}, {0, 0}, {1, 2, 3}, {3, 6, 9}, MaskSpec::causalMask(), 0,
                    {4.5, 6}, {std::log(2.0), std::log(3.0)}, {0.5, 0.5, 0, 1 / 3.0, 1 / 3.0, 1 / 3.0}};
        QTest::newRow("causal lq<lk bottom-right") << c;
    }
    {   // d = 2, default scale 1/√2. q = [1, 1], k0 = [1, 1], k1 = [−1, −1]: scores ±2/√2 = ±√2.
        // P0 = 1 / (1 + e^{−2√2}) = 1 / 1.0591057 = 0.9441933, P1 = 0.0558067; V = I -> O = [P0, P1];
        // lse = √2 + ln(1 + e^{−2√2}) = 1.4142136 + 0.0574328 = 1.4716464.
        const double p0 = 1.0 / (1.0 + std::exp(-2.0 * std::sqrt(2.0)));
        KnownCase c{{1, 1, 1, 2}, {1, 1, 2, 2}, {1, 1, 2, 2}, {1, 1}, {1, 1, -1, -1}, {1, 0, 0, 1}, {}, 0,
                    {p0, 1 - p0}, {std::sqrt(2.0) + std::log1p(std::exp(-2.0 * std::sqrt(2.0)))}, {p0, 1 - p0}};
        QTest::newRow("d=2 default scale") << c;
    }
    {   // ALiBi slope ln 2, q = 0: P_ij ∝ 2^{−|i−j|}. V = I so O = P.
        // row 0: [1, 1/2, 1/4] / (7/4) = [4/7, 2/7, 1/7], lse = ln(7/4)
        // row 1: [1/2, 1, 1/2] / 2 = [1/4, 1/2, 1/4],     lse = ln 2
        // row 2: [1/7, 2/7, 4/7],                         lse = ln(7/4)
        const std::vector<double> P{4 / 7.0, 2 / 7.0, 1 / 7.0, 0.25, 0.5, 0.25, 1 / 7.0, 2 / 7.0, 4 / 7.0};
        KnownCase c{{1, 1, 3, 1}, {1, 1, 3, 1}, {1, 1, 3, 3}, {0, 0, 0}, {1, 2, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {}, 0,
                    P, {std::log(1.75), std::log(2.0), std::log(1.75)}, P};
        c.mask.alibiSlopes = {ln2};
        QTest::newRow("alibi slope ln2") << c;
    }
    {   // Window 1 (bidirectional), q = 0, V = [3, 6, 9]: row 0 sees {0,1} -> 4.5; row 1 all -> 6; row 2 {1,2} -> 7.5.
        KnownCase c{{1, 1, 3, 1}, {1, 1, 3, 1}, {1, 1, 3, 1}, {0, 0, 0}, {1, 2, 3}, {3, 6, 9},
                    MaskSpec::slidingWindow(1), 0, {4.5, 6, 7.5}, {std::log(2.0), std::log(3.0), std::log(2.0)}, {}};
        QTest::newRow("window 1") << c;
    }
    {   // Window 1 with causal: row i sees {i−1, i}: O = [3, 4.5, 7.5].
        KnownCase c{{1, 1, 3, 1}, {1, 1, 3, 1}, {1, 1, 3, 1}, {0, 0, 0}, {1, 2, 3}, {3, 6, 9},
                    MaskSpec::slidingWindow(1, true), 0, {3, 4.5, 7.5}, {0, std::log(2.0), std::log(2.0)}, {}};
        QTest::newRow("window 1 causal") << c;
    }
    {   // Block 2 over 3 tokens: blocks {0,1}, {2}: O = [4.5, 4.5, 9].
        KnownCase c{{1, 1, 3, 1}, {1, 1, 3, 1}, {1, 1, 3, 1}, {0, 0, 0}, {1, 2, 3}, {3, 6, 9}, {}, 0, {4.5, 4.5, 9},
                    {std::log(2.0), std::log(2.0), 0}, {}};
        c.mask.block = 2;
        QTest::newRow("block 2") << c;
    }
    {   // Boolean mask [[1,0,1],[0,1,0],[0,0,0]], q = 0, V = [3, 6, 9]: O = [6, 6, 0]; row 2 fully masked.
        KnownCase c{{1, 1, 3, 1}, {1, 1, 3, 1}, {1, 1, 3, 1}, {0, 0, 0}, {1, 2, 3}, {3, 6, 9}, {}, 0, {6, 6, 0},
                    {std::log(2.0), 0, inf}, {0.5, 0, 0.5, 0, 1, 0, 0, 0, 0}};
        c.mask.allowed = {1, 0, 1, 0, 1, 0, 0, 0, 0};
        QTest::newRow("boolean mask with empty row") << c;
    }
    {   // Query padding: batch 0 row 1 is padding. q = 0, V = [2, 4]: row 0 -> 3, row 1 -> 0 (lse +inf).
        KnownCase c{{1, 1, 2, 1}, {1, 1, 2, 1}, {1, 1, 2, 1}, {0, 0}, {1, 1}, {2, 4}, {}, 0, {3, 0},
                    {std::log(2.0), inf}, {0.5, 0.5, 0, 0}};
        c.mask.queryValid = {1, 0};
        QTest::newRow("query padding") << c;
    }
    {   // GQA: H = 2 query heads share one kv head. Head 0: q = 0 -> mean of V = 5. Head 1, scale 1: q = ln 3,
        // k = [0, 1] -> scores [0, ln 3], P = [1/4, 3/4] -> O = 2/4 + 3·8/4 = 6.5. V = [2, 8].
        KnownCase c{{1, 2, 1, 1}, {1, 1, 2, 1}, {1, 1, 2, 1}, {0, ln3}, {0, 1}, {2, 8}, {}, 1.0f, {5, 6.5},
                    {std::log(2.0), std::log(4.0)}, {0.5, 0.5, 0.25, 0.75}};
        QTest::newRow("gqa two heads one kv") << c;
    }
    {   // Dv != D: D = 1, Dv = 2, q = 0 -> O is the mean of V rows [1, 10] and [3, 30] = [2, 20].
        KnownCase c{{1, 1, 1, 1}, {1, 1, 2, 1}, {1, 1, 2, 2}, {0}, {7, -7}, {1, 10, 3, 30}, {}, 0, {2, 20},
                    {std::log(2.0)}, {0.5, 0.5}};
        QTest::newRow("dv=2 d=1") << c;
    }
}

void TestKnownAnswers::knownAnswers()
{
    QFETCH(KnownCase, c);
    const Operand q = operandFromValues(c.qShape, c.q);
    const Operand k = operandFromValues(c.kShape, c.k);
    const Operand v = operandFromValues(c.vShape, c.v);
    for (Backend backend : {Backend::Reference, Backend::Tiled, Backend::Unfused, Backend::Auto}) {
        AttentionOptions opt;
        opt.backend = backend;
        opt.scale = c.scale;
        opt.weights = WeightsRequest::all();
        auto r = attention(q.view(), k.view(), v.view(), c.mask, opt);
        const std::string name = backendName(backend);
        QVERIFY2(r.isOk(), msg(name + ": " + r.status().message()));
        QCOMPARE(r->out.values.size(), c.out.size());
        for (std::size_t i = 0; i < c.out.size(); ++i)
            QVERIFY2(std::abs(r->out.values[i] - c.out[i]) <= 1e-6 * std::max(1.0, std::abs(c.out[i])),
                     msg(name + ": out[" + std::to_string(i) + "] = " + fmt(r->out.values[i]) + ", expected " +
                         fmt(c.out[i])));
        QCOMPARE(r->lse.size(), c.lse.size());
        for (std::size_t i = 0; i < c.lse.size(); ++i) {
            const bool ok = std::isinf(c.lse[i]) ? r->lse[i] == kInf : std::abs(r->lse[i] - c.lse[i]) <= 1e-6;
            QVERIFY2(ok, msg(name + ": lse[" + std::to_string(i) + "] = " + fmt(r->lse[i]) + ", expected " +
                             fmt(c.lse[i])));
        }
        if (!c.P.empty()) {
            std::vector<float> all;
            for (const auto &w : r->weights) all.insert(all.end(), w.P.begin(), w.P.end());
            QCOMPARE(all.size(), c.P.size());
            for (std::size_t i = 0; i < c.P.size(); ++i)
                QVERIFY2(std::abs(all[i] - c.P[i]) <= 1e-6,
                         msg(name + ": P[" + std::to_string(i) + "] = " + fmt(all[i]) + ", expected " + fmt(c.P[i])));
        }
    }
    // The fp64 oracle itself. Inputs such as ln 3 are fp32 numbers (relative rounding ~6e-8), so the exact answer
    // for the stored inputs differs from the hand value by ~1e-8; 1e-7 still catches any real mistake.
    ReferenceOptions ro;
    ro.scale = c.scale;
    ro.keepWeights = true;
    auto ref = referenceAttention(q.view(), k.view(), v.view(), c.mask, ro);
    QVERIFY2(ref.isOk(), ref.status().message().c_str());
    for (std::size_t i = 0; i < c.out.size(); ++i)
        QVERIFY2(std::abs(ref->out[i] - c.out[i]) <= 1e-7 * std::max(1.0, std::abs(c.out[i])),
                 msg("reference out[" + std::to_string(i) + "] = " + std::to_string(ref->out[i])));
    for (std::size_t i = 0; i < c.lse.size(); ++i)
        QVERIFY(std::isinf(c.lse[i]) ? ref->lse[i] == double(kInf) : std::abs(ref->lse[i] - c.lse[i]) <= 1e-7);
}

QTEST_APPLESS_MAIN(TestKnownAnswers)
#include "tst_knownanswers.moc"
