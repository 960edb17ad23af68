// SPDX-License-Identifier: GPL-3.0-or-later
// The exact zoomable attention map (attnscope/attentionmap.h) against the fp64 reference: every overview cell is
// the block's Σ P and max P, every grid row sums to the number of its query rows that see a key (within 1e-3
// relative, the invariant; in practice ~1e-6), windows are the exact weights (2× the naive fp32 error, like
// returned weights), masks, soft-cap, per-head bias and GQA are honoured, results are bit-identical for 1, 2 and 3
// threads, and bad requests are refused naming the field. n = 131072 runs only in the bench (attnscope-kernelbench
// map).

#include "attentioncheck.h"
#include "testsupport.h"

#include <attnscope/attentionmap.h>
#include <attnscope/reference.h>

#include <QtTest>

#include <atomic>
#include <cmath>
#include <limits>

using namespace attn;
using namespace attn::test;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

struct Problem {
    std::int64_t B, H, Hkv, Lq, Lk, D;
    Operand q, k, v;
    MaskSpec mask;
};

Problem makeProblem(std::int64_t B, std::int64_t H, std::int64_t Hkv, std::int64_t Lq, std::int64_t Lk,
                    std::int64_t D, MaskKind kind, bool headBias, float amp, std::uint64_t seed)
{
    Problem p{B, H, Hkv, Lq, Lk, D, {}, {}, {}, {}};
    p.q = makeOperand({B, H, Lq, D}, Layout::BLHD, seed * 3 + 1, amp);
    p.k = makeOperand({B, Hkv, Lk, D}, Layout::BHLD, seed * 3 + 2, amp);
    p.v = makeOperand({B, Hkv, Lk, D}, Layout::BHLD, seed * 3 + 3);
    p.mask = makeMask(kind, B, H, Lq, Lk, seed);
    if (headBias) {
        Rng rng(seed ^ 77);
        p.mask.headBias.resize(static_cast<std::size_t>(H * Lq * Lk));
        for (float &x : p.mask.headBias) x = rng.uniform() < 0.05 ? -kInf : static_cast<float>(rng.normal());
    }
    return p;
}

bool sameOverview(const AttentionMapOverview &a, const AttentionMapOverview &b)
{
    return a.mass == b.mass && a.max == b.max && a.rows.m == b.rows.m && a.rows.l == b.rows.l;
}

} // namespace

class TestAttentionMap : public QObject {
    Q_OBJECT

private slots:
    void overviewMatchesReference_data();
    void overviewMatchesReference();
    void windowMatchesReference_data();
    void windowMatchesReference();
    void windowOnSampledRowsOfALongInput();
    void blockStarts();
    void progressAndCancel();
    void badRequestsNameTheField();
};

void TestAttentionMap::overviewMatchesReference_data()
{
    QTest::addColumn<int>("H");
    QTest::addColumn<int>("Hkv");
    QTest::addColumn<int>("Lq");
    QTest::addColumn<int>("Lk");
    QTest::addColumn<int>("D");
    QTest::addColumn<int>("mask");
    QTest::addColumn<int>("grid");
    QTest::addColumn<float>("softcap");
    QTest::addColumn<bool>("headBias");
    QTest::addColumn<int>("dtype");
    using M = MaskKind;
    auto row = [](int H, int Hkv, int Lq, int Lk, int D, MaskKind mask, int grid, float softcap = 0.0f,
                  bool headBias = false, ComputeDtype dtype = ComputeDtype::F32) {
        QString tag = Lq == Lk ? QStringLiteral("n=%1").arg(Lq) : QStringLiteral("lq=%1 lk=%2").arg(Lq).arg(Lk);
        tag += QStringLiteral(" d=%1 h=%2").arg(D).arg(H);
        if (Hkv != H) tag += QStringLiteral(" hkv=%1").arg(Hkv);
        tag += QStringLiteral(" %1 grid=%2").arg(QLatin1String(maskKindName(mask))).arg(grid);
        if (softcap > 0.0f) tag += QStringLiteral(" softcap=%1").arg(softcap);
        if (headBias) tag += QStringLiteral(" headBias");
        if (dtype != ComputeDtype::F32) tag += QLatin1Char(' ') + QString::fromStdString(dtypeName(dtype));
        QTest::newRow(qPrintable(tag)) << H << Hkv << Lq << Lk << D << int(mask) << grid << softcap << headBias
                                       << int(dtype);
    };
    row(1, 1, 1, 1, 16, M::Bidirectional, 1024);
    row(2, 2, 7, 7, 64, M::Causal, 3);
    row(2, 1, 7, 97, 80, M::WindowCausal, 1024, 10.0f);
    row(1, 1, 97, 97, 16, M::Bidirectional, 8);
    row(2, 2, 97, 97, 64, M::Causal, 33, 0.0f, true);
    row(4, 2, 97, 97, 128, M::KeyPadding, 1024, 20.0f);
    row(2, 2, 97, 97, 80, M::QueryPadding, 10);
    row(2, 2, 97, 33, 64, M::Causal, 16);                 // Lq > Lk: fully masked rows
    row(2, 2, 97, 97, 64, M::Everything, 7, 5.0f, true);
    row(2, 2, 1025, 1025, 64, M::Bidirectional, 64);
    row(1, 1, 1025, 1025, 16, M::CausalLeftPadding, 100, 0.0f, false, ComputeDtype::BF16);
    row(2, 1, 1025, 1025, 80, M::WindowCausal, 1024, 30.0f, true);
}

