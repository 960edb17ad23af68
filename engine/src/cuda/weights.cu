// SPDX-License-Identifier: GPL-3.0-or-later
// Exact attention weights of one (b, h), in two passes (reference/performance.md §3, "LSE recompute"):
//   1. rowLseKernel: lse_i = log Σ_j exp(s_ij) in double, one warp per query row (online max/sum per lane, merged
//      with shuffles); +inf for rows that see no key
//   2. weightsKernel: P_ij = exp(s_ij − lse_i) per 32×32 tile, s_ij = scale · q_i·k_j + bias_ij in double
// q and k are rounded to the forward pass's compute type first, so P is the softmax of what the forward pass saw.
// Why not the forward pass's fp32 LSE: P = exp(s − lse) inherits lse's rounding, 0.5 ulp(|lse|), in full; rows
// with few visible keys (P near 1) and large |lse| (biases, ALiBi) then miss the 2× naive-fp32 rule. In double
// the only error left is the final rounding of P to fp32. Cost: two extra Q·Kᵀ passes for the requested heads only.
#include "cuda/flash_kernels.h"
#include "cuda/mask_device.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <math_constants.h>

namespace attn::cuda {
namespace {

constexpr int kTile = 32;
constexpr int kRowsPerThread = 4;   // block 32 × 8 threads

// The soft-cap in double, natural-log units (the forward kernels apply it in float, log2 units).
__device__ inline double softcapped(double s, float cap)
{
    return cap > 0.0f ? double(cap) * tanh(s / double(cap)) : s;
}

__device__ inline float roundTo(float x, Dtype dtype)
{
    if (dtype == Dtype::F16) return __half2float(__float2half_rn(x));
    if (dtype == Dtype::BF16) return __bfloat162float(__float2bfloat16_rn(x));
    return x;
}

__global__ void __launch_bounds__(kTile * kTile / kRowsPerThread)
weightsKernel(FlashParams p, Dtype dtype, int b, int h, const double *lseRows, float *P)
{
    __shared__ float Qs[kTile][kTile + 1];
    __shared__ float Ks[kTile][kTile + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;   // tx: key column, ty: rows ty, ty + 8, ...
    const long long i0 = (long long)blockIdx.y * kTile, j0 = (long long)blockIdx.x * kTile;
    const int kvh = h / (p.H / p.Hkv);
    const long long bh = (long long)b * p.H + h;
    const float *qg = p.q + bh * p.Lq * p.D;
    const float *kg = p.k + ((long long)b * p.Hkv + kvh) * p.Lk * p.D;

    // The dot product in double: P's error is then the forward LSE's alone (fp32 dot products put ~ulp(|q·k|)
    // into every exponent, which at rows with few keys, P near 1, is several times the naive fp32 error).
    double dot[kRowsPerThread] = {};
    for (int d0 = 0; d0 < p.D; d0 += kTile) {
        __syncthreads();
        for (int r = ty; r < kTile; r += kTile / kRowsPerThread) {
            const long long i = i0 + r, j = j0 + r;
            const int d = d0 + tx;
            Qs[r][tx] = i < p.Lq && d < p.D ? roundTo(qg[i * p.D + d], dtype) : 0.0f;
            Ks[r][tx] = j < p.Lk && d < p.D ? roundTo(kg[j * p.D + d], dtype) : 0.0f;
        }
        __syncthreads();
#pragma unroll 8
        for (int d = 0; d < kTile; ++d) {
            const double kv = Ks[tx][d];
#pragma unroll
            for (int rr = 0; rr < kRowsPerThread; ++rr)
                dot[rr] = fma(double(Qs[ty + rr * (kTile / kRowsPerThread)][d]), double(kv), dot[rr]);
        }
    }

    const long long j = j0 + tx;
    if (j >= p.Lk) return;
#pragma unroll
    for (int rr = 0; rr < kRowsPerThread; ++rr) {
        const long long i = i0 + ty + rr * (kTile / kRowsPerThread);
        if (i >= p.Lq) continue;
        int lo, hi;
        rowInterval(p, b, i, lo, hi);
        const double lse = lseRows[i];
        float w = 0.0f;
        if (j >= lo && j <= hi && lse != CUDART_INF) {
            const float bias = p.mask.elementwise() ? elementBias(p, b, h, i, j) : 0.0f;
            if (bias != -CUDART_INF_F) w = float(exp(softcapped(dot[rr] * p.scale, p.softcap) + double(bias) - lse));
        }
        P[i * p.Lk + j] = w;
    }
}

} // namespace

__global__ void __launch_bounds__(256) rowLseKernel(FlashParams p, Dtype dtype, int b, int h, double *lseOut)
{
    const int lane = threadIdx.x % 32;
    const long long i = (long long)blockIdx.x * 8 + threadIdx.x / 32;   // one warp per row
    if (i >= p.Lq) return;   // whole warps leave together
    const int kvh = h / (p.H / p.Hkv);
    const long long bh = (long long)b * p.H + h;
    const float *qi = p.q + (bh * p.Lq + i) * p.D;
    const float *kg = p.k + ((long long)b * p.Hkv + kvh) * p.Lk * p.D;
    int lo, hi;
    rowInterval(p, b, i, lo, hi);
    double m = -CUDART_INF, l = 0.0;
    for (long long j = lo + lane; j <= hi; j += 32) {
        const float bias = p.mask.elementwise() ? elementBias(p, b, h, i, j) : 0.0f;
        if (bias == -CUDART_INF_F) continue;
        double dot = 0.0;
        for (int d = 0; d < p.D; ++d) dot = fma(double(roundTo(qi[d], dtype)), double(roundTo(kg[j * p.D + d], dtype)), dot);
        const double s = softcapped(dot * p.scale, p.softcap) + double(bias);
        if (s > m) {
            l = l * exp(m - s) + 1.0;
            m = s;
        } else {
            l += exp(s - m);
        }
    }
    for (int off = 16; off > 0; off /= 2) {
        const double m2 = __shfl_xor_sync(0xffffffffu, m, off);
        const double l2 = __shfl_xor_sync(0xffffffffu, l, off);
        const double mm = fmax(m, m2);
        if (mm != -CUDART_INF) {
            l = (m == -CUDART_INF ? 0.0 : l * exp(m - mm)) + (m2 == -CUDART_INF ? 0.0 : l2 * exp(m2 - mm));
            m = mm;
        }
    }
    if (lane == 0) lseOut[i] = l > 0.0 ? m + log(l) : CUDART_INF;
}

cudaError_t probeKernelImage()
{
    cudaFuncAttributes attributes;
    return cudaFuncGetAttributes(&attributes, weightsKernel);
}

cudaError_t launchWeights(const FlashParams &p, Dtype dtype, int b, int h, double *lseScratch, float *P,
                          cudaStream_t stream)
{
    rowLseKernel<<<(p.Lq + 7) / 8, 256, 0, stream>>>(p, dtype, b, h, lseScratch);
    if (cudaError_t e = cudaGetLastError()) return e;
    const dim3 grid((p.Lk + kTile - 1) / kTile, (p.Lq + kTile - 1) / kTile);
    const dim3 block(kTile, kTile / kRowsPerThread);
    weightsKernel<<<grid, block, 0, stream>>>(p, dtype, b, h, lseScratch, P);
    return cudaGetLastError();
}

} // namespace attn::cuda
