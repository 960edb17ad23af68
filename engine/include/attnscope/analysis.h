// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Analysis of captured attention: per-head statistics and the aggregations across heads and layers
// (mean over heads, attention rollout, attention flow). Pure functions over plain matrices; no model needed.
//
// Layout and units: an attention matrix A is row-major [n, n] (row i = query, column j = key), each row
// summing to 1 or to 0 (a fully masked or ablated query). Arithmetic is float64. Entropy is in nats; distances
// are in token positions. Definitions follow reference/faithfulness.md §1 (0·log 0 = 0) and §3.10 (rollout,
// flow); the token-pattern scores follow TransformerLens' detection on the current input.

#include <attnscope/status.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace attn {

// Statistics of one head on one input. A value that is undefined on this input (no repeated token for the
// duplicate and induction scores, fewer than two tokens for the previous-token score) is NaN.
struct HeadStatistics {
    double entropy = 0.0;         // mean over queries of −Σ_j A[i,j]·ln A[i,j]   (nats)
    double meanDistance = 0.0;    // mean over queries of Σ_j A[i,j]·|i − j|       (positions)
    double firstToken = 0.0;      // mean_i A[i, 0]
    double self = 0.0;            // mean_i A[i, i]
    double previousToken = std::numeric_limits<double>::quiet_NaN();   // mean over i ≥ 1 of A[i, i−1]
    // Over queries i whose token occurred earlier (j < i with token[j] = token[i]):
    double duplicateToken = std::numeric_limits<double>::quiet_NaN();  // mean of Σ_{such j} A[i, j]
    double induction = std::numeric_limits<double>::quiet_NaN();       // mean of Σ_{such j} A[i, j+1]
};

// `weights`: [n, n] row-major; `tokens`: [n] token ids (only equality matters). Queries whose row sums to 0
// (fully masked or ablated) are left out of every mean. n = tokens.size().
HeadStatistics headStatistics(const float *weights, const std::vector<std::int64_t> &tokens);

// Mean over heads: heads[h] points to an [n, n] matrix. Returns [n, n].
std::vector<double> meanOverHeads(const std::vector<const float *> &heads, int n);

// Attention rollout (Abnar & Zuidema 2020): layers[l] is layer l's head-fused [n, n] matrix, first layer first.
// With the residual, Ã_l = 0.5·A_l + 0.5·I and each row is divided by its own sum; R_1 = Ã_1, R_l = Ã_l·R_{l−1}.
// Returns R_L, [n, n]: row o is the relevance of each input token for output position o.
Result<std::vector<double>> attentionRollout(const std::vector<std::vector<double>> &layers, int n,
                                             bool residual = true);

// Attention flow (Abnar & Zuidema 2020): nodes (l, p), l = 0..L; edge (l, p) → (l−1, q) with capacity Ã_l[p, q];
// F[o, q] = maxflow((L, o) → (0, q)), then each row divided by its sum. One max-flow per pair (Dinic), so it is
// limited to n ≤ kMaxFlowTokens; larger inputs get an InvalidArgument status that says so.
constexpr int kMaxFlowTokens = 64;
Result<std::vector<double>> attentionFlow(const std::vector<std::vector<double>> &layers, int n,
                                          bool residual = true, const std::function<bool()> &cancel = {});
// One row o of the flow, [n] (n max-flows instead of n²; no token limit): the relevance of each input token for
// output position o, normalized to sum 1.
Result<std::vector<double>> attentionFlowRow(const std::vector<std::vector<double>> &layers, int n, int o,
                                             bool residual = true, const std::function<bool()> &cancel = {});

} // namespace attn