void TestAttentionMap::overviewMatchesReference()
{
    QFETCH(int, H);
    QFETCH(int, Hkv);
    QFETCH(int, Lq);
    QFETCH(int, Lk);
    QFETCH(int, D);
    QFETCH(int, mask);
    QFETCH(int, grid);
    QFETCH(float, softcap);
    QFETCH(bool, headBias);
    QFETCH(int, dtype);
    const std::int64_t B = 2;
    const Problem p = makeProblem(B, H, Hkv, Lq, Lk, D, MaskKind(mask), headBias, 2.0f,
                                  seedFromTag(QTest::currentDataTag()));
    ReferenceOptions ro;
    ro.keepWeights = true;
    ro.softcap = softcap;
    ro.dtype = ComputeDtype(dtype);
    auto ref = referenceAttention(p.q.view(), p.k.view(), p.v.view(), p.mask, ro);
    QVERIFY2(ref.isOk(), ref.status().message().c_str());

    AttentionMapOptions opt;
    opt.batch = B - 1;
    opt.head = H - 1;
    opt.grid = grid;
    opt.softcap = softcap;
    opt.computeDtype = ComputeDtype(dtype);
    opt.threads = 2;
    auto map = attentionMapOverview(p.q.view(), p.k.view(), p.mask, opt);
    QVERIFY2(map.isOk(), map.status().message().c_str());
    const std::int64_t Gq = std::min<std::int64_t>(grid, Lq), Gk = std::min<std::int64_t>(grid, Lk);
    QCOMPARE(map->gridRows, Gq);
    QCOMPARE(map->gridCols, Gk);
    QCOMPARE(map->mass.size(), std::size_t(Gq * Gk));
    QVERIFY(map->rowStart == attentionMapBlockStarts(Lq, grid));
    QVERIFY(map->colStart == attentionMapBlockStarts(Lk, grid));

    const std::size_t head = static_cast<std::size_t>(((B - 1) * H + H - 1) * Lq);
    const double *P = ref->P.data() + head * static_cast<std::size_t>(Lk);
    // The block maxima are single weights: the rule for returned weights, 2 × the naive fp32 error.
    const auto rounded = [&](const Operand &op) {
        const TensorView t = op.view();
        std::vector<float> values;
        for (std::int64_t b = 0; b < t.shape[0]; ++b)
            for (std::int64_t h = 0; h < t.shape[1]; ++h)
                for (std::int64_t i = 0; i < t.shape[2]; ++i)
                    for (std::int64_t d = 0; d < t.shape[3]; ++d)
                        values.push_back(roundToDtype(t.at(b, h, i, d), ComputeDtype(dtype)));
        return operandFromValues(t.shape, values);
    };
    const Operand qr = rounded(p.q), kr = rounded(p.k), vr = rounded(p.v);
    const NaiveOutput naive = naiveAttention(qr.view(), kr.view(), vr.view(), p.mask, 0.0f, true, softcap);
    double errNaiveP = 0.0;
    for (std::size_t e = 0; e < static_cast<std::size_t>(Lq * Lk); ++e)
        errNaiveP = std::max(errNaiveP, std::abs(double(naive.P[head * Lk + e]) - P[e]));
    double worstMass = 0.0, worstMax = 0.0, worstRowSum = 0.0;
    for (std::int64_t a = 0; a < Gq; ++a) {
        const std::int64_t i0 = map->rowStart[a], i1 = map->rowStart[a + 1];
        std::int64_t liveRows = 0;
        for (std::int64_t i = i0; i < i1; ++i) liveRows += std::isfinite(ref->lse[head + i]) ? 1 : 0;
        double rowSum = 0.0;
        for (std::int64_t b = 0; b < Gk; ++b) {
            double mass = 0.0, mx = 0.0;
            for (std::int64_t i = i0; i < i1; ++i)
                for (std::int64_t j = map->colStart[b]; j < map->colStart[b + 1]; ++j) {
                    mass += P[i * Lk + j];
                    mx = std::max(mx, P[i * Lk + j]);
                }
            const float gotMass = map->mass[a * Gk + b], gotMax = map->max[a * Gk + b];
            QVERIFY2(std::isfinite(gotMass) && std::isfinite(gotMax), "NaN/Inf in the grid");
            if (mass == 0.0) QVERIFY2(gotMass == 0.0f && gotMax == 0.0f, qPrintable(QStringLiteral("cell (%1, %2) has no mass in fp64 but %3 here").arg(a).arg(b).arg(gotMass)));
            worstMass = std::max(worstMass, std::abs(gotMass - mass) / (double(i1 - i0) * 1e-6 + 1e-5 * mass));
            worstMax = std::max(worstMax, std::abs(gotMax - mx));
            rowSum += gotMass;
        }
        const double rel = liveRows == 0 ? rowSum : std::abs(rowSum - double(liveRows)) / double(liveRows);
        worstRowSum = std::max(worstRowSum, rel);
        QVERIFY2(rel <= 1e-3, qPrintable(QStringLiteral("grid row %1 sums to %2, expected %3").arg(a).arg(rowSum, 0, 'g', 9).arg(liveRows)));
    }
    // |Δmass| <= 1e-6 per query row of the block + 1e-5 relative; |Δmax| <= 2 × the naive fp32 error of P.
    QVERIFY2(worstMass <= 1.0, qPrintable(QStringLiteral("mass error %1 of the bound").arg(worstMass)));
    QVERIFY2(worstMax <= 2.0 * errNaiveP + 1e-7,
             qPrintable(QStringLiteral("block max error %1, naive fp32 P error %2").arg(worstMax).arg(errNaiveP)));
    for (std::int64_t i = 0; i < Lq; ++i) {
        const double want = ref->lse[head + i], got = map->rows.lse(i);
        QVERIFY2(std::isinf(want) ? got == std::numeric_limits<double>::infinity()
                                  : std::abs(got - want) <= 1e-5 * std::max(1.0, std::abs(want)),
                 qPrintable(QStringLiteral("row %1 lse %2, fp64 %3").arg(i).arg(got).arg(want)));
    }
    for (int threads : {1, 3}) {
        opt.threads = threads;
        auto again = attentionMapOverview(p.q.view(), p.k.view(), p.mask, opt);
        QVERIFY(again.isOk());
        QVERIFY2(sameOverview(*map, *again), qPrintable(QStringLiteral("%1 threads differ from 2").arg(threads)));
    }
    qInfo("worst mass error %.2g of the bound, max error %.2g (naive P %.2g), row-sum error %.2g", worstMass, worstMax,
          errNaiveP, worstRowSum);
}

