// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Dataset-level statistics (issue 17; definitions in docs/datasets.md): summaries over examples, a seeded
// bootstrap, the paired Wilcoxon signed-rank test, Holm's correction, the matched-pairs rank-biserial effect size,
// and the plausibility of an importance vector against a gold rationale (ERASER, DeYoung et al. 2020).
//
// Conventions: plain vectors of float64 in, float64 out. An undefined value (an empty sample, a standard
// deviation of fewer than two values, a test without a non-zero difference) is NaN, never 0; callers count NaNs.
// Nothing here uses std:: random distributions (their output is implementation-defined): the bootstrap draws
// from SplitMix64 with an unbiased bounded integer (rejection of the 2^64 mod n lowest words), so a seed gives
// the same interval on every platform. tools/make_stats_fixtures.py re-implements the generator in Python and
// computes the expected numbers with NumPy and SciPy (tests/fixtures/stats/known_answers.json).

#include <cstdint>
#include <vector>

namespace attn::stats {

// ---- one sample ----
double mean(const std::vector<double> &x);                 // NaN for n = 0
double standardDeviation(const std::vector<double> &x);    // sample sd, n − 1 in the denominator (NumPy ddof=1); NaN for n < 2
// The q-th percentile (q in [0, 100]) with linear interpolation between order statistics: NumPy's default
// (method "linear", Hyndman & Fan type 7): h = (n − 1)·q/100, x_(⌊h⌋) + (h − ⌊h⌋)·(x_(⌊h⌋+1) − x_(⌊h⌋)). NaN for n = 0.
double percentile(std::vector<double> x, double q);

// ---- the seeded generator ----
// SplitMix64 (Steele, Lea & Flood 2014; engine/src/rng.h), and uniformBelow(n) on [0, n) without modulo bias:
// draw words w until w ≥ 2^64 mod n, then w mod n.
// A seed for item `k` of a run seeded `seed`, so every example (and every statistic) has its own stream, never a
// shared one: the first output of SplitMix64(seed XOR s_k), s_k the first output of SplitMix64(k).
std::uint64_t deriveSeed(std::uint64_t seed, std::uint64_t k);
// FNV-1a (64 bit) of a name: a stable stream id for a statistic's bootstrap ("aopc_comprehensiveness/rollout").
std::uint64_t nameHash(const char *text, std::size_t size);

// ---- bootstrap ----
// Percentile interval of the mean: `resamples` resamples of size n drawn with replacement (index i of resample b
// is the (b·n + i)-th uniformBelow(n) from SplitMix64(seed)); each resample's mean is its sum in draw order / n;
// the interval is percentile(means, 100·(1 − level)/2) .. percentile(means, 100·(1 + level)/2).
// NaN, NaN for n = 0.
struct Interval {
    double lo = 0.0, hi = 0.0;
};
constexpr int kBootstrapResamples = 10000;
Interval bootstrapMeanInterval(const std::vector<double> &x, std::uint64_t seed, int resamples = kBootstrapResamples,
                               double level = 0.95);

// ---- paired tests ----
// Two-sided Wilcoxon signed-rank test of d = x − y (equal lengths). SciPy's conventions, stated:
//   zeros dropped (zero_method="wilcox"); n = the non-zero differences; |d| ranked with average ranks;
//   exact (method="exact") when n ≤ kWilcoxonExactMax and the |d| have no ties: p = min(1, 2·min(P(W ≤ R+), P(W ≥ R+)))
//   under the null distribution of W = R+ over the 2^n sign patterns (counted exactly in integers);
//   otherwise the normal approximation (method="asymptotic", correction=False): z = (R+ − n(n+1)/4)/σ,
//   σ² = n(n+1)(2n+1)/24 − Σ(t³ − t)/48 over tie groups t, p = 2·Φ(−|z|) = erfc(|z|/√2).
//   statistic = min(R+, R−) (SciPy's two-sided statistic). n = 0 (every difference zero): p and z NaN.
// SciPy ≥ 1.13 with method="auto" runs a permutation test instead for n ≤ 13 with ties or zeros; this follows the
// issue's rule (normal approximation whenever exactness is lost), i.e. scipy.stats.wilcoxon(d[d != 0],
// method="exact" or "asymptotic") as chosen above.
constexpr int kWilcoxonExactMax = 50;
struct WilcoxonResult {
    int n = 0;                 // non-zero differences
    int zeros = 0;             // dropped
    bool ties = false;         // tied |d| among the non-zero ones
    bool exact = false;
    double rPlus = 0.0, rMinus = 0.0;
    double statistic = 0.0;    // min(R+, R−)
    double z = 0.0;            // the normal approximation's z (NaN when exact or n = 0)
    double p = 0.0;            // two-sided
    // Matched-pairs rank-biserial correlation (Kerby 2014): (R+ − R−)/(R+ + R−) in [−1, 1]; positive when x tends
    // to exceed y. NaN for n = 0.
    double rankBiserial = 0.0;
};
WilcoxonResult wilcoxonSignedRank(const std::vector<double> &x, const std::vector<double> &y);

// Holm's step-down adjusted p-values (Holm 1979), in the input order: with the m non-NaN p sorted ascending
// (ties in input order), p~_(i) = min(1, max_{j ≤ i} (m − j + 1)·p_(j)) (1-based i, j). NaN entries (no test)
// stay NaN and do not count in m.
std::vector<double> holm(const std::vector<double> &p);

// ---- plausibility against a gold rationale (ERASER) ----
// `scores` [L] over all positions (NaN: not scored, e.g. special tokens); `gold` [L], 1 for rationale tokens.
// The prediction is the top-|gold ∩ scored| scored positions by score (ties by position; metrics.h's ordering).
struct Span {
    std::int64_t begin = 0, end = 0;   // half-open token positions [begin, end)
    bool operator==(const Span &o) const { return begin == o.begin && end == o.end; }
};
// Maximal runs of consecutive positions with mask 1.
std::vector<Span> spansOf(const std::vector<std::uint8_t> &mask);

struct Plausibility {
    double tokenPrecision = 0.0, tokenRecall = 0.0, tokenF1 = 0.0;   // the prediction vs gold, as sets of positions
    // ERASER's IOU F1 (partial_match_score): a predicted span is a match when its largest IOU with a gold span is
    // ≥ threshold; P = matches / predicted spans, R = matches / gold spans, F1 = 2PR/(P + R) (0 when P or R is 0).
    int predictedSpans = 0, goldSpans = 0, iouMatches = 0;
    double iouF1 = 0.0;
    double auprc = 0.0;            // average precision of the scores for gold (scikit-learn's average_precision_score)
    double precisionAtK = 0.0;     // |top-k ∩ gold| / k, k clamped to [1, scored]
    int k = 0;
    int goldTokens = 0;            // |gold ∩ scored|
};
constexpr double kIouThreshold = 0.5;   // ERASER's reported threshold
// `goldSpans`: the gold rationale as spans (from character spans, each kept separate); empty: spansOf(gold).
// NaN in every field when gold has no scored position.
Plausibility plausibility(const std::vector<double> &scores, const std::vector<std::uint8_t> &gold, int k,
                          const std::vector<Span> &goldSpans = {}, double iouThreshold = kIouThreshold);

// Average precision of `scores` for the binary `labels` (equal lengths, NaN scores left out), as scikit-learn:
// AP = Σ_k (R_k − R_{k−1})·P_k over the distinct score thresholds in descending order. NaN without a positive.
double averagePrecision(const std::vector<double> &scores, const std::vector<std::uint8_t> &labels);

} // namespace attn::stats
