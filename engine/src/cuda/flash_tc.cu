// SPDX-License-Identifier: GPL-3.0-or-later
// fp16 / bf16 flash-attention forward on tensor cores (WMMA 16×16×16, fp32 accumulation), sm_80 and newer.
//
// One thread block = 4 warps = BM = 64 query rows of one (b, h); warp w owns rows 16w..16w+15 for the whole key
// sweep, so after the K/V tile is staged the warps never wait for each other.
//   S_w  = Q_w · K_tileᵀ          WMMA, fp32 accumulators stored to shared memory (Ss)
//   softmax over Ss in fp32       one row at a time, lanes across the keys; mask applied here; P rounded to the
//                                 compute type into Ps; the row's running max/sum in shared memory
//   O_w  = α·O_w + P_w · V_tile   O lives in shared memory (Os, fp32): WMMA accumulator fragments have no
//                                 documented element→row mapping, so the per-row rescale by α is done on Os by
//                                 the lanes and the fragment is loaded, updated and stored back
// Inputs: the fp32 operands are read from global memory and rounded (round-to-nearest) to the compute type while
// the tiles are staged; head dims are zero-padded to a multiple of 16 in shared memory.
//
// Not yet measured on a GPU (see docs/performance.md): correctness is argued from the CPU-side reasoning and the
// tests in tst_cuda, which run only where a device is present.
#include "cuda/flash_kernels.h"
#include "cuda/mask_device.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <math_constants.h>

