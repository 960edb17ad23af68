// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Pure metric primitives of the faithfulness checks (reference/faithfulness.md §1, §3.2, §3.8, §3.9, §3.13).
// No model: plain vectors in, float64 numbers out.
//
// Conventions: natural logarithms (JSD and KL in nats), 0·log 0 = 0 and no epsilon on probabilities. Rank
// statistics use average ranks for ties (Spearman) and Kendall τ-b (ties counted as in scipy's default). A
// statistic that is undefined on its input — a constant vector for a correlation, vectors of different or too
// small sizes — is NaN, never 0: callers count NaNs. Orderings put the larger score first and break ties by
// position (the smaller index first), the same in every ordering.

#include <cstdint>
#include <functional>
#include <vector>

namespace attn {

// ---- distances between distributions p, q of equal length (each summing to 1) ----
double totalVariation(const std::vector<double> &p, const std::vector<double> &q);   // 0.5·Σ|p−q|
double klDivergence(const std::vector<double> &p, const std::vector<double> &q);     // Σ p ln(p/q), p=0 terms dropped; +inf if q=0<p
double jsDivergence(const std::vector<double> &p, const std::vector<double> &q);     // ½KL(p‖m)+½KL(q‖m), m=(p+q)/2; ≤ ln 2

// Softmax of logits in float64 (max-shifted).
std::vector<double> softmax(const std::vector<double> &logits);

// ---- agreement statistics (x, y of equal length n ≥ 2; otherwise NaN) ----
double kendallTauB(const std::vector<double> &x, const std::vector<double> &y);
double spearman(const std::vector<double> &x, const std::vector<double> &y);   // Pearson of average ranks
double pearson(const std::vector<double> &x, const std::vector<double> &y);
std::vector<double> averageRanks(const std::vector<double> &x);                 // ranks 1..n, ties averaged
// |top-k(x) ∩ top-k(y)| / k with the ordering convention above; k is clamped to [1, n]. NaN when n = 0.
double topKOverlap(const std::vector<double> &x, const std::vector<double> &y, int k);

// Indices 0..n-1 sorted by descending score, ties by ascending index. NaN scores go last (by index).
std::vector<int> descendingOrder(const std::vector<double> &scores);

// ---- curves and areas ----
// Trapezoid area of `values` on [0, 1] with equally spaced points (RISE `auc`):
// (Σ v − v_0/2 − v_last/2) / (n − 1). NaN for fewer than 2 points.
double normalizedAuc(const std::vector<double> &values);

// ERASER: the number of tokens of bin fraction p of T scored tokens, k = max(1, ceil(p·T)) (and ≤ T).
int eraserK(double fraction, int tokens);

// Deletion / insertion curves (RISE, §3.9) of an additive or black-box set function.
// `score(kept)` returns the target score with kept[t] = 1 for present tokens, for t in [0, n).
// `order` lists token indices, most important first. `step` tokens are removed (inserted) per point, so the
// curve has ceil(n/step) + 1 points: deletion starts from all kept, insertion from none kept.
struct Curves {
    std::vector<double> deletion;    // [points]
    std::vector<double> insertion;   // [points]
    double aucDeletion = 0.0;        // normalizedAuc(deletion): lower is better
    double aucInsertion = 0.0;       // normalizedAuc(insertion): higher is better
};
using SetScoreFn = std::function<double(const std::vector<std::uint8_t> &kept)>;
Curves deletionInsertionCurves(const SetScoreFn &score, const std::vector<int> &order, int step = 1);

// ERASER comprehensiveness and sufficiency for the given bins (fractions, e.g. {0.01,0.05,0.1,0.2,0.5}),
// with r_k = the first eraserK(bin, n) entries of `order`:
//   comprehensiveness_k = m(x) − m(x \ r_k)   sufficiency_k = m(x) − m(r_k)
// AOPC = the mean over the bins (the ERASER scorer's convention, no 0 % bin; the paper's = |B|/(|B|+1) of it).
struct EraserScores {
    std::vector<double> bins;                // fractions as given
    std::vector<int> k;                      // tokens removed (kept) per bin
    std::vector<double> comprehensiveness;   // per bin
    std::vector<double> sufficiency;         // per bin
    double aopcComprehensiveness = 0.0;
    double aopcSufficiency = 0.0;
};
EraserScores eraserScores(const SetScoreFn &score, const std::vector<int> &order, const std::vector<double> &bins);

// Faithfulness correlation (Bhatt et al. 2020, §3.13): Pearson over the subsets S of
// ( Σ_{i∈S} g_i , m(x) − m(x with S removed) ). `subsets` are index lists into g; `drops` are the matching
// m(x) − m(x_S) values (the caller runs the model). NaN when either side is constant.
double faithfulnessCorrelation(const std::vector<double> &g, const std::vector<std::vector<int>> &subsets,
                               const std::vector<double> &drops);

// The first k (1-based) at which removing order[0..k) changes `decide(kept)` from its value with everything kept;
// −1 if it never changes (Serrano & Smith's erasure to a decision flip, §3.7, one item per step).
using DecisionFn = std::function<std::int64_t(const std::vector<std::uint8_t> &kept)>;
int tokensToFlip(const DecisionFn &decide, const std::vector<int> &order);

// Perturbation attributions of a black-box f over a feature vector x (Captum's definitions, §3.12), with
// `baseline` [n] as the removed value. FeatureAblation: f(x) − f(x with x_i := b_i). Occlusion: windows of
// `window` features every `stride`, f(x) − f(x with the window := b) added to each covered feature and averaged
// over its covering windows. Exact Shapley values (2^n evaluations; n ≤ 16, else empty).
using VectorFn = std::function<double(const std::vector<double> &x)>;
std::vector<double> featureAblation(const VectorFn &f, const std::vector<double> &x, const std::vector<double> &baseline);
std::vector<double> occlusion(const VectorFn &f, const std::vector<double> &x, const std::vector<double> &baseline,
                              int window, int stride);
std::vector<double> shapleyValues(const VectorFn &f, const std::vector<double> &x, const std::vector<double> &baseline);

// Median (NaN for an empty vector; the mean of the two middle values for even sizes).
double median(std::vector<double> values);

} // namespace attn