void TestAttentionMap::windowMatchesReference_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("D");
    QTest::addColumn<int>("mask");
    QTest::addColumn<float>("softcap");
    QTest::addColumn<bool>("headBias");
    QTest::addColumn<int>("q0");
    QTest::addColumn<int>("q1");
    QTest::addColumn<int>("k0");
    QTest::addColumn<int>("k1");
    QTest::newRow("n=1 whole") << 1 << 16 << int(MaskKind::Bidirectional) << 0.0f << false << 0 << 1 << 0 << 1;
    QTest::newRow("n=7 d=80 causal whole") << 7 << 80 << int(MaskKind::Causal) << 0.0f << true << 0 << 7 << 0 << 7;
    QTest::newRow("n=97 d=64 window+causal cell") << 97 << 64 << int(MaskKind::WindowCausal) << 0.0f << false << 50 << 51 << 45 << 46;
    QTest::newRow("n=97 d=128 keypad softcap") << 97 << 128 << int(MaskKind::KeyPadding) << 8.0f << false << 3 << 70 << 20 << 97;
    QTest::newRow("n=1025 d=64 causal band") << 1025 << 64 << int(MaskKind::Causal) << 0.0f << false << 500 << 700 << 300 << 1025;
    QTest::newRow("n=1025 d=16 everything softcap headBias") << 1025 << 16 << int(MaskKind::Everything) << 20.0f << true << 31 << 300 << 0 << 1025;
}

