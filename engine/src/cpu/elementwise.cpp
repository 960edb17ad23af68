// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/elementwise.h"

#include "cpu/simd/exp.h"
#include "parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn::detail {

namespace {

namespace simd = attn::detail::simd;
using simd::Vec;
constexpr int kLanes = simd::kLanes;
constexpr std::int64_t kChunk = 16384;   // activation elements per work item

// x/2 · (1 + erf(z)), z = x/√2, with 1 + erf(z) formed without cancellation on either side. Pieces fitted for this
// file (weighted least squares, checked in fp32 against double):
//   |z| < 1:   1 + z · P(z²)                              P degree 5 (erf within 2.3 ulp)
//   |z| >= 1:  erfc(|z|) = e^{−z²} · Q(t), t = 1/(1 + |z|/2), fitted on [1, 6] (Q degree 7, 4e-7 relative);
//              erfc = 0 beyond 6 (erfc(6) = 2e-17); then 1 + erf(z) = erfc(−z) for z <= −1, 2 − erfc(z) for z >= 1
// z²'s exponent e^{−z²} is formed from x² (z = x/√2) split exactly into hi + lo by an FMA: rounding z first would
// put |z|²·2^-23 of relative error into erfc (25 ulp at z = 3.5).
Vec geluErfVec(Vec x)
{
    const Vec z = simd::mul(x, simd::set1(0.70710678118654752440f));
    const Vec az = simd::absolute(z);
    const Vec x2 = simd::mul(x, x);
    const Vec x2lo = simd::fma(x, x, simd::sub(simd::zero(), x2));
    const Vec y = simd::mul(x2, simd::set1(0.5f));   // z² up to the rounding of z, for the small branch
    Vec p = simd::set1(-0.0005631406093016267f);
    p = simd::fma(p, y, simd::set1(0.004917541053146124f));
    p = simd::fma(p, y, simd::set1(-0.026711294427514076f));
    p = simd::fma(p, y, simd::set1(0.11280179023742676f));
    p = simd::fma(p, y, simd::set1(-0.37612324953079224f));
    p = simd::fma(p, y, simd::set1(1.1283791065216064f));
    const Vec small = simd::fma(z, p, simd::set1(1.0f));

    const Vec t = simd::div(simd::set1(1.0f), simd::fma(az, simd::set1(0.5f), simd::set1(1.0f)));
    Vec q = simd::set1(0.10270305722951889f);
    q = simd::fma(q, t, simd::set1(-0.41552990674972534f));
    q = simd::fma(q, t, simd::set1(0.4844104051589966f));
    q = simd::fma(q, t, simd::set1(-0.042294323444366455f));
    q = simd::fma(q, t, simd::set1(0.31954139471054077f));
    q = simd::fma(q, t, simd::set1(0.2674085199832916f));
    q = simd::fma(q, t, simd::set1(0.28375479578971863f));
    q = simd::fma(q, t, simd::set1(-8.066082955338061e-05f));
    // e^{−z²} = e^{−x²/2} = e^{−hi/2} · e^{−lo/2}, and e^{−lo/2} = 1 − lo/2 to fp32 precision (|lo| <= ulp(x²)).
    const Vec gauss = simd::mul(simd::expNonPositive(simd::sub(simd::zero(), y)),
                                simd::fma(x2lo, simd::set1(-0.5f), simd::set1(1.0f)));
    Vec erfc = simd::mul(gauss, q);
    erfc = simd::selectLess(simd::set1(6.0f), az, simd::zero(), erfc);
    const Vec large = simd::selectLess(z, simd::zero(), erfc, simd::sub(simd::set1(2.0f), erfc));
    return simd::mul(simd::mul(x, simd::set1(0.5f)), simd::selectLess(az, simd::set1(1.0f), small, large));
}

// 1 + tanh(u) = 2σ(2u), formed from e = e^{−2|u|} <= 1 without cancellation: 2e/(1 + e) for u < 0 (where
// 1 + tanh(u) itself would round to 0 below u ≈ −9), 2/(1 + e) otherwise.
Vec geluTanhVec(Vec x)
{
    const Vec x3 = simd::mul(simd::mul(x, x), x);
    const Vec u = simd::mul(simd::set1(0.79788456080286535588f), simd::fma(simd::set1(0.044715f), x3, x));
    const Vec e = simd::expNonPositive(simd::mul(simd::absolute(u), simd::set1(-2.0f)));
    const Vec num = simd::selectLess(u, simd::zero(), e, simd::set1(1.0f));
    return simd::mul(x, simd::div(num, simd::add(simd::set1(1.0f), e)));
}

// x · σ(x) with e = e^{−|x|} <= 1 on both sides: σ(x) = 1 / (1 + e) for x >= 0, e / (1 + e) for x < 0.
Vec siluVec(Vec x)
{
    const Vec e = simd::expNonPositive(simd::sub(simd::zero(), simd::absolute(x)));
    const Vec num = simd::selectLess(x, simd::zero(), e, simd::set1(1.0f));
    return simd::mul(x, simd::div(num, simd::add(simd::set1(1.0f), e)));
}

// Applies f to n elements, the tail through a zero-padded vector (so every element sees the same code).
template <typename F>
void mapElements(const float *x, float *y, std::int64_t n, int threads, F f)
{
    const std::int64_t items = (n + kChunk - 1) / kChunk;
    parallelFor(items, std::max(1, threads), [&](std::int64_t item, int) {
        const std::int64_t begin = item * kChunk, end = std::min(n, begin + kChunk);
        std::int64_t i = begin;
        for (; i + kLanes <= end; i += kLanes) simd::store(y + i, f(simd::load(x + i)));
        if (i < end) {
            alignas(64) float tail[kLanes] = {};
            std::copy(x + i, x + end, tail);
            simd::store(tail, f(simd::load(tail)));
            std::copy(tail, tail + (end - i), y + i);
        }
    });
}

// Σ x[i] and Σ (x[i] − shift)² in a fixed order: four vector accumulators, a zero-padded tail, then a fixed
// lane reduction.
float horizontalSum(Vec v)
{
    alignas(64) float lanes[kLanes];
    simd::store(lanes, v);
    float s = 0.0f;
    for (int w = kLanes; w > 1; w /= 2)
        for (int i = 0; i < w / 2; ++i) lanes[i] += lanes[i + w / 2];
    s = lanes[0];
    return s;
}

template <typename F>
float reduceRow(const float *x, std::int64_t n, F term)
{
    Vec acc[4] = {simd::zero(), simd::zero(), simd::zero(), simd::zero()};
    std::int64_t i = 0;
    for (; i + 4 * kLanes <= n; i += 4 * kLanes)
        for (int u = 0; u < 4; ++u) acc[u] = simd::add(acc[u], term(simd::load(x + i + u * kLanes), true));
    for (; i + kLanes <= n; i += kLanes) acc[0] = simd::add(acc[0], term(simd::load(x + i), true));
    if (i < n) {
        alignas(64) float tail[kLanes] = {};
        std::copy(x + i, x + n, tail);
        alignas(64) float keep[kLanes] = {};
        std::fill(keep, keep + (n - i), 1.0f);
        acc[1] = simd::add(acc[1], simd::mul(term(simd::load(tail), false), simd::load(keep)));
    }
    return horizontalSum(simd::add(simd::add(acc[0], acc[1]), simd::add(acc[2], acc[3])));
}

template <typename RowFn>
void forRows(std::int64_t rows, std::int64_t cols, int threads, RowFn f)
{
    const std::int64_t perItem = std::max<std::int64_t>(1, kChunk / std::max<std::int64_t>(1, cols));
    const std::int64_t items = (rows + perItem - 1) / perItem;
    parallelFor(items, std::max(1, threads), [&](std::int64_t item, int) {
        for (std::int64_t r = item * perItem; r < std::min(rows, (item + 1) * perItem); ++r) f(r);
    });
}

} // namespace

