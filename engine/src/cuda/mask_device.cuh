// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Device-side mask semantics, the same as attn::structurallyAllowed / attn::maskBias in mask.h (kept in step by
// tst_cuda's mask rows, which compare every mask kind against the fp64 reference).

#include "cuda/flash_kernels.h"

#include <cuda_runtime.h>

#include <math_constants.h>

namespace attn::cuda {

constexpr float kLog2e = 1.4426950408889634f;
constexpr double kLn2d = 0.69314718055994530942;

// The structural key interval [lo, hi] of query row i of batch item b; lo > hi when the row sees no key at all
// (outside [0, Lq), query padding, causal rows with Lq > Lk, ...).
__device__ inline void rowInterval(const FlashParams &p, int b, long long i, int &lo, int &hi)
{
    const DeviceMask &m = p.mask;
    const long long ip = i + p.Lk - p.Lq;
    long long l = m.firstKey ? m.firstKey[b] : 0;
    long long r = m.lastKey ? m.lastKey[b] : p.Lk - 1;
    if (m.causal) r = min(r, ip);
    if (m.window >= 0) {
        const long long w = min(m.window, (long long)p.Lq + p.Lk);   // wider than both axes: no limit
        l = max(l, ip - w);
        r = min(r, ip + w);
    }
    if (m.block > 0) {
        if (ip < 0) {
            r = -1;
        } else {
            const long long start = (ip / m.block) * m.block;
            l = max(l, start);
            r = min(r, start + m.block - 1);
        }
    }
    if (i < 0 || i >= p.Lq) r = -1;
    if (m.queryValid && i >= 0 && i < p.Lq && !m.queryValid[(long long)b * p.Lq + i]) r = -1;
    l = max(l, 0LL);
    if (r < l) {
        lo = 1;
        hi = 0;
        return;
    }
    lo = (int)l;
    hi = (int)r;
}

// The per-element part of maskBias for a key inside the row's interval: 0, a finite bias (natural-log units) or
// -inf. Same order of operations as maskBias (additive, then the per-head bias, then ALiBi) so fp32 results agree.
__device__ inline float elementBias(const FlashParams &p, int b, int h, long long i, long long j)
{
    const DeviceMask &m = p.mask;
    if (m.keyValid && !m.keyValid[(long long)b * p.Lk + j]) return -CUDART_INF_F;
    const long long plane = (long long)p.Lq * p.Lk;
    const long long ij = i * p.Lk + j;
    if (m.allowed && !m.allowed[(m.allowedBatched ? b * plane : 0) + ij]) return -CUDART_INF_F;
    float bias = 0.0f;
    if (m.additive) bias += m.additive[(m.additiveBatched ? b * plane : 0) + ij];
    if (m.headBias) bias += m.headBias[(long long)h * plane + ij];
    if (m.alibi) {
        const long long dist = j - (i + p.Lk - p.Lq);
        bias -= m.alibi[h] * (float)(dist < 0 ? -dist : dist);
    }
    return bias;
}

// The soft-cap on a score in log2 units (scores are pre-multiplied by log2 e): cap·log2e · tanh(s / (cap·log2e)),
// the same as cap · tanh(s_nat / cap) in natural units. cap <= 0: s unchanged.
__device__ inline float softcapLog2(float s, float cap)
{
    if (cap <= 0.0f) return s;
    const float capL = cap * kLog2e;
    return capL * tanhf(s / capL);
}

} // namespace attn::cuda
