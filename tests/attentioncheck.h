// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The check every fast-path test applies to one attention() result against the fp64 reference (Qt Test macros:
// include it from a Qt test only). Pass rule (reference/performance.md §5):
//   err_fast = max|O_fast − O_fp64| <= 2 · err_naive + 1e-7, where err_naive is the error of a straightforward fp32
//   full-row softmax on the same problem; and an absolute sanity bound atol 1e-5 + rtol 5e-6 · max|O_fp64|;
//   LSE within 1e-5 · max(1, |lse|); no NaN/Inf; fully masked rows 0 with LSE +inf; returned weights within the
//   same 2× rule, rows summing to 1 (0 for fully masked rows), masked weights exactly 0.

#include "testsupport.h"

#include <attnscope/attention.h>
#include <attnscope/reference.h>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace attn::test {

inline QByteArray msg(const std::string &s) { return QByteArray::fromStdString(s); }

// A seed from the row tag (FNV-1a), so each row has its own reproducible inputs.
inline std::uint64_t seedFromTag(const char *tag)
{
    std::uint64_t h = 1469598103934665603ull;
    for (; tag && *tag; ++tag) h = (h ^ static_cast<unsigned char>(*tag)) * 1099511628211ull;
    return h;
}

struct CheckShape {
    std::int64_t B, H, Lq, Lk, Dv;
    const MaskSpec *mask;
};

struct Expected {
    CheckShape p;
    const ReferenceOutput &ref;
    double errNaiveOut, errNaiveLse, errNaiveP;
};

// The heads a request returns, in order.
inline std::vector<HeadIndex> requestedHeads(const WeightsRequest &request, std::int64_t B, std::int64_t H)
{
    std::vector<HeadIndex> heads;
    if (request.mode == WeightsRequest::Mode::All) {
        for (std::int64_t b = 0; b < B; ++b)
            for (std::int64_t h = 0; h < H; ++h) heads.push_back({b, h});
    } else if (request.mode == WeightsRequest::Mode::Heads) {
        heads = request.heads;
    }
    return heads;
}

