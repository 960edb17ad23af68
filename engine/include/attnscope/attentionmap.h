// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The exact zoomable attention map of one (batch, head) for inputs far too long to hold P (n = 131072: P would be
// 64 GiB). Two calls, neither ever holding Lq × Lk:
//
//   attentionMapOverview   a Gq × Gk grid over P (Gq = min(grid, Lq), Gk = min(grid, Lk)). Query block a spans the
//                          rows [⌊a·Lq/Gq⌋, ⌊(a+1)·Lq/Gq⌋), key block b the keys [⌊b·Lk/Gk⌋, ⌊(b+1)·Lk/Gk⌋).
//                            mass[a·Gk + b] = Σ_{i ∈ a, j ∈ b} P_ij      (the exact attention mass of the block)
//                            max [a·Gk + b] = max_{i ∈ a, j ∈ b} P_ij
//                          so row a of mass sums to the number of rows of block a that see any key. It also
//                          returns each row's softmax statistics (AttentionMapRows), which make zooming cheap.
//   attentionMapWindow     the exact P_ij of a window [q0, q1) × [k0, k1), recomputed tile by tile from the rows'
//                          statistics as P_ij = 2^(s_ij − m_i) / l_i = exp(s_ij − lse_i).
//
// P is the attention() definition exactly (attention.h): s = scale · q·k, soft-capped, plus maskBias (every mask
// kind, headBias included), inputs rounded to computeDtype; the scores are computed by the tiled kernel's own
// tile code, so they are bit for bit the ones attention(Backend::Tiled) sees. Fully masked rows have P = 0.
//
// Cost: the overview is one streaming pass over Q·Kᵀ (2·Lq·Lk·D FLOPs plus one exp per score): each work item takes
// whole query blocks, sweeps all keys once with an online softmax and keeps, per row and key block, the partial
// sum and the block maximum relative to the row's running maximum (rescaled as it grows), normalising by the row's
// final LSE at the end: the same numbers as recomputing P from the LSE, without a second Q·Kᵀ pass. Memory:
// O(threads · (tile + Gk · query block) + Gq · Gk), independent of L² (about 8 MiB of grid and 1.5 MiB per thread
// at grid 1024). The window costs 2·(q1−q0)·(k1−k0)·D FLOPs and holds only its own output.
//
// Multi-threaded (work items over query blocks; the result is the same bits whatever the thread count), progress
// after each item, cancel polled before each item (ErrorCode::Cancelled).
//
// Shapes: q [B, H, Lq, D], k [B, Hkv, Lk, D] (fp32 views, any strides; V is not needed), H a multiple of Hkv.

#include <attnscope/attention.h>
#include <attnscope/mask.h>
#include <attnscope/status.h>
#include <attnscope/tensor.h>

#include <cstdint>
#include <vector>

namespace attn {

struct AttentionMapOptions {
    std::int64_t batch = 0;        // the (batch, head) to map
    std::int64_t head = 0;
    std::int64_t grid = 1024;      // overview cells per axis (clamped to Lq and Lk); >= 1
    float scale = 0.0f;            // as AttentionOptions: 0 → 1/sqrt(D)
    float softcap = 0.0f;
    ComputeDtype computeDtype = ComputeDtype::F32;
    int threads = 0;               // 0: all hardware threads
    ProgressFn progress;
    CancelFn cancel;
};

// Softmax statistics of each query row of the mapped head, in the kernel's units: scores are in log2 units
// (s₂ = s · log2 e), m the row's maximum s₂ (-inf when the row sees no key) and l = Σ_j 2^(s₂_ij − m).
struct AttentionMapRows {
    std::vector<float> m;          // [Lq]
    std::vector<float> l;          // [Lq]; 0 for fully masked rows
    double lse(std::int64_t i) const;   // natural-log LSE of row i: m·ln 2 + ln l, +inf for a fully masked row
};

struct AttentionMapOverview {
    std::int64_t Lq = 0, Lk = 0;
    std::int64_t gridRows = 0, gridCols = 0;    // Gq, Gk
    std::vector<std::int64_t> rowStart;         // [Gq + 1]: query block a = [rowStart[a], rowStart[a + 1])
    std::vector<std::int64_t> colStart;         // [Gk + 1]
    std::vector<float> mass;                    // [Gq, Gk] row-major
    std::vector<float> max;                     // [Gq, Gk] row-major
    AttentionMapRows rows;
};

Result<AttentionMapOverview> attentionMapOverview(const TensorView &q, const TensorView &k, const MaskSpec &mask,
                                                  const AttentionMapOptions &options = {});

struct AttentionMapWindow {
    std::int64_t q0 = 0, q1 = 0, k0 = 0, k1 = 0;
    std::vector<float> P;          // [q1 − q0, k1 − k0] row-major
};

// The exact weights of [q0, q1) × [k0, k1) (0 <= q0 < q1 <= Lq, 0 <= k0 < k1 <= Lk). `rows` are the statistics of
// the same problem's overview (the zoom then costs only the window); with nullptr they are computed first for rows
// [q0, q1) by an LSE pass over all Lk keys. options.grid is not used.
Result<AttentionMapWindow> attentionMapWindow(const TensorView &q, const TensorView &k, const MaskSpec &mask,
                                              const AttentionMapRows *rows, std::int64_t q0, std::int64_t q1,
                                              std::int64_t k0, std::int64_t k1,
                                              const AttentionMapOptions &options = {});

// Block boundaries ⌊b·n/G⌋ for b = 0..G (G clamped to [1, n]): what the overview uses, for callers that label axes.
std::vector<std::int64_t> attentionMapBlockStarts(std::int64_t n, std::int64_t grid);

} // namespace attn