void geluErf(const float *x, float *y, std::int64_t n, int threads) { mapElements(x, y, n, threads, geluErfVec); }
void geluTanh(const float *x, float *y, std::int64_t n, int threads) { mapElements(x, y, n, threads, geluTanhVec); }
void silu(const float *x, float *y, std::int64_t n, int threads) { mapElements(x, y, n, threads, siluVec); }
void expNonPositive(const float *x, float *y, std::int64_t n, int threads)
{
    mapElements(x, y, n, threads, [](Vec v) { return simd::expNonPositive(v); });
}

void layerNorm(const float *x, std::int64_t rows, std::int64_t cols, std::int64_t ldx, const float *gamma,
               const float *beta, float eps, float *y, std::int64_t ldy, int threads)
{
    forRows(rows, cols, threads, [&](std::int64_t r) {
        const float *xr = x + r * ldx;
        float *yr = y + r * ldy;
        const float mean = reduceRow(xr, cols, [](Vec v, bool) { return v; }) / static_cast<float>(cols);
        const Vec m = simd::set1(mean);
        const float var = reduceRow(xr, cols, [&](Vec v, bool) {
            const Vec d = simd::sub(v, m);
            return simd::mul(d, d);
        }) / static_cast<float>(cols);
        const float rstd = 1.0f / std::sqrt(var + eps);
        for (std::int64_t c = 0; c < cols; ++c) {
            const float v = (xr[c] - mean) * rstd * gamma[c];
            yr[c] = beta ? v + beta[c] : v;
        }
    });
}

void rmsNorm(const float *x, std::int64_t rows, std::int64_t cols, std::int64_t ldx, const float *gamma,
             float offset, float eps, float *y, std::int64_t ldy, int threads)
{
    forRows(rows, cols, threads, [&](std::int64_t r) {
        const float *xr = x + r * ldx;
        float *yr = y + r * ldy;
        const float ms = reduceRow(xr, cols, [](Vec v, bool) { return simd::mul(v, v); }) / static_cast<float>(cols);
        const float rinv = 1.0f / std::sqrt(ms + eps);
        for (std::int64_t c = 0; c < cols; ++c) yr[c] = (xr[c] * rinv) * (gamma[c] + offset);
    });
}

void softmaxRows(float *x, std::int64_t rows, std::int64_t cols, std::int64_t ldx, int threads)
{
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    forRows(rows, cols, threads, [&](std::int64_t r) {
        float *xr = x + r * ldx;
        float mx = kNegInf;
        for (std::int64_t c = 0; c < cols; ++c) mx = std::max(mx, xr[c]);
        if (mx == kNegInf) {
            std::fill(xr, xr + cols, 0.0f);
            return;
        }
        const Vec m = simd::set1(mx);
        std::int64_t c = 0;
        for (; c + kLanes <= cols; c += kLanes) simd::store(xr + c, simd::expNonPositive(simd::sub(simd::load(xr + c), m)));
        if (c < cols) {
            alignas(64) float tail[kLanes];
            std::fill(tail, tail + kLanes, kNegInf);
            std::copy(xr + c, xr + cols, tail);
            simd::store(tail, simd::expNonPositive(simd::sub(simd::load(tail), m)));
            std::copy(tail, tail + (cols - c), xr + c);
        }
        const float sum = reduceRow(xr, cols, [](Vec v, bool) { return v; });
        const float inv = 1.0f / sum;
        for (std::int64_t k = 0; k < cols; ++k) xr[k] *= inv;
    });
}

} // namespace attn::detail
