// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Approximate attention beside exact, with its error and cost (docs/variants.md). One head, fp64, teaching sizes
// (the limits of variants.h):
//   Q [Lq, d]   K [Lk, d]   V [Lk, dv]     exact: P = softmax(scale · Q Kᵀ) (causal: j ≤ i'), Y = P V
// with i' = i + (Lk − Lq), the query's position on the key axis (mask.h's alignment).
//
// Sparse patterns: softmax over the pattern's keys only (the other weights are 0):
//   LocalWindow  |i' − j| ≤ window                         (mask.h's window)
//   BlockLocal   ⌊i'/block⌋ == ⌊j/block⌋                   (mask.h's block)
//   Strided      |i' − j| < stride  or  stride divides i' − j   (Sparse Transformer, Child et al. 2019: a local band
//                and every stride-th key, both heads of their factorisation in one pattern)
//   Dilated      |i' − j| ≤ window · dilation  and  dilation divides i' − j   (Longformer's dilated window)
// Kernel (linear-time) forms, P never formed; their implied weights are shown:
//   LinearElu       φ(x) = elu(x) + 1 (Katharopoulos et al. 2020), Y_i = φ(q_i)ᵀ S / φ(q_i)ᵀ z with
//                   S = Σ_j φ(k_j) v_jᵀ [d, dv], z = Σ_j φ(k_j) [d]; implied A_ij = φ(q_i)·φ(k_j) / φ(q_i)ᵀ z.
//                   It is a different kernel, not an estimator of softmax: its error does not vanish.
//   RandomFeatures  Performer's positive random features (FAVOR+, Choromanski et al. 2021, i.i.d. ω, not
//                   orthogonalised): x̃ = x · √scale, φ(x)_r = exp(ω_rᵀ x̃ − ‖x̃‖²/2) / √m for r = 1..m,
//                   ω_r ~ N(0, I_d) drawn from `seed` (seededNormal); E[φ(q)·φ(k)] = exp(scale · q·k), so the
//                   implied weights estimate softmax with error ~ 1/√m. Same linear-time evaluation as LinearElu.
// With causal, the kernel forms use prefix sums over j ≤ i'. A row with no visible key gives Y = 0, weights 0.
//
// Costs (self-attention, Lq = Lk = n; FLOPs count a multiply-add as 2 and exp, tanh, compare, divide as 1;
// memory counts the values held besides Q, K, V and Y):
//   pattern with c computed scores (exact: c = n², causal n(n+1)/2):
//     FLOPs = c · (2d + 2dv + 6)   [q·k 2d, scale 1, row max 1, subtract 1, exp 1, sum 1, divide 1, P·V 2dv]
//     memory = c                   [the scores/weights of the pattern, materialised as a view needs them]
//   LinearElu (bidirectional or causal, streamed over keys then queries):
//     FLOPs = n · (5d + 4d·dv + dv)  [φ of q and k: 2nd; S: 2nd·dv; z: nd; per query φ(q)ᵀS 2d·dv, φ(q)·z 2d,
//                                     divide dv]
//     memory = d·dv + d            [S and z]
//   RandomFeatures with m features:
//     FLOPs = n · (4md + 4d + 9m + 4m·dv + dv)  [φ per row: ω x 2md, ‖x‖² 2d, exponent 3m (two subtracts
//                                     and exp), for 2n rows; then as LinearElu with d → m]
//     memory = m·d + m·dv + m      [ω, S, z]
// Counts for a pattern come from closed forms per row (O(n) for a point of the curve). A flash kernel (the
// Tiled backend) computes exact attention in O(n) memory too: what the approximations save is the n² FLOPs.

#include <attnscope/variants.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attn {

enum class ApproxKind { LocalWindow, BlockLocal, Strided, Dilated, LinearElu, RandomFeatures };
std::string approxKindName(ApproxKind kind);   // "window", "block", "strided", "dilated", "linear-elu", "random-features"
std::optional<ApproxKind> parseApproxKind(const std::string &name);

struct ApproxSpec {
    ApproxKind kind = ApproxKind::LocalWindow;
    std::int64_t window = 1;     // LocalWindow (≥ 0), Dilated (≥ 0, in steps of `dilation`)
    std::int64_t block = 1;      // BlockLocal, ≥ 1
    std::int64_t stride = 1;     // Strided, ≥ 1
    std::int64_t dilation = 1;   // Dilated, ≥ 1
    std::int64_t features = 16;  // RandomFeatures m, 1 … 65536, and max(Lq + Lk, d) · m ≤ 2^24
    std::uint64_t seed = 0;      // RandomFeatures
    bool causal = false;         // every kind: also j ≤ i'
    double scale = 0.0;          // 0 → 1/√d
};

struct CostCount {
    double flops = 0.0;
    double memory = 0.0;   // values
};

struct ApproxResult {
    ApproxSpec spec;
    MatrixD exactWeights;               // [Lq, Lk]
    MatrixD approxWeights;              // [Lq, Lk] (kernel forms: the implied weights)
    MatrixD difference;                 // [Lq, Lk] approx − exact
    MatrixD exactOutput;                // [Lq, dv]
    MatrixD approxOutput;               // [Lq, dv] (kernel forms: from the linear-time evaluation)
    std::vector<std::uint8_t> pattern;  // sparse kinds: [Lq, Lk] 1 where a score is computed; empty otherwise
    std::int64_t computedScores = 0;    // sparse kinds: ones in pattern; kernel forms: 0
    double maxAbsDeltaY = 0.0;          // max |approxOutput − exactOutput|
    double maxAbsDeltaP = 0.0;          // max |difference|
    double maxRowTvd = 0.0;             // max_i ½ Σ_j |difference_ij|; for a sparse pattern it equals the exact
                                        // weight outside the pattern, 1 − Σ_{j∈pattern} P_ij
    CostCount exactCost;                // for this problem's Lq, Lk (the formulas above with c = visible pairs)
    CostCount approxCost;
};

Result<ApproxResult> approximateAttention(const MatrixD &Q, const MatrixD &K, const MatrixD &V,
                                          const ApproxSpec &spec);

// The formulas above for self-attention of length n. Exact: c = n² (causal n(n+1)/2).
CostCount exactAttentionCost(std::int64_t n, std::int64_t d, std::int64_t dv, bool causal);
Result<CostCount> approximateAttentionCost(const ApproxSpec &spec, std::int64_t n, std::int64_t d, std::int64_t dv);
// Scores a sparse pattern computes at length n (closed form per row); 0 for the kernel forms.
std::int64_t patternScoreCount(const ApproxSpec &spec, std::int64_t n);

struct CostPoint {
    std::int64_t n = 0;
    CostCount exact;
    CostCount approx;
};
// One point per n (each 1 … 2^24), for a plot of cost against n.
Result<std::vector<CostPoint>> costCurve(const ApproxSpec &spec, const std::vector<std::int64_t> &ns, std::int64_t d,
                                         std::int64_t dv);

} // namespace attn