namespace attn::cuda {
namespace {

namespace wmma = nvcuda::wmma;

constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kBM = 16 * kWarps;

template <typename T> __device__ inline T fromFloat(float x);
template <> __device__ inline __half fromFloat<__half>(float x) { return __float2half_rn(x); }
template <> __device__ inline __nv_bfloat16 fromFloat<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

constexpr int alignUp(int x, int a) { return (x + a - 1) / a * a; }

// Shared-memory plan; every region starts on a 128-byte boundary (WMMA needs 32-byte aligned pointers) and
// every leading dimension is a multiple of 8 elements (16-bit) or 4 (fp32) as WMMA requires.
template <typename T, int BN, int DQ, int DV>
struct Plan {
    static constexpr int ldQ = DQ + 8, ldK = DQ + 8, ldV = DV + 8, ldS = BN + 4, ldP = BN + 8, ldO = DV + 4;
    static constexpr int offQ = 0;
    static constexpr int offK = alignUp(offQ + kBM * ldQ * int(sizeof(T)), 128);
    static constexpr int offV = alignUp(offK + BN * ldK * int(sizeof(T)), 128);
    static constexpr int offS = alignUp(offV + BN * ldV * int(sizeof(T)), 128);
    static constexpr int offP = alignUp(offS + kBM * ldS * 4, 128);
    static constexpr int offO = alignUp(offP + kBM * ldP * int(sizeof(T)), 128);
    static constexpr int offM = alignUp(offO + kBM * ldO * 4, 128);   // running max (log2 units), [BM]
    static constexpr int offL = offM + kBM * 4;                       // running sum, [BM]
    static constexpr int bytes = offL + kBM * 4;
};

template <typename T, int BN, int DQ, int DV, bool FIXED>
__global__ void __launch_bounds__(kThreads) flashTcKernel(FlashParams p)
{
    using P = Plan<T, BN, DQ, DV>;
    extern __shared__ __align__(128) unsigned char smem[];
    T *Qs = reinterpret_cast<T *>(smem + P::offQ);
    T *Ks = reinterpret_cast<T *>(smem + P::offK);
    T *Vs = reinterpret_cast<T *>(smem + P::offV);
    float *Ss = reinterpret_cast<float *>(smem + P::offS);
    T *Ps = reinterpret_cast<T *>(smem + P::offP);
    float *Os = reinterpret_cast<float *>(smem + P::offO);
    float *Ms = reinterpret_cast<float *>(smem + P::offM);
    float *Ls = reinterpret_cast<float *>(smem + P::offL);
    __shared__ int sLo[kBM], sHi[kBM];
    __shared__ int sMinLo, sMaxHi;

    const int D = FIXED ? DQ : p.D;
    const int Dv = FIXED ? DV : p.Dv;
    const int Dp = FIXED ? DQ : (p.D + 15) / 16 * 16;     // padded to the WMMA k step
    const int Dvp = FIXED ? DV : (p.Dv + 15) / 16 * 16;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int bh = p.bhBegin + blockIdx.y;
    const int b = bh / p.H, h = bh % p.H;
    const int kvh = h / (p.H / p.Hkv);
    const long long q0 = (long long)blockIdx.x * kBM;
    const float *qg = p.q + ((long long)bh * p.Lq) * D;
    const float *kg = p.k + ((long long)b * p.Hkv + kvh) * p.Lk * D;
    const float *vg = p.v + ((long long)b * p.Hkv + kvh) * p.Lk * Dv;
    const float sScale = p.scale * kLog2e;

    if (tid == 0) {
        sMinLo = p.Lk;
        sMaxHi = -1;
    }
    __syncthreads();
    for (int r = tid; r < kBM; r += kThreads) {
        int lo, hi;
        rowInterval(p, b, q0 + r, lo, hi);
        sLo[r] = lo;
        sHi[r] = hi;
        Ms[r] = -CUDART_INF_F;
        Ls[r] = 0.0f;
        if (lo <= hi) {
            atomicMin(&sMinLo, lo);
            atomicMax(&sMaxHi, hi);
        }
    }
    for (int idx = tid; idx < kBM * Dp; idx += kThreads) {
        const int r = idx / Dp, d = idx % Dp;
        Qs[r * P::ldQ + d] = fromFloat<T>(q0 + r < p.Lq && d < D ? qg[(q0 + r) * D + d] : 0.0f);
    }
    for (int idx = tid; idx < kBM * Dvp; idx += kThreads) Os[(idx / Dvp) * P::ldO + idx % Dvp] = 0.0f;
    __syncthreads();

    const int minLo = sMinLo, maxHi = sMaxHi;
    const bool elementwise = p.mask.elementwise();
    const int row0 = warp * 16;
    for (int k0 = maxHi >= minLo ? (minLo / BN) * BN : p.Lk; k0 <= maxHi; k0 += BN) {
        __syncthreads();   // every warp is done with the previous K and V tiles
        for (int idx = tid; idx < BN * Dp; idx += kThreads) {
            const int c = idx / Dp, d = idx % Dp;
            Ks[c * P::ldK + d] = fromFloat<T>(k0 + c < p.Lk && d < D ? kg[(long long)(k0 + c) * D + d] : 0.0f);
        }
        for (int idx = tid; idx < BN * Dvp; idx += kThreads) {
            const int c = idx / Dvp, d = idx % Dvp;
            Vs[c * P::ldV + d] = fromFloat<T>(k0 + c < p.Lk && d < Dv ? vg[(long long)(k0 + c) * Dv + d] : 0.0f);
        }
        __syncthreads();

        // S_w = Q_w · Kᵀ (K row-major [BN][D] is Kᵀ column-major).
        for (int nt = 0; nt < BN / 16; ++nt) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> sf;
            wmma::fill_fragment(sf, 0.0f);
            for (int kk = 0; kk < Dp / 16; ++kk) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> qf;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> kf;
                wmma::load_matrix_sync(qf, Qs + row0 * P::ldQ + kk * 16, P::ldQ);
                wmma::load_matrix_sync(kf, Ks + nt * 16 * P::ldK + kk * 16, P::ldK);
                wmma::mma_sync(sf, qf, kf, sf);
            }
            wmma::store_matrix_sync(Ss + row0 * P::ldS + nt * 16, sf, P::ldS, wmma::mem_row_major);
        }
        __syncwarp();

