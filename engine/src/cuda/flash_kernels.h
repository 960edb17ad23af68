// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The interface between the CUDA launcher (launcher.cpp, host C++) and the kernels (*.cu, nvcc). Plain structs of
// device pointers and sizes, so neither side needs the other's headers.
//
// Device layouts (the launcher packs the caller's strided views into these):
//   q   [B, H,   Lq, D ]  fp32, contiguous        k [B, Hkv, Lk, D]   v [B, Hkv, Lk, Dv]   (fp32, contiguous)
//   out [B, H,   Lq, Dv]  fp32, contiguous        lse [B, H, Lq]      fp32, natural log, +inf for dead rows
// fp16/bf16 kernels read the fp32 operands and round them to the compute type while staging tiles in shared
// memory (no second copy of Q, K, V on the device); scores and the output accumulate in fp32.
//
// Masks follow attn::maskBias (mask.h) exactly. The structural part (causal, window, block, the batch's first and
// last valid key, query padding) becomes one key interval [lo, hi] per query row, computed in the kernel; the
// per-element parts (key padding holes, boolean and additive masks, per-head bias, ALiBi) are applied to score
// tiles only when present. The soft-cap (FlashParams::softcap) is applied to the scaled score before them.

#include <cuda_runtime.h>

#include <cstdint>

#if defined(__CUDACC__)
#define ATTN_HOST_DEVICE __host__ __device__
#else
#define ATTN_HOST_DEVICE
#endif

namespace attn::cuda {

enum class Dtype { F32, F16, BF16 };

struct DeviceMask {
    bool causal = false;
    long long window = -1;                    // -1: off
    long long block = 0;                      // 0: off
    const long long *firstKey = nullptr;      // [B] first valid key (0 without key padding)
    const long long *lastKey = nullptr;       // [B] last valid key (Lk - 1 without key padding)
    const unsigned char *keyValid = nullptr;  // [B, Lk] or null
    const unsigned char *queryValid = nullptr;// [B, Lq] or null
    const unsigned char *allowed = nullptr;   // [Lq, Lk] or [B, Lq, Lk], or null
    bool allowedBatched = false;
    const float *additive = nullptr;          // [Lq, Lk] or [B, Lq, Lk], or null (natural-log units)
    bool additiveBatched = false;
    const float *alibi = nullptr;             // [H] or null
    const float *headBias = nullptr;          // [H, Lq, Lk] or null (natural-log units)
    ATTN_HOST_DEVICE bool elementwise() const { return keyValid || allowed || additive || alibi || headBias; }
};

struct FlashParams {
    const float *q = nullptr, *k = nullptr, *v = nullptr;
    float *out = nullptr;
    float *lse = nullptr;
    int B = 0, H = 0, Hkv = 0, Lq = 0, Lk = 0, D = 0, Dv = 0;
    float scale = 1.0f;
    float softcap = 0.0f;                     // 0: off; else s = softcap·tanh(s / softcap) before the mask bias
    DeviceMask mask;
    int bhBegin = 0, bhEnd = 0;               // this launch covers flattened (b, h) in [bhBegin, bhEnd)
};

// Largest head dim (D and Dv) the kernels handle; 64 and 128 (with D == Dv) have specialised instances.
constexpr int kMaxHeadDim = 256;

// Launch the forward kernel for params.bhBegin..bhEnd on `stream` (asynchronous). Returns the launch error.
cudaError_t launchFlashF32(const FlashParams &params, cudaStream_t stream);
cudaError_t launchFlashTensorCore(const FlashParams &params, Dtype dtype, cudaStream_t stream);

// Exact weights of one (b, h): P[i, j] = exp(s_ij - lse_i), [Lq, Lk] row-major, with q and k rounded to `dtype`
// as the forward pass saw them and lse recomputed in double into lseScratch ([Lq] doubles, see weights.cu).
// Fully masked rows become 0.
cudaError_t launchWeights(const FlashParams &params, Dtype dtype, int b, int h, double *lseScratch, float *P,
                          cudaStream_t stream);

// cudaSuccess when this build's kernels have an image (SASS or PTX) the current device can run.
cudaError_t probeKernelImage();

// Shared-memory bytes the launches above need; the launcher checks them against the device's limit.
int flashF32SharedBytes(int D, int Dv);
int flashTensorCoreSharedBytes(int D, int Dv);

} // namespace attn::cuda
