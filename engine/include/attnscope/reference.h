// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The fp64 oracle. Every other path is tested against it. Scalar, readable, and it materialises everything:
// scores S, the dense mask bias and the weights P, per (batch, head), in double precision. The score order is
// attention.h's: s = scale · q·k, soft-capped when asked, plus maskBias.
//
// Shapes as in attention.h. Results are contiguous fp64:
//   out    [B, H, R, Dv]     R = number of query rows computed (all Lq, or the `rows` subset in order)
//   lse    [B, H, R]         +inf for fully masked rows
//   P      [B, H, R, Lk]     only when keepWeights; masked entries exactly 0
//   scores [B, H, R, Lk]     scaled (soft-capped) scores + mask bias (-inf where masked), only when keepWeights

#include <attnscope/attention.h>

#include <cstdint>
#include <vector>

namespace attn {

struct ReferenceOutput {
    std::int64_t rows = 0;           // R
    std::vector<double> out;
    std::vector<double> lse;
    std::vector<double> P;
    std::vector<double> scores;
};

struct ReferenceOptions {
    double scale = 0.0;                 // 0: 1/sqrt(D)
    double softcap = 0.0;               // 0: off; else s = softcap · tanh(s / softcap) before the mask bias
    // F16/BF16: Q, K and V are rounded to the type (roundToDtype) as they are read, then everything is fp64:
    // the oracle for the low-precision paths.
    ComputeDtype dtype = ComputeDtype::F32;
    bool keepWeights = false;
    std::vector<std::int64_t> rows;     // empty: all query rows; otherwise only these (for spot checks at huge L)
    CancelFn cancel;          // polled once per query row
    ProgressFn progress;      // called once per (batch, head)
};

Result<ReferenceOutput> referenceAttention(const TensorView &q, const TensorView &k, const TensorView &v,
                                           const MaskSpec &mask, const ReferenceOptions &options = {});

} // namespace attn
