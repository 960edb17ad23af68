// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Score tiles for the tiled CPU kernels (tiled.cpp) and the attention map (attentionmap.cpp): one query block's
// scores against a run of keys, with the soft-cap and the mask applied, exactly as attention.h defines them.
//
// Numerics: Q is packed pre-multiplied by scale·log2(e), so score tiles are in log2 units and the softmax uses
// exp2 directly (FA2's folding); the soft-cap works in the same units (cap·log2 e) and mask biases are multiplied
// by log2(e) when added. Every caller that computes scores for the same (row, key) computes them bit for bit alike:
// an attention map recomputed from the LSE pass sees exactly the scores that pass saw.
//
// Layout: every tile is transposed, [keys, query lanes] (see simd/microkernel.h), so the online-softmax
// statistics of a query block are kQueryVecs vectors and all of the bookkeeping is lane-wise.
//
// Masks: the structural part (causal, window, block, query padding, and the batch's range of valid keys)
// reduces to one key interval [lo, hi] per query row. A tile is skipped when no live row sees any of its keys,
// clipped to the columns some row needs, and does mask work only when some row's interval, a padding key, a
// custom boolean entry or a bias touches it. Rows whose interval is empty ("dead": query padding, causal rows
// with Lq > Lk, ...) are computed along with the block and overwritten with 0 / lse = +inf by the caller.

#include "cpu/buffer.h"
#include "cpu/simd/microkernel.h"
#include "cpu/simd/tanh.h"

#include <attnscope/mask.h>
#include <attnscope/tensor.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace attn::detail::tile {

namespace simd = attn::detail::simd;
using simd::Vec;
using detail::Buffer;

constexpr int kLanes = simd::kLanes;
constexpr int kBlockQ = simd::kBlockQ;       // query rows per block
constexpr int kBlockK = 128;                 // keys per tile: St is 32 KiB with 64-row blocks
constexpr double kLog2e = 1.44269504088896340736;
constexpr double kLn2 = 0.693147180559945309417;
constexpr float kInf = std::numeric_limits<float>::infinity();

// What every score tile of one problem shares: Q and K (V is the caller's), the mask, the folded constants.
struct ScoreProblem {
    TensorView q, k;                  // [B, H, Lq, D], [B, Hkv, Lk, D]
    const MaskSpec &mask;
    std::int64_t B, H, Lq, Lk, D, group;
    float qScale;                     // scale · log2 e
    float capL = 0.0f, invCapL = 0.0f;   // soft-cap in log2 units (cap · log2 e) and its inverse; 0: off
    std::vector<std::int64_t> firstKey, lastKey;   // per batch item: first and last valid key

    ScoreProblem(const TensorView &qv, const TensorView &kv, const MaskSpec &m, float scale, float softcap)
        : q(qv), k(kv), mask(m), B(qv.shape[0]), H(qv.shape[1]), Lq(qv.shape[2]), Lk(kv.shape[2]), D(qv.shape[3]),
          group(qv.shape[1] / kv.shape[1]), qScale(static_cast<float>(static_cast<double>(scale) * kLog2e))
    {
        if (softcap > 0.0f) {
            capL = static_cast<float>(static_cast<double>(softcap) * kLog2e);
            invCapL = static_cast<float>(1.0 / (static_cast<double>(softcap) * kLog2e));
        }
        firstKey.assign(static_cast<std::size_t>(B), 0);
        lastKey.assign(static_cast<std::size_t>(B), Lk - 1);
        if (mask.keyValid.empty()) return;
        for (std::int64_t b = 0; b < B; ++b) {
            const std::uint8_t *valid = mask.keyValid.data() + b * Lk;
            std::int64_t first = 0, last = Lk - 1;
            while (first < Lk && !valid[first]) ++first;
            while (last >= 0 && !valid[last]) --last;
            firstKey[static_cast<std::size_t>(b)] = first;
            lastKey[static_cast<std::size_t>(b)] = last;
        }
    }