void TestAttentionMap::windowMatchesReference()
{
    QFETCH(int, n);
    QFETCH(int, D);
    QFETCH(int, mask);
    QFETCH(float, softcap);
    QFETCH(bool, headBias);
    QFETCH(int, q0);
    QFETCH(int, q1);
    QFETCH(int, k0);
    QFETCH(int, k1);
    const std::int64_t B = 1, H = 2;
    const Problem p = makeProblem(B, H, 1, n, n, D, MaskKind(mask), headBias, 2.0f, seedFromTag(QTest::currentDataTag()));
    ReferenceOptions ro;
    ro.keepWeights = true;
    ro.softcap = softcap;
    auto ref = referenceAttention(p.q.view(), p.k.view(), p.v.view(), p.mask, ro);
    QVERIFY(ref.isOk());
    const NaiveOutput naive = naiveAttention(p.q.view(), p.k.view(), p.v.view(), p.mask, 0.0f, true, softcap);
    const std::size_t head = static_cast<std::size_t>(1 * n);   // (b = 0, h = 1)
    double errNaive = 0.0;
    for (std::int64_t i = q0; i < q1; ++i)
        for (std::int64_t j = k0; j < k1; ++j)
            errNaive = std::max(errNaive, std::abs(double(naive.P[(head + i) * n + j]) - ref->P[(head + i) * n + j]));

    AttentionMapOptions opt;
    opt.head = 1;
    opt.softcap = softcap;
    opt.grid = 16;
    auto overview = attentionMapOverview(p.q.view(), p.k.view(), p.mask, opt);
    QVERIFY(overview.isOk());
    for (const AttentionMapRows *rows : {static_cast<const AttentionMapRows *>(&overview->rows), static_cast<const AttentionMapRows *>(nullptr)}) {
        const std::string who = rows ? "with the overview's rows" : "with rows computed for the window";
        auto w = attentionMapWindow(p.q.view(), p.k.view(), p.mask, rows, q0, q1, k0, k1, opt);
        QVERIFY2(w.isOk(), w.status().message().c_str());
        QCOMPARE(w->P.size(), std::size_t((q1 - q0) * (k1 - k0)));
        double worst = 0.0;
        for (std::int64_t i = q0; i < q1; ++i) {
            double sum = 0.0;
            for (std::int64_t j = k0; j < k1; ++j) {
                const float got = w->P[(i - q0) * (k1 - k0) + (j - k0)];
                const double want = ref->P[(head + i) * n + j];
                QVERIFY2(std::isfinite(got), "NaN/Inf in the window");
                if (maskBias(p.mask, 0, 1, i, j, n, n) == -kInf && got != 0.0f)
                    QFAIL(msg(who + ": masked weight (" + std::to_string(i) + ", " + std::to_string(j) + ") = " + fmt(got)).constData());
                worst = std::max(worst, std::abs(got - want));
                sum += got;
            }
            if (k0 == 0 && k1 == n) {
                const double expect = std::isinf(ref->lse[head + i]) ? 0.0 : 1.0;
                QVERIFY2(std::abs(sum - expect) <= 1e-5, msg(who + ": row " + std::to_string(i) + " sums to " + fmt(sum)));
            }
        }
        const double bound = std::max(2.0 * errNaive + 1e-7, 1e-7);
        QVERIFY2(worst <= bound, msg(who + ": max |P − P64| = " + fmt(worst) + " > " + fmt(bound)));
        qInfo("%s: max |dP| %.2g (naive fp32 %.2g)", who.c_str(), worst, errNaive);
    }
}

void TestAttentionMap::windowOnSampledRowsOfALongInput()
{
    // A longer head, checked on sampled rows only (as the bench does at n = 131072).
    const std::int64_t n = 8191, D = 64;
    const Problem p = makeProblem(1, 1, 1, n, n, D, MaskKind::Causal, false, 1.0f, 4242);
    AttentionMapOptions opt;
    opt.grid = 256;
    auto overview = attentionMapOverview(p.q.view(), p.k.view(), p.mask, opt);
    QVERIFY(overview.isOk());
    const std::int64_t q0 = 5000, q1 = 5300, k0 = 4000, k1 = 5300;
    auto w = attentionMapWindow(p.q.view(), p.k.view(), p.mask, &overview->rows, q0, q1, k0, k1, opt);
    QVERIFY(w.isOk());
    ReferenceOptions ro;
    ro.keepWeights = true;
    ro.rows = {5000, 5001, 5123, 5299};
    auto ref = referenceAttention(p.q.view(), p.k.view(), p.v.view(), p.mask, ro);
    QVERIFY(ref.isOk());
    double worst = 0.0;
    for (std::size_t r = 0; r < ro.rows.size(); ++r)
        for (std::int64_t j = k0; j < k1; ++j)
            worst = std::max(worst, std::abs(double(w->P[(ro.rows[r] - q0) * (k1 - k0) + (j - k0)]) - ref->P[r * n + j]));
    // P here is at most ~1e-2; fp32 scores give |ΔP| ~ 1e-9, the atol 1e-7 is generous.
    QVERIFY2(worst <= 1e-7, qPrintable(QStringLiteral("max |P − P64| on sampled rows = %1").arg(worst)));
}

