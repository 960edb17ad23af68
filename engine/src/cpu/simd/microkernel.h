// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Register-blocked GEMM microkernels for the tiled attention loop, written against Vec (vec.h).
//
// The tile GEMMs work on transposed tiles so that every vector runs along the query axis:
//   scores:  St[c, r]  = sum_t K[c, t] * Qt[t, r]          St: [kc, BQ], Qt: [D, BQ] (packed, pre-scaled)
//   values:  Ot[t, r]  = alpha[r] * Ot[t, r] + sum_c V[c, t] * Pt[c, r]     Ot: [Dv, BQ], Pt = St after exp
// K and V are read in place (row stride ld, unit inner stride): each of their scalars is broadcast against
// kQueryVecs vectors of queries, so neither needs a transposed copy, and the per-query softmax statistics
// (max, sum, rescale factor) are plain lane-wise vector operations instead of horizontal reductions.
// Rows of the query block are the lanes; BQ = kLanes * kQueryVecs is the row stride of St, Qt and Ot.

#include "vec.h"

#include <cstdint>

namespace attn::detail::simd {

inline constexpr int kBlockQ = kLanes * kQueryVecs;

// The dot products over D are accumulated in chunks of kScoreChunk terms that are then summed: the rounding
// error of a sequential fp32 sum grows with the size of its partial sums, and chunking keeps the scores' error
// ~1.5x below a naive fp32 dot product at D = 64 and ~2x at D = 128, for a few percent more adds.
inline constexpr int kScoreChunk = 32;

// St[i, :] = K[i, :] . Qt for MR key rows; NV vectors of queries. With rowMax, also folds the new rows into
// the running lane-wise maximum (the fused "scale + row max": the scale is already in Qt).
template <int MR, int NV>
inline void scoreKernel(const float *k, std::int64_t ldk, const float *qt, int d, float *st, Vec *rowMax)
{
    Vec acc[MR][NV];
    for (int t0 = 0; t0 < d; t0 += kScoreChunk) {
        const int t1 = t0 + kScoreChunk < d ? t0 + kScoreChunk : d;
        for (int i = 0; i < MR; ++i)
            for (int v = 0; v < NV; ++v) acc[i][v] = zero();
        for (int t = t0; t < t1; ++t) {
            Vec q[NV];
            for (int v = 0; v < NV; ++v) q[v] = load(qt + t * kBlockQ + v * kLanes);
            for (int i = 0; i < MR; ++i) {
                const Vec kb = set1(k[i * ldk + t]);
                for (int v = 0; v < NV; ++v) acc[i][v] = fma(kb, q[v], acc[i][v]);
            }
        }
        const bool last = t1 == d;
        for (int i = 0; i < MR; ++i)
            for (int v = 0; v < NV; ++v) {
                float *dst = st + i * kBlockQ + v * kLanes;
                if (t0 > 0) acc[i][v] = add(acc[i][v], load(dst));
                if (!last) store(dst, acc[i][v]);
            }
    }
    for (int i = 0; i < MR; ++i)
        for (int v = 0; v < NV; ++v) store(st + i * kBlockQ + v * kLanes, acc[i][v]);
    if (rowMax) {
        for (int v = 0; v < NV; ++v) {
            Vec m = rowMax[v];
            for (int i = 0; i < MR; ++i) m = max(m, acc[i][v]);
            rowMax[v] = m;
        }
    }
}

// Ot[i, :] = alpha * Ot[i, :] + sum_c V[c, i] * Pt[c, :] for MR value columns i (v points at column 0 of
// them, key row 0); alpha == nullptr means 1.
template <int MR, int NV>
inline void valueKernel(const float *pt, int kc, const float *v, std::int64_t ldv, float *ot, const Vec *alpha)
{
    Vec acc[MR][NV];
    for (int i = 0; i < MR; ++i)
        for (int u = 0; u < NV; ++u) {
            acc[i][u] = load(ot + i * kBlockQ + u * kLanes);
            if (alpha) acc[i][u] = mul(acc[i][u], alpha[u]);
        }
    for (int c = 0; c < kc; ++c) {
        Vec p[NV];
        for (int u = 0; u < NV; ++u) p[u] = load(pt + c * kBlockQ + u * kLanes);
        const float *vr = v + c * ldv;
        for (int i = 0; i < MR; ++i) {
            const Vec vb = set1(vr[i]);
            for (int u = 0; u < NV; ++u) acc[i][u] = fma(vb, p[u], acc[i][u]);
        }
    }
    for (int i = 0; i < MR; ++i)
        for (int u = 0; u < NV; ++u) store(ot + i * kBlockQ + u * kLanes, acc[i][u]);
}

namespace mk {
template <int NV, int MR = kScoreRows>
inline void scoreRemainder(int rows, const float *k, std::int64_t ldk, const float *qt, int d, float *st,
                           Vec *rowMax)
{
    if constexpr (MR > 1) {
        if (rows == MR - 1) return scoreKernel<MR - 1, NV>(k, ldk, qt, d, st, rowMax);
        return scoreRemainder<NV, MR - 1>(rows, k, ldk, qt, d, st, rowMax);
    }
}
template <int NV, int MR = kValueRows>
inline void valueRemainder(int cols, const float *pt, int kc, const float *v, std::int64_t ldv, float *ot,
                           const Vec *alpha)
{
    if constexpr (MR > 1) {
        if (cols == MR - 1) return valueKernel<MR - 1, NV>(pt, kc, v, ldv, ot, alpha);
        return valueRemainder<NV, MR - 1>(cols, pt, kc, v, ldv, ot, alpha);
    }
}
} // namespace mk

// St[0..kc) = K[0..kc) . Qt, all key rows of a tile.
template <int NV>
inline void scoreTile(const float *k, std::int64_t ldk, int kc, const float *qt, int d, float *st, Vec *rowMax)
{
    int c = 0;
    for (; c + kScoreRows <= kc; c += kScoreRows)
        scoreKernel<kScoreRows, NV>(k + c * ldk, ldk, qt, d, st + c * kBlockQ, rowMax);
    if (c < kc) mk::scoreRemainder<NV>(kc - c, k + c * ldk, ldk, qt, d, st + c * kBlockQ, rowMax);
}

// Keys per pass of valueTile: each pass sweeps every value column over this many keys, so its P rows, V rows and
// Ot (32·BQ + 32·Dv + Dv·BQ floats: 20 KiB at BQ = 32, Dv = 64) stay in L1 across the column blocks.
inline constexpr int kValueKeys = 32;

// Ot = alpha * Ot + V[0..kc)^T-contract Pt, all dv value columns.
template <int NV>
inline void valueTile(const float *pt, int kc, const float *v, std::int64_t ldv, int dv, float *ot,
                      const Vec *alpha)
{
    for (int c0 = 0; c0 < kc; c0 += kValueKeys) {
        const int kk = kc - c0 < kValueKeys ? kc - c0 : kValueKeys;
        const float *p = pt + c0 * kBlockQ;
        const float *vr = v + c0 * ldv;
        const Vec *a = c0 == 0 ? alpha : nullptr;   // the rescale applies once, before the first keys
        int t = 0;
        for (; t + kValueRows <= dv; t += kValueRows)
            valueKernel<kValueRows, NV>(p, kk, vr + t, ldv, ot + t * kBlockQ, a);
        if (t < dv) mk::valueRemainder<NV>(dv - t, p, kk, vr + t, ldv, ot + t * kBlockQ, a);
    }
}

} // namespace attn::detail::simd