    std::int64_t kvHead(std::int64_t h) const { return h / group; }
    const float *customPlane(const std::vector<float> &m, std::int64_t b) const
    {
        return m.data() + (static_cast<std::int64_t>(m.size()) > Lq * Lk ? b * Lq * Lk : 0);
    }
    const std::uint8_t *customPlane(const std::vector<std::uint8_t> &m, std::int64_t b) const
    {
        return m.data() + (static_cast<std::int64_t>(m.size()) > Lq * Lk ? b * Lq * Lk : 0);
    }
};

// Up to kBlockQ consecutive query rows of one (b, h) and their structural key intervals.
struct RowBlock {
    std::int64_t b = 0, h = 0, kvh = 0, q0 = 0;
    int rows = 0;
    bool anyLive = false;
    std::int64_t minLo = 0, maxHi = -1;       // union of the live rows' intervals
    bool live[kBlockQ];
    std::int64_t lo[kBlockQ], hi[kBlockQ];
    alignas(64) float loF[kBlockQ];           // +inf / -inf for dead and padding lanes: always masked
    alignas(64) float hiF[kBlockQ];
    alignas(64) float posF[kBlockQ];          // i' = i + Lk - Lq, for ALiBi
};

void setupRows(const ScoreProblem &p, std::int64_t b, std::int64_t h, std::int64_t q0, int rows, RowBlock &rb);

// Which keys of [t0, t1) a tile computes, and which mask work it needs.
struct TilePlan {
    std::int64_t c0 = 0, c1 = 0;
    bool structural = false, keyPadding = false, allowed = false, bias = false;
    bool needsMask() const { return structural || keyPadding || allowed || bias; }
};

// False when no live row sees any key of [t0, t1).
bool planTile(const ScoreProblem &p, const RowBlock &rb, std::int64_t t0, std::int64_t t1, TilePlan &tp);

// Q rows of the block, transposed and pre-scaled: qt [D, BQ], zero lanes beyond rb.rows.
template <int NV>
void packQuery(const ScoreProblem &p, const RowBlock &rb, float *qt)
{
    const std::int64_t qs = p.q.strides[3];
    for (int r = 0; r < NV * kLanes; ++r) {
        if (r >= rb.rows) {
            for (std::int64_t t = 0; t < p.D; ++t) qt[t * kBlockQ + r] = 0.0f;
            continue;
        }
        const float *src = p.q.row(rb.b, rb.h, rb.q0 + r);
        for (std::int64_t t = 0; t < p.D; ++t) qt[t * kBlockQ + r] = src[t * qs] * p.qScale;
    }
}

// Rows [c0, c0 + kc) of K or V for the block's kv head, with unit inner stride (packed when the view has not).
inline const float *operandRows(const TensorView &x, const RowBlock &rb, std::int64_t c0, int kc, Buffer &pack,
                                std::int64_t &ld)
{
    const std::int64_t dim = x.shape[3];
    if (x.strides[3] == 1) {
        ld = x.strides[2];
        return x.row(rb.b, rb.kvh, c0);
    }
    float *dst = pack.ensure(static_cast<std::size_t>(kBlockK * dim));
    for (int c = 0; c < kc; ++c) {
        const float *src = x.row(rb.b, rb.kvh, c0 + c);
        for (std::int64_t t = 0; t < dim; ++t) dst[c * dim + t] = src[t * x.strides[3]];
    }
    ld = dim;
    return dst;
}

