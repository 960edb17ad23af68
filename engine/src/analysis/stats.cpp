// SPDX-License-Identifier: GPL-3.0-or-later
// Dataset-level statistics (stats.h). Known answers: tests/tst_stats.cpp (hand-computed cases and
// tests/fixtures/stats/known_answers.json from tools/make_stats_fixtures.py, NumPy/SciPy/scikit-learn).
#include <attnscope/stats.h>

#include <attnscope/metrics.h>

#include "rng.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace attn::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::uint64_t uniformBelow(detail::SplitMix64 &rng, std::uint64_t n)
{
    const std::uint64_t threshold = (0 - n) % n;   // 2^64 mod n: the words below it would bias the low residues
    for (;;) {
        const std::uint64_t w = rng.next();
        if (w >= threshold) return w % n;
    }
}

// Average ranks 1..n of |d| for the non-zero d, and the tie groups' sizes.
void signedRanks(const std::vector<double> &d, std::vector<double> &ranks, std::vector<int> &tieGroups)
{
    const std::size_t n = d.size();
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return std::abs(d[a]) < std::abs(d[b]); });
    ranks.assign(n, 0.0);
    tieGroups.clear();
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i + 1;
        while (j < n && std::abs(d[order[j]]) == std::abs(d[order[i]])) ++j;
        const double rank = 0.5 * static_cast<double>(i + 1 + j);   // mean of ranks i+1 .. j
        for (std::size_t k = i; k < j; ++k) ranks[order[k]] = rank;
        tieGroups.push_back(static_cast<int>(j - i));
        i = j;
    }
}

// Number of sign patterns of ranks 1..n with rank sum w, for w = 0 .. n(n+1)/2 (exact in 64 bits for n ≤ 63).
std::vector<std::uint64_t> signedRankCounts(int n)
{
    std::vector<std::uint64_t> c(1, 1);
    for (int k = 1; k <= n; ++k) {
        std::vector<std::uint64_t> next(c.size() + static_cast<std::size_t>(k), 0);
        for (std::size_t w = 0; w < c.size(); ++w) {
            next[w] += c[w];
            next[w + static_cast<std::size_t>(k)] += c[w];
        }
        c = std::move(next);
    }
    return c;
}

} // namespace

double mean(const std::vector<double> &x)
{
    if (x.empty()) return kNaN;
    double s = 0.0;
    for (double v : x) s += v;
    return s / static_cast<double>(x.size());
}

double standardDeviation(const std::vector<double> &x)
{
    if (x.size() < 2) return kNaN;
    const double m = mean(x);
    double ss = 0.0;
    for (double v : x) ss += (v - m) * (v - m);
    return std::sqrt(ss / static_cast<double>(x.size() - 1));
}

double percentile(std::vector<double> x, double q)
{
    if (x.empty()) return kNaN;
    std::sort(x.begin(), x.end());
    const double h = static_cast<double>(x.size() - 1) * q / 100.0;
    const auto lo = static_cast<std::size_t>(std::floor(h));
    if (lo + 1 >= x.size()) return x.back();
    const double t = h - static_cast<double>(lo), a = x[lo], b = x[lo + 1];
    // NumPy's _lerp: from the nearer end, so the result stays within [a, b].
    return t >= 0.5 ? b - (b - a) * (1.0 - t) : a + (b - a) * t;
}

std::uint64_t deriveSeed(std::uint64_t seed, std::uint64_t k)
{
    return detail::SplitMix64(seed ^ detail::SplitMix64(k).next()).next();
}

std::uint64_t nameHash(const char *text, std::size_t size)
{
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (std::size_t i = 0; i < size; ++i) {
        h ^= static_cast<unsigned char>(text[i]);
        h *= 0x100000001b3ull;
    }
    return h;
}

