// SPDX-License-Identifier: GPL-3.0-or-later
// FLOP and memory counts of exact and approximate attention (the formulas in approximate.h). The patterns'
// score counts are closed forms per row, written independently of the pattern predicate in variants_approx.cpp
// (the tests compare the two).
#include "variants_common.h"

#include <attnscope/approximate.h>

#include <algorithm>

namespace attn {

std::string approxKindName(ApproxKind kind)
{
    switch (kind) {
    case ApproxKind::LocalWindow: return "window";
    case ApproxKind::BlockLocal: return "block";
    case ApproxKind::Strided: return "strided";
    case ApproxKind::Dilated: return "dilated";
    case ApproxKind::LinearElu: return "linear-elu";
    case ApproxKind::RandomFeatures: return "random-features";
    }
    return "?";
}

std::optional<ApproxKind> parseApproxKind(const std::string &name)
{
    for (const ApproxKind k : {ApproxKind::LocalWindow, ApproxKind::BlockLocal, ApproxKind::Strided,
                               ApproxKind::Dilated, ApproxKind::LinearElu, ApproxKind::RandomFeatures})
        if (approxKindName(k) == name) return k;
    return std::nullopt;
}

namespace detail {

Status checkApproxSpec(const ApproxSpec &s)
{
    const std::string what = "approximation " + approxKindName(s.kind) + ": ";
    switch (s.kind) {
    case ApproxKind::LocalWindow:
        if (s.window < 0) return Status::invalid(what + "window " + std::to_string(s.window) + " (≥ 0)");
        break;
    case ApproxKind::BlockLocal:
        if (s.block < 1) return Status::invalid(what + "block " + std::to_string(s.block) + " (≥ 1)");
        break;
    case ApproxKind::Strided:
        if (s.stride < 1) return Status::invalid(what + "stride " + std::to_string(s.stride) + " (≥ 1)");
        break;
    case ApproxKind::Dilated:
        if (s.window < 0) return Status::invalid(what + "window " + std::to_string(s.window) + " (≥ 0)");
        if (s.dilation < 1) return Status::invalid(what + "dilation " + std::to_string(s.dilation) + " (≥ 1)");
        if (s.window > kVariantMaxSide * 1024 || s.dilation > kVariantMaxSide * 1024)
            return Status::invalid(what + "window · dilation is too large");
        break;
    case ApproxKind::LinearElu: break;
    case ApproxKind::RandomFeatures:
        if (s.features < 1 || s.features > 65536)
            return Status::invalid(what + "features " + std::to_string(s.features) + " (1 … 65536)");
        break;
    }
    if (!std::isfinite(s.scale) || s.scale < 0.0)
        return Status::invalid(what + "scale " + std::to_string(s.scale) + " (finite, ≥ 0; 0 = 1/√d)");
    return Status::ok();
}

CostCount patternCost(double c, std::int64_t d, std::int64_t dv)
{
    return {c * double(2 * d + 2 * dv + 6), c};
}

CostCount kernelCost(const ApproxSpec &spec, std::int64_t Lq, std::int64_t Lk, std::int64_t d, std::int64_t dv)
{
    const double q = double(Lq), k = double(Lk), D = double(d), Dv = double(dv);
    const bool rf = spec.kind == ApproxKind::RandomFeatures;
    const double r = rf ? double(spec.features) : D;              // feature dimension
    const double perRowFeatures = rf ? 2 * r * D + 2 * D + 3 * r : D;   // φ of one query or key row
    CostCount c;
    c.flops = (q + k) * perRowFeatures      // φ(Q), φ(K)
              + 2 * k * r * Dv              // S = Σ_j φ(k_j) v_jᵀ
              + k * r                       // z = Σ_j φ(k_j)
              + q * (2 * r * Dv + 2 * r + Dv);   // φ(q)ᵀS, φ(q)·z, divide
    c.memory = r * Dv + r + (rf ? r * D : 0.0);
    return c;
}

} // namespace detail

std::int64_t patternScoreCount(const ApproxSpec &spec, std::int64_t n)
{
    const bool causal = spec.causal;
    // Parameters past n change nothing; clamping keeps i ± window from overflowing.
    const std::int64_t window = std::clamp<std::int64_t>(spec.window, 0, n);
    const std::int64_t block = std::clamp<std::int64_t>(spec.block, 1, n);
    const std::int64_t stride = std::clamp<std::int64_t>(spec.stride, 1, n);
    const std::int64_t dilation = std::clamp<std::int64_t>(spec.dilation, 1, n);
    std::int64_t total = 0;
    switch (spec.kind) {
    case ApproxKind::LinearElu:
    case ApproxKind::RandomFeatures: return 0;
    case ApproxKind::LocalWindow:
        for (std::int64_t i = 0; i < n; ++i) {
            const std::int64_t lo = std::max<std::int64_t>(0, i - window);
            const std::int64_t hi = causal ? i : std::min(n - 1, i + window);
            total += hi - lo + 1;
        }
        return total;
    case ApproxKind::BlockLocal:
        for (std::int64_t i = 0; i < n; ++i) {
            const std::int64_t start = i / block * block;
            total += causal ? i - start + 1 : std::min(n, start + block) - start;
        }
        return total;
    case ApproxKind::Strided:
        // The band |i − j| < stride, plus the multiples of stride beyond it (only j = i is in both).
        for (std::int64_t i = 0; i < n; ++i) {
            const std::int64_t lo = std::max<std::int64_t>(0, i - (stride - 1));
            const std::int64_t hi = causal ? i : std::min(n - 1, i + stride - 1);
            total += hi - lo + 1 + i / stride + (causal ? 0 : (n - 1 - i) / stride);
        }
        return total;
    case ApproxKind::Dilated:
        // j = i + k·dilation for |k| ≤ window.
        for (std::int64_t i = 0; i < n; ++i)
            total += 1 + std::min(window, i / dilation) +
                     (causal ? 0 : std::min(window, (n - 1 - i) / dilation));
        return total;
    }
    return 0;
}

CostCount exactAttentionCost(std::int64_t n, std::int64_t d, std::int64_t dv, bool causal)
{
    const double N = double(n);
    return detail::patternCost(causal ? N * (N + 1) / 2 : N * N, d, dv);
}

Result<CostCount> approximateAttentionCost(const ApproxSpec &spec, std::int64_t n, std::int64_t d, std::int64_t dv)
{
    if (Status s = detail::checkApproxSpec(spec); !s) return s;
    if (n < 1 || n > (std::int64_t(1) << 24) || d < 1 || dv < 1 || d > kVariantMaxSide || dv > kVariantMaxSide)
        return Status::invalid("cost: n = " + std::to_string(n) + ", d = " + std::to_string(d) + ", dv = " +
                               std::to_string(dv) + " (n 1 … 2^24; d, dv 1 … 4096)");
    if (spec.kind == ApproxKind::LinearElu || spec.kind == ApproxKind::RandomFeatures)
        return detail::kernelCost(spec, n, n, d, dv);
    return detail::patternCost(double(patternScoreCount(spec, n)), d, dv);
}

Result<std::vector<CostPoint>> costCurve(const ApproxSpec &spec, const std::vector<std::int64_t> &ns, std::int64_t d,
                                         std::int64_t dv)
{
    std::vector<CostPoint> points;
    for (const std::int64_t n : ns) {
        auto approx = approximateAttentionCost(spec, n, d, dv);
        if (!approx) return approx.status();
        points.push_back({n, exactAttentionCost(n, d, dv, spec.causal), *approx});
    }
    return points;
}

} // namespace attn
