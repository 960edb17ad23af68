// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Validate first, then time. A kernel's error against the fp64 oracle is judged against the error of a naive
// fp32 implementation on the same rows (the FlashAttention tests' scale-free rule):
//
//   pass  ⇔  max|O_kernel − O_fp64| ≤ 2 · max|O_naive32 − O_fp64| + 1e-6   (and the same rule for weights)
//
// At large n the oracle (scalar fp64, O(n·d) per row) runs on a sample of query rows only.

#include <attnscope/attention.h>
#include <attnscope/reference.h>

#include <cstdint>
#include <vector>

namespace attn::bench {

// All rows (empty list) when the full fp64 reference is cheap enough and `alwaysSample` is false, otherwise
// `count` rows spread evenly over [0, Lq), first and last included. `keepWeights`: the oracle will also hold
// fp64 scores and P for every head, so "cheap" includes their memory.
std::vector<std::int64_t> validationRows(std::int64_t B, std::int64_t H, std::int64_t Lq, std::int64_t Lk,
                                         std::int64_t D, int count, bool alwaysSample, bool keepWeights);

struct NaiveError {
    double out = 0.0;       // max |O_naive32 − O_fp64| over the oracle's rows
    double weights = 0.0;   // max |P_naive32 − P_fp64|, when the oracle kept P
};

// Full-row fp32 softmax with sequential fp32 sums and libm exp: the yardstick, never timed.
// With dtype F16/BF16 it is the same-precision naive path instead (what an unfused framework computes in that
// type): q, k, v rounded to the type, scores rounded, softmax in fp32 then P rounded, O = P·V accumulated in fp32
// and rounded — the FlashAttention tests' "naive implementation in the same precision".
NaiveError naiveFp32Error(const TensorView &q, const TensorView &k, const TensorView &v, const MaskSpec &mask,
                          const ReferenceOutput &ref, const std::vector<std::int64_t> &rows,
                          ComputeDtype dtype = ComputeDtype::F32);

struct KernelError {
    double out = 0.0;       // max |O − O_fp64| over the oracle's rows
    double lse = 0.0;       // max |lse − lse_fp64| over finite oracle LSEs
    double weights = 0.0;   // max |P − P_fp64| over the returned heads, when the oracle kept P
    bool finite = true;     // no NaN/Inf anywhere in O (all rows, not just the sampled ones)
    bool maskedRowsAgree = true;   // LSE is +inf exactly where the oracle's is
};

KernelError kernelError(const AttentionOutput &got, const ReferenceOutput &ref, const std::vector<std::int64_t> &rows,
                        std::int64_t H, std::int64_t Lk);

} // namespace attn::bench