// Checks one fast-path result against the fp64 reference. QVERIFY returns from here only: callers check
// QTest::currentTestFailed(). With lseOnly the output must be empty and only the LSE is compared.
inline void checkResult(const Expected &e, const AttentionOutput &o, const std::string &backend,
                        const WeightsRequest &request, double &worstOut, bool lseOnly = false)
{
    constexpr float kInf = std::numeric_limits<float>::infinity();
    const CheckShape &p = e.p;
    const std::size_t rows = static_cast<std::size_t>(p.B * p.H * p.Lq);
    const std::size_t outN = rows * static_cast<std::size_t>(p.Dv);
    const std::string who = backend + (request.mode == WeightsRequest::Mode::None ? "" : " +weights");

    QCOMPARE(o.lse.size(), rows);
    if (lseOnly) {
        QVERIFY2(o.out.values.empty() && o.out.shape == (Shape4{0, 0, 0, 0}),
                 msg(who + ": LseOnly returned an output of shape " + shapeString(o.out.shape)));
    } else {
        QVERIFY2(o.out.shape == (Shape4{p.B, p.H, p.Lq, p.Dv}), msg(who + ": out shape " + shapeString(o.out.shape)));
        QCOMPARE(o.out.values.size(), outN);
        QVERIFY2(countNonFinite(o.out.values.data(), outN) == 0, msg(who + ": NaN/Inf in output"));
    }

    // Fully masked rows are 0 with LSE +inf; others have a finite LSE.
    for (std::size_t r = 0; r < rows; ++r) {
        const bool empty = std::isinf(e.ref.lse[r]);
        if (empty) {
            QVERIFY2(o.lse[r] == kInf, msg(who + ": fully masked row " + std::to_string(r) + " lse " + fmt(o.lse[r])));
            for (std::int64_t d = 0; d < p.Dv && !lseOnly; ++d)
                QVERIFY2(o.out.values[r * p.Dv + d] == 0.0f,
                         msg(who + ": fully masked row " + std::to_string(r) + " has output " +
                             fmt(o.out.values[r * p.Dv + d])));
        } else {
            QVERIFY2(std::isfinite(o.lse[r]), msg(who + ": row " + std::to_string(r) + " lse " + fmt(o.lse[r])));
        }
    }

    if (!lseOnly) {
        const ErrorStat eo = compare(o.out.values.data(), e.ref.out.data(), outN);
        worstOut = std::max(worstOut, eo.maxAbs);
        const double bound = 2.0 * e.errNaiveOut + 1e-7;
        QVERIFY2(eo.mismatchedInf == 0 && eo.maxAbs <= bound,
                 msg(who + ": output " + eo.describe() + " > 2*err_naive+1e-7 = " + fmt(bound)));
        const double sanity = 1e-5 + 5e-6 * eo.refMaxAbs;
        QVERIFY2(eo.maxAbs <= sanity, msg(who + ": output " + eo.describe() + " > atol/rtol " + fmt(sanity)));
    }

    double worstLse = 0.0;
    std::size_t worstRow = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        if (std::isinf(e.ref.lse[r])) continue;
        const double rel = std::abs(o.lse[r] - e.ref.lse[r]) / std::max(1.0, std::abs(e.ref.lse[r]));
        if (rel > worstLse) {
            worstLse = rel;
            worstRow = r;
        }
    }
    QVERIFY2(worstLse <= 1e-5, msg(who + ": lse relative error " + fmt(worstLse) + " at row " +
                                   std::to_string(worstRow) + " (naive fp32: " + fmt(e.errNaiveLse) + " abs)"));

    // Weights.
    const std::vector<HeadIndex> expectHeads = requestedHeads(request, p.B, p.H);
    QVERIFY2(o.weights.size() == expectHeads.size(),
             msg(who + ": " + std::to_string(o.weights.size()) + " weight heads, expected " +
                 std::to_string(expectHeads.size())));
    const std::size_t plane = static_cast<std::size_t>(p.Lq * p.Lk);
    for (std::size_t w = 0; w < expectHeads.size(); ++w) {
        const HeadWeights &hw = o.weights[w];
        const auto [b, h] = expectHeads[w];
        QVERIFY2(hw.index == expectHeads[w], msg(who + ": weights out of the requested order at " + std::to_string(w)));
        QCOMPARE(hw.P.size(), plane);
        const std::size_t base = static_cast<std::size_t>((b * p.H + h) * p.Lq) * static_cast<std::size_t>(p.Lk);
        const std::string head = who + " weights (b=" + std::to_string(b) + ", h=" + std::to_string(h) + ")";
        QVERIFY2(countNonFinite(hw.P.data(), plane) == 0, msg(head + ": NaN/Inf"));
        const ErrorStat ep = compare(hw.P.data(), e.ref.P.data() + base, plane);
        const double pBound = std::min(2.0 * e.errNaiveP + 1e-7, 1e-5);
        QVERIFY2(ep.maxAbs <= std::max(pBound, 1e-7),
                 msg(head + ": P " + ep.describe() + " > " + fmt(pBound) + " (naive " + fmt(e.errNaiveP) + ")"));
        for (std::int64_t i = 0; i < p.Lq; ++i) {
            const float *Prow = hw.P.data() + i * p.Lk;
            double sum = 0.0;
            for (std::int64_t j = 0; j < p.Lk; ++j) {
                sum += Prow[j];
                if (maskBias(*p.mask, b, h, i, j, p.Lq, p.Lk) == -kInf && Prow[j] != 0.0f)
                    QFAIL(msg(head + ": masked weight (" + std::to_string(i) + ", " + std::to_string(j) +
                              ") = " + fmt(Prow[j])).constData());
            }
            const bool empty = std::isinf(e.ref.lse[static_cast<std::size_t>((b * p.H + h) * p.Lq + i)]);
            const double want = empty ? 0.0 : 1.0;
            QVERIFY2(std::abs(sum - want) <= 1e-5,
                     msg(head + ": row " + std::to_string(i) + " sums to " + fmt(sum) + ", expected " + fmt(want)));
        }
    }
}

} // namespace attn::test
