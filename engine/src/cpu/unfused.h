// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The unfused baseline: per (batch, head), the classic three steps with the whole score matrix in memory.
//
//   S = scale · Q Kᵀ            [Lq, Lk]  one Eigen GEMM (fp32 accumulate; scale is the GEMM's alpha)
//   S = cap · tanh(S / cap)               with a soft-cap (the tiled kernel's vectorised tanh)
//   S += maskBias                         structural masks as a column range per row, the rest via maskBias()
//   P = softmax_rows(S)                   exact full-row max and sum; fully masked rows: P = 0, lse = +inf
//   O = P V                     [Lq, Dv]  one Eigen GEMM; when P is not requested, exp(S − max) stays
//                                         unnormalised and O's rows are divided by the row sums instead
//                                         (skipped with Output::LseOnly)
//
// Memory: one Lq·Lk fp32 matrix and one Lq·Dv output block per worker thread (P is copied to the caller's
// weights buffer when that head's weights were requested). That is the O(L²) cost the tiled path exists to avoid;
// this backend is the yardstick it must beat, and a safe fallback for tiny shapes.

#include "kernel_args.h"

namespace attn::detail {

// Contract in kernel_args.h. Returns OutOfMemory if the score scratch cannot be allocated, Cancelled if
// args.cancel fired between (b, h) items.
Status unfusedAttention(const KernelArgs &args);

} // namespace attn::detail
