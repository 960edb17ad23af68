// SPDX-License-Identifier: GPL-3.0-or-later
// fp32 flash-attention forward on CUDA cores (FlashAttention-2 loop order: one thread block owns BM query rows
// of one (b, h) for the whole key sweep; online softmax; O rescaled in registers and divided by l once).
//
// Thread layout (128 threads): ty = tid / 16 owns RPT = BM/8 consecutive rows, tx = tid % 16 owns key columns
// tx + 16·c of each score tile and output columns tx + 16·j. A row's 16 owners are one half-warp, so row max and
// row sum are half-warp shuffles and P goes through shared memory only between those 16 lanes.
//
// Numerics: Q is staged pre-multiplied by scale·log2(e) so scores are in log2 units and the softmax uses exp2f
// (the CPU tiled kernel does the same); lse = (m + log2 l)·ln2.
#include "cuda/flash_kernels.h"
#include "cuda/mask_device.cuh"

#include <math_constants.h>

namespace attn::cuda {
namespace {

constexpr int kThreads = 128;

template <int BM, int BN, int DQ, int DV>
constexpr int sharedFloats()
{
    return BM * DQ + DQ * (BN + 1) + BN * DV + BM * BN;
}

// FIXED: D == DQ and Dv == DV at compile time. Otherwise DQ/DV are capacities and p.D / p.Dv the real sizes.
template <int BM, int BN, int DQ, int DV, bool FIXED>
__global__ void __launch_bounds__(kThreads) flashF32Kernel(FlashParams p)
{
    constexpr int RPT = BM / 8;
    constexpr int CPT = BN / 16;
    constexpr int DPT = DV / 16;
    static_assert(BM % 8 == 0 && BN % 16 == 0 && DV % 16 == 0, "tile shape");

    extern __shared__ float smem[];
    float *Qs = smem;                      // [BM][DQ]      pre-scaled Q
    float *Kt = Qs + BM * DQ;              // [DQ][BN + 1]  K tile, transposed (padded: conflict-free stores)
    float *Vs = Kt + DQ * (BN + 1);        // [BN][DV]
    float *Ps = Vs + BN * DV;              // [BM][BN]      probabilities of the current tile
    __shared__ int sLo[BM], sHi[BM];
    __shared__ int sMinLo, sMaxHi;

    const int D = FIXED ? DQ : p.D;
    const int Dv = FIXED ? DV : p.Dv;
    const int tid = threadIdx.x;
    const int tx = tid % 16, ty = tid / 16;
    const int bh = p.bhBegin + blockIdx.y;
    const int b = bh / p.H, h = bh % p.H;
    const int kvh = h / (p.H / p.Hkv);
    const long long q0 = (long long)blockIdx.x * BM;
    const float *qg = p.q + ((long long)bh * p.Lq) * D;
    const float *kg = p.k + ((long long)b * p.Hkv + kvh) * p.Lk * D;
    const float *vg = p.v + ((long long)b * p.Hkv + kvh) * p.Lk * Dv;
    const float qScale = p.scale * kLog2e;

    if (tid == 0) {
        sMinLo = p.Lk;
        sMaxHi = -1;
    }
    __syncthreads();
    for (int r = tid; r < BM; r += kThreads) {
        int lo, hi;
        rowInterval(p, b, q0 + r, lo, hi);
        sLo[r] = lo;
        sHi[r] = hi;
        if (lo <= hi) {
            atomicMin(&sMinLo, lo);
            atomicMax(&sMaxHi, hi);
        }
    }
    for (int idx = tid; idx < BM * D; idx += kThreads) {
        const int r = idx / D, d = idx % D;
        Qs[r * DQ + d] = q0 + r < p.Lq ? qg[(q0 + r) * D + d] * qScale : 0.0f;
    }
    __syncthreads();

    int myLo[RPT], myHi[RPT];
    float m[RPT], l[RPT], acc[RPT][DPT];
#pragma unroll
    for (int rr = 0; rr < RPT; ++rr) {
        myLo[rr] = sLo[ty * RPT + rr];
        myHi[rr] = sHi[ty * RPT + rr];
        m[rr] = -CUDART_INF_F;
        l[rr] = 0.0f;
#pragma unroll
        for (int j = 0; j < DPT; ++j) acc[rr][j] = 0.0f;
    }

    const int minLo = sMinLo, maxHi = sMaxHi;   // every thread reads the same values: uniform loop bounds
    const bool elementwise = p.mask.elementwise();
    for (int k0 = maxHi >= minLo ? (minLo / BN) * BN : p.Lk; k0 <= maxHi; k0 += BN) {
        __syncthreads();   // the previous tile's Kt, Vs and Ps are no longer read
        for (int idx = tid; idx < BN * D; idx += kThreads) {
            const int c = idx / D, d = idx % D;
            Kt[d * (BN + 1) + c] = k0 + c < p.Lk ? kg[(long long)(k0 + c) * D + d] : 0.0f;
        }
        for (int idx = tid; idx < BN * Dv; idx += kThreads) {
            const int c = idx / Dv, d = idx % Dv;
            Vs[c * DV + d] = k0 + c < p.Lk ? vg[(long long)(k0 + c) * Dv + d] : 0.0f;
        }
        __syncthreads();

        float s[RPT][CPT];
#pragma unroll
        for (int rr = 0; rr < RPT; ++rr)
#pragma unroll
            for (int cc = 0; cc < CPT; ++cc) s[rr][cc] = 0.0f;
#pragma unroll 4
        for (int d = 0; d < D; ++d) {
            float kv[CPT];
#pragma unroll
            for (int cc = 0; cc < CPT; ++cc) kv[cc] = Kt[d * (BN + 1) + tx + 16 * cc];
#pragma unroll
            for (int rr = 0; rr < RPT; ++rr) {
                const float qv = Qs[(ty * RPT + rr) * DQ + d];
#pragma unroll
                for (int cc = 0; cc < CPT; ++cc) s[rr][cc] = fmaf(qv, kv[cc], s[rr][cc]);
            }
        }

#pragma unroll
        for (int rr = 0; rr < RPT; ++rr) {
            const long long i = q0 + ty * RPT + rr;
            float tileMax = -CUDART_INF_F;
#pragma unroll
            for (int cc = 0; cc < CPT; ++cc) {
                const int j = k0 + tx + 16 * cc;
                s[rr][cc] = softcapLog2(s[rr][cc], p.softcap);
                if (j < myLo[rr] || j > myHi[rr]) {
                    s[rr][cc] = -CUDART_INF_F;
                } else if (elementwise) {
                    const float bias = elementBias(p, b, h, i, j);
                    s[rr][cc] = bias == -CUDART_INF_F ? -CUDART_INF_F : s[rr][cc] + bias * kLog2e;
                }
                tileMax = fmaxf(tileMax, s[rr][cc]);
            }
#pragma unroll
            for (int off = 8; off > 0; off /= 2)
                tileMax = fmaxf(tileMax, __shfl_xor_sync(0xffffffffu, tileMax, off));
            const float mNew = fmaxf(m[rr], tileMax);
            float rowSum = 0.0f;
            if (mNew == -CUDART_INF_F) {   // nothing visible yet in this row: leave m, l and acc untouched
#pragma unroll
                for (int cc = 0; cc < CPT; ++cc) s[rr][cc] = 0.0f;
            } else {
#pragma unroll
                for (int cc = 0; cc < CPT; ++cc) {
                    s[rr][cc] = exp2f(s[rr][cc] - mNew);
                    rowSum += s[rr][cc];
                }
            }
#pragma unroll
            for (int off = 8; off > 0; off /= 2) rowSum += __shfl_xor_sync(0xffffffffu, rowSum, off);
            if (mNew != -CUDART_INF_F && mNew != m[rr]) {
                const float alpha = exp2f(m[rr] - mNew);   // 0 on the first live tile
                l[rr] *= alpha;
#pragma unroll
                for (int j = 0; j < DPT; ++j) acc[rr][j] *= alpha;
                m[rr] = mNew;
            }
            l[rr] += rowSum;
#pragma unroll
            for (int cc = 0; cc < CPT; ++cc) Ps[(ty * RPT + rr) * BN + tx + 16 * cc] = s[rr][cc];
        }
        __syncwarp();   // a row's P is written and read by the same half-warp

        for (int c = 0; c < BN; ++c) {
            float vv[DPT];
#pragma unroll
            for (int j = 0; j < DPT; ++j) vv[j] = (FIXED || tx + 16 * j < Dv) ? Vs[c * DV + tx + 16 * j] : 0.0f;
#pragma unroll
            for (int rr = 0; rr < RPT; ++rr) {
                const float pr = Ps[(ty * RPT + rr) * BN + c];
#pragma unroll
                for (int j = 0; j < DPT; ++j) acc[rr][j] = fmaf(pr, vv[j], acc[rr][j]);
            }
        }
    }

#pragma unroll
    for (int rr = 0; rr < RPT; ++rr) {
        const long long i = q0 + ty * RPT + rr;
        if (i >= p.Lq) continue;
        const bool dead = !(l[rr] > 0.0f);
        const float inv = dead ? 0.0f : 1.0f / l[rr];
        float *og = p.out + ((long long)bh * p.Lq + i) * Dv;
#pragma unroll
        for (int j = 0; j < DPT; ++j) {
            const int d = tx + 16 * j;
            if (FIXED || d < Dv) og[d] = dead ? 0.0f : acc[rr][j] * inv;
        }
        // lse = m·ln2 + ln l in double (once per row): the weights kernel recomputes P = exp(s - lse), so every
        // rounding here shows up in P.
        if (tx == 0)
            p.lse[(long long)bh * p.Lq + i] = dead ? CUDART_INF_F : float(double(m[rr]) * kLn2d + log(double(l[rr])));
    }
}

template <int BM, int BN, int DQ, int DV, bool FIXED>
cudaError_t launch(const FlashParams &p, cudaStream_t stream)
{
    constexpr int bytes = sharedFloats<BM, BN, DQ, DV>() * int(sizeof(float));
    auto kernel = flashF32Kernel<BM, BN, DQ, DV, FIXED>;
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes))
        return e;
    const dim3 grid((p.Lq + BM - 1) / BM, p.bhEnd - p.bhBegin);
    kernel<<<grid, kThreads, bytes, stream>>>(p);
    return cudaGetLastError();
}

} // namespace

int flashF32SharedBytes(int D, int Dv)
{
    if (D == 64 && Dv == 64) return sharedFloats<64, 64, 64, 64>() * 4;
    if (D == 128 && Dv == 128) return sharedFloats<64, 64, 128, 128>() * 4;
    return sharedFloats<32, 32, kMaxHeadDim, kMaxHeadDim>() * 4;
}

cudaError_t launchFlashF32(const FlashParams &p, cudaStream_t stream)
{
    if (p.D == 64 && p.Dv == 64) return launch<64, 64, 64, 64, true>(p, stream);
    if (p.D == 128 && p.Dv == 128) return launch<64, 64, 128, 128, true>(p, stream);
    return launch<32, 32, kMaxHeadDim, kMaxHeadDim, false>(p, stream);
}

} // namespace attn::cuda