// Applies the mask to a score tile st [c1 - c0, BQ] (log2 units) and folds it into rowMax.
template <int NV>
void applyMask(const ScoreProblem &p, const RowBlock &rb, const TilePlan &tp, float *st, Vec *rowMax)
{
    const MaskSpec &m = p.mask;
    const int kc = static_cast<int>(tp.c1 - tp.c0);
    const std::uint8_t *kv = m.keyValid.empty() ? nullptr : m.keyValid.data() + rb.b * p.Lk;
    const float alibi = m.alibiSlopes.empty() ? 0.0f : static_cast<float>(-m.alibiSlopes[static_cast<std::size_t>(rb.h)] * kLog2e);
    if (tp.structural || !m.alibiSlopes.empty() || tp.keyPadding) {
        for (int c = 0; c < kc; ++c) {
            const std::int64_t j = tp.c0 + c;
            float *row = st + c * kBlockQ;
            if (tp.keyPadding && !kv[j]) {
                for (int v = 0; v < NV; ++v) simd::store(row + v * kLanes, simd::set1(-kInf));
                continue;
            }
            const Vec jv = simd::set1(static_cast<float>(j));
            for (int v = 0; v < NV; ++v) {
                Vec x = simd::load(row + v * kLanes);
                if (tp.structural)
                    x = simd::keepInRange(x, jv, simd::load(rb.loF + v * kLanes), simd::load(rb.hiF + v * kLanes));
                if (!m.alibiSlopes.empty())
                    x = simd::fma(simd::set1(alibi), simd::absolute(simd::sub(jv, simd::load(rb.posF + v * kLanes))),
                                  x);
                simd::store(row + v * kLanes, x);
            }
        }
    }
    if (tp.allowed || !m.additive.empty() || !m.headBias.empty()) {
        const std::uint8_t *al = tp.allowed ? p.customPlane(m.allowed, rb.b) : nullptr;
        const float *ad = m.additive.empty() ? nullptr : p.customPlane(m.additive, rb.b);
        const float *hb = m.headBias.empty() ? nullptr : m.headBias.data() + rb.h * p.Lq * p.Lk;
        for (int r = 0; r < rb.rows; ++r) {
            if (!rb.live[r]) continue;
            const std::int64_t rowOff = (rb.q0 + r) * p.Lk + tp.c0;
            for (int c = 0; c < kc; ++c) {
                float &s = st[c * kBlockQ + r];
                if (al && !al[rowOff + c]) {
                    s = -kInf;
                    continue;
                }
                // additive + headBias summed first, as maskBias does.
                float bias = ad ? ad[rowOff + c] : 0.0f;
                if (hb) bias += hb[rowOff + c];
                if (ad || hb) s += static_cast<float>(kLog2e) * bias;
            }
        }
    }
    for (int c = 0; c < kc; ++c)
        for (int v = 0; v < NV; ++v) rowMax[v] = simd::max(rowMax[v], simd::load(st + c * kBlockQ + v * kLanes));
}

// s ← capL · tanh(s / capL) over a tile, folding the result into rowMax when it is not null.
template <int NV>
void softcapTile(const ScoreProblem &p, int kc, float *st, Vec *rowMax)
{
    const Vec cap = simd::set1(p.capL), inv = simd::set1(p.invCapL);
    for (int c = 0; c < kc; ++c)
        for (int v = 0; v < NV; ++v) {
            float *at = st + c * kBlockQ + v * kLanes;
            const Vec x = simd::mul(cap, simd::tanh(simd::mul(simd::load(at), inv)));
            simd::store(at, x);
            if (rowMax) rowMax[v] = simd::max(rowMax[v], x);
        }
}

// st [kc, BQ] = the block's scores against keys [tp.c0, tp.c1) (log2 units, soft-capped, masked), folded into
// rowMax. kp: those K rows (operandRows), row stride ldk.
template <int NV>
void scores(const ScoreProblem &p, const RowBlock &rb, const TilePlan &tp, const float *kp, std::int64_t ldk,
            const float *qt, float *st, Vec *rowMax)
{
    const int kc = static_cast<int>(tp.c1 - tp.c0);
    const bool masked = tp.needsMask();
    const bool capped = p.capL > 0.0f;
    simd::scoreTile<NV>(kp, ldk, kc, qt, static_cast<int>(p.D), st, masked || capped ? nullptr : rowMax);
    if (capped) softcapTile<NV>(p, kc, st, masked ? nullptr : rowMax);
    if (masked) applyMask<NV>(p, rb, tp, st, rowMax);
}