void TestAttentionMap::blockStarts()
{
    QVERIFY((attentionMapBlockStarts(10, 4) == std::vector<std::int64_t>{0, 2, 5, 7, 10}));
    QVERIFY((attentionMapBlockStarts(3, 1024) == std::vector<std::int64_t>{0, 1, 2, 3}));
    QVERIFY((attentionMapBlockStarts(131072, 1024)[1] == 128));
}

void TestAttentionMap::progressAndCancel()
{
    const Problem p = makeProblem(1, 1, 1, 2048, 2048, 64, MaskKind::Bidirectional, false, 1.0f, 8);
    AttentionMapOptions opt;
    std::vector<double> seen;
    opt.progress = [&](double f) { seen.push_back(f); };
    auto map = attentionMapOverview(p.q.view(), p.k.view(), p.mask, opt);
    QVERIFY(map.isOk());
    QVERIFY(!seen.empty());
    QVERIFY(std::is_sorted(seen.begin(), seen.end()));
    QCOMPARE(seen.back(), 1.0);

    std::atomic<int> polls{0};
    opt.progress = {};
    opt.cancel = [&] { return ++polls > 3; };   // stops after a few work items
    auto cancelled = attentionMapOverview(p.q.view(), p.k.view(), p.mask, opt);
    QVERIFY(!cancelled.isOk());
    QCOMPARE(cancelled.status().code(), ErrorCode::Cancelled);
    auto window = attentionMapWindow(p.q.view(), p.k.view(), p.mask, nullptr, 0, 2048, 0, 2048, opt);
    QVERIFY(!window.isOk());
    QCOMPARE(window.status().code(), ErrorCode::Cancelled);
}

void TestAttentionMap::badRequestsNameTheField()
{
    const Problem p = makeProblem(1, 2, 2, 9, 9, 16, MaskKind::Bidirectional, false, 1.0f, 1);
    struct Case {
        const char *what;
        AttentionMapOptions opt;
        const char *field;
    };
    AttentionMapOptions base;
    std::vector<Case> cases;
    { AttentionMapOptions o = base; o.grid = 0; cases.push_back({"grid 0", o, "grid"}); }
    { AttentionMapOptions o = base; o.head = 2; cases.push_back({"head 2 of 2", o, "head 2"}); }
    { AttentionMapOptions o = base; o.batch = -1; cases.push_back({"batch -1", o, "batch -1"}); }
    { AttentionMapOptions o = base; o.softcap = -3.0f; cases.push_back({"softcap -3", o, "softcap"}); }
    for (const Case &c : cases) {
        auto r = attentionMapOverview(p.q.view(), p.k.view(), p.mask, c.opt);
        QVERIFY2(!r.isOk(), c.what);
        QCOMPARE(r.status().code(), ErrorCode::InvalidArgument);
        QVERIFY2(r.status().message().find(c.field) != std::string::npos, r.status().message().c_str());
    }
    auto outside = attentionMapWindow(p.q.view(), p.k.view(), p.mask, nullptr, 3, 10, 0, 9, base);
    QVERIFY(!outside.isOk());
    QVERIFY2(outside.status().message().find("window [3, 10)") != std::string::npos, outside.status().message().c_str());
    AttentionMapRows shortRows;
    shortRows.m.assign(4, 0.0f);
    shortRows.l.assign(4, 1.0f);
    auto mismatch = attentionMapWindow(p.q.view(), p.k.view(), p.mask, &shortRows, 0, 9, 0, 9, base);
    QVERIFY(!mismatch.isOk());
    QVERIFY2(mismatch.status().message().find("Lq = 9") != std::string::npos, mismatch.status().message().c_str());
}

QTEST_APPLESS_MAIN(TestAttentionMap)
#include "tst_attentionmap.moc"