        // Online softmax over this warp's 16 rows, in fp32.
        for (int rr = 0; rr < 16; ++rr) {
            const int r = row0 + rr;
            const long long i = q0 + r;
            const int lo = sLo[r], hi = sHi[r];
            float s[BN / 32];
            float tileMax = -CUDART_INF_F;
#pragma unroll
            for (int cc = 0; cc < BN / 32; ++cc) {
                const int c = lane + 32 * cc, j = k0 + c;
                float x = softcapLog2(Ss[r * P::ldS + c] * sScale, p.softcap);
                if (j < lo || j > hi) {
                    x = -CUDART_INF_F;
                } else if (elementwise) {
                    const float bias = elementBias(p, b, h, i, j);
                    x = bias == -CUDART_INF_F ? -CUDART_INF_F : x + bias * kLog2e;
                }
                s[cc] = x;
                tileMax = fmaxf(tileMax, x);
            }
#pragma unroll
            for (int off = 16; off > 0; off /= 2) tileMax = fmaxf(tileMax, __shfl_xor_sync(0xffffffffu, tileMax, off));
            const float mOld = Ms[r];
            const float mNew = fmaxf(mOld, tileMax);
            float rowSum = 0.0f;
#pragma unroll
            for (int cc = 0; cc < BN / 32; ++cc) {
                const float e = mNew == -CUDART_INF_F ? 0.0f : exp2f(s[cc] - mNew);
                rowSum += e;
                Ps[r * P::ldP + lane + 32 * cc] = fromFloat<T>(e);
            }
#pragma unroll
            for (int off = 16; off > 0; off /= 2) rowSum += __shfl_xor_sync(0xffffffffu, rowSum, off);
            float alpha = 1.0f;
            if (mNew != -CUDART_INF_F && mNew != mOld) alpha = exp2f(mOld - mNew);
            if (alpha != 1.0f)
                for (int d = lane; d < Dvp; d += 32) Os[r * P::ldO + d] *= alpha;
            __syncwarp();   // every lane has read Ms[r] before lane 0 overwrites it
            if (lane == 0) {
                Ls[r] = Ls[r] * alpha + rowSum;
                if (mNew != -CUDART_INF_F) Ms[r] = mNew;
            }
        }
        __syncwarp();

        // O_w += P_w · V.
        for (int dt = 0; dt < Dvp / 16; ++dt) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> of;
            wmma::load_matrix_sync(of, Os + row0 * P::ldO + dt * 16, P::ldO, wmma::mem_row_major);
#pragma unroll
            for (int kc = 0; kc < BN / 16; ++kc) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> pf;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> vf;
                wmma::load_matrix_sync(pf, Ps + row0 * P::ldP + kc * 16, P::ldP);
                wmma::load_matrix_sync(vf, Vs + kc * 16 * P::ldV + dt * 16, P::ldV);
                wmma::mma_sync(of, pf, vf, of);
            }
            wmma::store_matrix_sync(Os + row0 * P::ldO + dt * 16, of, P::ldO, wmma::mem_row_major);
        }
        __syncwarp();
    }

    for (int rr = 0; rr < 16; ++rr) {
        const int r = row0 + rr;
        const long long i = q0 + r;
        if (i >= p.Lq) break;
        const float l = Ls[r];
        const bool dead = !(l > 0.0f);
        const float inv = dead ? 0.0f : 1.0f / l;
        float *og = p.out + ((long long)bh * p.Lq + i) * Dv;
        for (int d = lane; d < Dv; d += 32) og[d] = dead ? 0.0f : Os[r * P::ldO + d] * inv;
        if (lane == 0)   // in double, as in flash_f32.cu: the weights kernel's P inherits this rounding
            p.lse[(long long)bh * p.Lq + i] = dead ? CUDART_INF_F : float(double(Ms[r]) * kLn2d + log(double(l)));
    }
}

template <typename T, int BN, int DQ, int DV, bool FIXED>
cudaError_t launch(const FlashParams &p, cudaStream_t stream)
{
    constexpr int bytes = Plan<T, BN, DQ, DV>::bytes;
    auto kernel = flashTcKernel<T, BN, DQ, DV, FIXED>;
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes))
        return e;
    const dim3 grid((p.Lq + kBM - 1) / kBM, p.bhEnd - p.bhBegin);
    kernel<<<grid, kThreads, bytes, stream>>>(p);
    return cudaGetLastError();
}

template <typename T>
cudaError_t launchTyped(const FlashParams &p, cudaStream_t stream)
{
    if (p.D == 64 && p.Dv == 64) return launch<T, 64, 64, 64, true>(p, stream);
    if (p.D == 128 && p.Dv == 128) return launch<T, 64, 128, 128, true>(p, stream);
    return launch<T, 32, kMaxHeadDim, kMaxHeadDim, false>(p, stream);
}

} // namespace

int flashTensorCoreSharedBytes(int D, int Dv)
{
    if (D == 64 && Dv == 64) return Plan<__half, 64, 64, 64>::bytes;
    if (D == 128 && Dv == 128) return Plan<__half, 64, 128, 128>::bytes;
    return Plan<__half, 32, kMaxHeadDim, kMaxHeadDim>::bytes;
}

cudaError_t launchFlashTensorCore(const FlashParams &p, Dtype dtype, cudaStream_t stream)
{
    if (dtype == Dtype::BF16) return launchTyped<__nv_bfloat16>(p, stream);
    return launchTyped<__half>(p, stream);
}

} // namespace attn::cuda