// Per-thread scratch of the tiled kernels.
struct Scratch {
    Buffer qt;      // [D, BQ]    packed, pre-scaled Q block, transposed
    Buffer st;      // [BK, BQ]   score / probability tile
    Buffer ot;      // [Dv, BQ]   un-normalised output accumulator, transposed
    Buffer kpack;   // [BK, D]    K rows, when K's inner stride is not 1
    Buffer vpack;   // [BK, Dv]   V rows, likewise
    Buffer panel;   // [Lk, BQ]   full score rows for the exact-weights mode
};

// Online softmax over the keys [k0, k1) ∩ the block's live range, continuing from m (log2 units), l and ot.
// Values = false (LSE only): no exp is stored, no P·V is done and v is not read; otherwise ot [Dv, BQ] += P·V.
template <int NV, bool Values>
void sweep(const ScoreProblem &p, const RowBlock &rb, Scratch &sc, const float *qt, std::int64_t k0,
           std::int64_t k1, Vec *m, Vec *l, float *ot, const TensorView *v)
{
    float *st = sc.st.ensure(static_cast<std::size_t>(kBlockK * kBlockQ));
    const int dv = Values ? static_cast<int>(v->shape[3]) : 0;
    const std::int64_t from = std::max(rb.minLo, k0), to = std::min(rb.maxHi + 1, k1);
    for (std::int64_t t0 = from; t0 < to; t0 += kBlockK) {
        TilePlan tp;
        if (!planTile(p, rb, t0, std::min(t0 + kBlockK, to), tp)) continue;
        const int kc = static_cast<int>(tp.c1 - tp.c0);
        std::int64_t ldk = 0, ldv = 0;
        const float *kp = operandRows(p.k, rb, tp.c0, kc, sc.kpack, ldk);
        Vec rowMax[NV];
        for (int v = 0; v < NV; ++v) rowMax[v] = simd::set1(-kInf);
        scores<NV>(p, rb, tp, kp, ldk, qt, st, rowMax);

        // New max, rescale factor for what was accumulated, exp and row sum in one pass. A lane with no visible
        // key so far keeps m = -inf; its reference point is 0 so that nothing is NaN.
        Vec alpha[NV], ref[NV], sum[NV];
        for (int v = 0; v < NV; ++v) {
            const Vec mNew = simd::max(m[v], rowMax[v]);
            ref[v] = simd::negInfToZero(mNew);
            alpha[v] = simd::exp2(simd::sub(m[v], ref[v]));
            m[v] = mNew;
            sum[v] = simd::zero();
        }
        for (int c = 0; c < kc; ++c) {
            float *row = st + c * kBlockQ;
            for (int v = 0; v < NV; ++v) {
                const Vec e = simd::exp2(simd::sub(simd::load(row + v * kLanes), ref[v]));
                if constexpr (Values) simd::store(row + v * kLanes, e);
                sum[v] = simd::add(sum[v], e);
            }
        }
        for (int v = 0; v < NV; ++v) l[v] = simd::fma(l[v], alpha[v], sum[v]);
        if constexpr (Values) {
            const float *vp = operandRows(*v, rb, tp.c0, kc, sc.vpack, ldv);
            simd::valueTile<NV>(st, kc, vp, ldv, dv, ot, alpha);
        }
    }
}

// Dispatch on the number of query vectors a block of `rows` rows needs.
static_assert(simd::kQueryVecs == 4, "withQueryVecs lists the vector counts 1 to 4");
template <typename F>
void withQueryVecs(int rows, F &&f)
{
    switch ((rows + kLanes - 1) / kLanes) {
    case 1: return f(std::integral_constant<int, 1>());
    case 2: return f(std::integral_constant<int, 2>());
    case 3: return f(std::integral_constant<int, 3>());
    default: return f(std::integral_constant<int, simd::kQueryVecs>());
    }
}

} // namespace attn::detail::tile