Interval bootstrapMeanInterval(const std::vector<double> &x, std::uint64_t seed, int resamples, double level)
{
    if (x.empty() || resamples < 1) return {kNaN, kNaN};
    const std::uint64_t n = x.size();
    detail::SplitMix64 rng(seed);
    std::vector<double> means(static_cast<std::size_t>(resamples));
    for (double &m : means) {
        double s = 0.0;
        for (std::uint64_t i = 0; i < n; ++i) s += x[uniformBelow(rng, n)];
        m = s / static_cast<double>(n);
    }
    return {percentile(means, 100.0 * (1.0 - level) / 2.0), percentile(means, 100.0 * (1.0 + level) / 2.0)};
}

WilcoxonResult wilcoxonSignedRank(const std::vector<double> &x, const std::vector<double> &y)
{
    WilcoxonResult r;
    std::vector<double> d;
    for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
        const double v = x[i] - y[i];
        if (v == 0.0) ++r.zeros;
        else d.push_back(v);
    }
    r.n = static_cast<int>(d.size());
    if (r.n == 0) {
        r.statistic = 0.0;
        r.z = r.p = r.rankBiserial = kNaN;
        return r;
    }
    std::vector<double> ranks;
    std::vector<int> ties;
    signedRanks(d, ranks, ties);
    for (std::size_t i = 0; i < d.size(); ++i) (d[i] > 0 ? r.rPlus : r.rMinus) += ranks[i];
    r.statistic = std::min(r.rPlus, r.rMinus);
    r.ties = std::any_of(ties.begin(), ties.end(), [](int t) { return t > 1; });
    r.rankBiserial = (r.rPlus - r.rMinus) / (r.rPlus + r.rMinus);
    const double n = r.n;
    if (r.n <= kWilcoxonExactMax && !r.ties) {
        r.exact = true;
        r.z = kNaN;
        const std::vector<std::uint64_t> counts = signedRankCounts(r.n);
        const auto w = static_cast<std::size_t>(std::llround(r.rPlus));
        std::uint64_t below = 0, above = 0;   // patterns with W ≤ R+ and with W ≥ R+
        for (std::size_t k = 0; k < counts.size(); ++k) {
            if (k <= w) below += counts[k];
            if (k >= w) above += counts[k];
        }
        const double total = std::ldexp(1.0, r.n);
        r.p = std::min(1.0, 2.0 * static_cast<double>(std::min(below, above)) / total);
        return r;
    }
    double tieSum = 0.0;
    for (int t : ties) tieSum += static_cast<double>(t) * t * t - t;
    const double sigma = std::sqrt((n * (n + 1.0) * (2.0 * n + 1.0) - tieSum / 2.0) / 24.0);
    r.z = (r.rPlus - n * (n + 1.0) / 4.0) / sigma;
    r.p = std::min(1.0, std::erfc(std::abs(r.z) / std::sqrt(2.0)));
    return r;
}

std::vector<double> holm(const std::vector<double> &p)
{
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < p.size(); ++i)
        if (!std::isnan(p[i])) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
    std::vector<double> out(p.size(), kNaN);
    const double m = static_cast<double>(order.size());
    double running = 0.0;
    for (std::size_t j = 0; j < order.size(); ++j) {
        running = std::max(running, std::min(1.0, (m - static_cast<double>(j)) * p[order[j]]));
        out[order[j]] = running;
    }
    return out;
}

std::vector<Span> spansOf(const std::vector<std::uint8_t> &mask)
{
    std::vector<Span> spans;
    for (std::size_t i = 0; i < mask.size();) {
        if (!mask[i]) { ++i; continue; }
        std::size_t j = i;
        while (j < mask.size() && mask[j]) ++j;
        spans.push_back({static_cast<std::int64_t>(i), static_cast<std::int64_t>(j)});
        i = j;
    }
    return spans;
}

double averagePrecision(const std::vector<double> &scores, const std::vector<std::uint8_t> &labels)
{
    std::vector<std::size_t> idx;
    int positives = 0;
    for (std::size_t i = 0; i < scores.size() && i < labels.size(); ++i) {
        if (std::isnan(scores[i])) continue;
        idx.push_back(i);
        positives += labels[i] ? 1 : 0;
    }
    if (positives == 0) return kNaN;
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
    double ap = 0.0, previousRecall = 0.0;
    int tp = 0, seen = 0;
    for (std::size_t i = 0; i < idx.size(); ++i) {
        tp += labels[idx[i]] ? 1 : 0;
        ++seen;
        // One threshold per distinct score: a tie group enters the ranking at once.
        if (i + 1 < idx.size() && scores[idx[i + 1]] == scores[idx[i]]) continue;
        const double recall = static_cast<double>(tp) / positives;
        ap += (recall - previousRecall) * (static_cast<double>(tp) / seen);
        previousRecall = recall;
    }
    return ap;
}

Plausibility plausibility(const std::vector<double> &scores, const std::vector<std::uint8_t> &gold, int k,
                          const std::vector<Span> &goldSpansGiven, double iouThreshold)
{
    Plausibility r;
    const std::size_t L = scores.size();
    int scored = 0;
    for (std::size_t i = 0; i < L; ++i) {
        if (std::isnan(scores[i])) continue;
        ++scored;
        if (i < gold.size() && gold[i]) ++r.goldTokens;
    }
    if (r.goldTokens == 0) {
        r.tokenPrecision = r.tokenRecall = r.tokenF1 = r.iouF1 = r.auprc = r.precisionAtK = kNaN;
        return r;
    }
    const std::vector<int> order = descendingOrder(scores);   // NaN last
    const auto isGold = [&](int i) { return static_cast<std::size_t>(i) < gold.size() && gold[static_cast<std::size_t>(i)]; };
    std::vector<std::uint8_t> predicted(L, 0);
    int hits = 0;
    for (int i = 0; i < r.goldTokens; ++i) {
        predicted[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = 1;
        hits += isGold(order[static_cast<std::size_t>(i)]);
    }
    r.tokenPrecision = static_cast<double>(hits) / r.goldTokens;
    r.tokenRecall = static_cast<double>(hits) / r.goldTokens;
    r.tokenF1 = hits ? 2 * r.tokenPrecision * r.tokenRecall / (r.tokenPrecision + r.tokenRecall) : 0.0;

    std::vector<std::uint8_t> goldMask(L, 0);
    for (std::size_t i = 0; i < L && i < gold.size(); ++i) goldMask[i] = gold[i] && !std::isnan(scores[i]);
    const std::vector<Span> goldSpans = goldSpansGiven.empty() ? spansOf(goldMask) : goldSpansGiven;
    const std::vector<Span> predSpans = spansOf(predicted);
    r.predictedSpans = static_cast<int>(predSpans.size());
    r.goldSpans = static_cast<int>(goldSpans.size());
    for (const Span &p : predSpans) {
        double best = 0.0;
        for (const Span &g : goldSpans) {
            const double inter = static_cast<double>(std::max<std::int64_t>(0, std::min(p.end, g.end) - std::max(p.begin, g.begin)));
            const double uni = static_cast<double>(p.end - p.begin + g.end - g.begin) - inter;
            if (uni > 0) best = std::max(best, inter / uni);
        }
        r.iouMatches += best >= iouThreshold ? 1 : 0;
    }
    const double P = r.predictedSpans ? static_cast<double>(r.iouMatches) / r.predictedSpans : 0.0;
    const double R = r.goldSpans ? static_cast<double>(r.iouMatches) / r.goldSpans : 0.0;
    r.iouF1 = P > 0 && R > 0 ? 2 * P * R / (P + R) : 0.0;

    std::vector<std::uint8_t> labels(L, 0);
    for (std::size_t i = 0; i < L && i < gold.size(); ++i) labels[i] = gold[i];
    r.auprc = averagePrecision(scores, labels);

    r.k = std::clamp(k, 1, std::max(scored, 1));
    int hitsK = 0;
    for (int i = 0; i < r.k; ++i) hitsK += isGold(order[static_cast<std::size_t>(i)]);
    r.precisionAtK = static_cast<double>(hitsK) / r.k;
    return r;
}

} // namespace attn::stats
