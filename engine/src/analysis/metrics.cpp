// SPDX-License-Identifier: GPL-3.0-or-later
// Metric primitives (metrics.h): distances, rank statistics, curves. float64 throughout; NaN, not 0, where a
// statistic is undefined (reference/faithfulness.md §1, pitfall 9).
#include <attnscope/metrics.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace attn {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

double totalVariation(const std::vector<double> &p, const std::vector<double> &q)
{
    if (p.size() != q.size()) return kNaN;
    double s = 0.0;
    for (std::size_t k = 0; k < p.size(); ++k) s += std::abs(p[k] - q[k]);
    return 0.5 * s;
}

double klDivergence(const std::vector<double> &p, const std::vector<double> &q)
{
    if (p.size() != q.size()) return kNaN;
    double s = 0.0;
    for (std::size_t k = 0; k < p.size(); ++k) {
        if (p[k] <= 0.0) continue;   // 0·log 0 = 0
        if (q[k] <= 0.0) return std::numeric_limits<double>::infinity();
        s += p[k] * std::log(p[k] / q[k]);
    }
    return s;
}

double jsDivergence(const std::vector<double> &p, const std::vector<double> &q)
{
    if (p.size() != q.size()) return kNaN;
    std::vector<double> m(p.size());
    for (std::size_t k = 0; k < p.size(); ++k) m[k] = 0.5 * (p[k] + q[k]);
    return 0.5 * klDivergence(p, m) + 0.5 * klDivergence(q, m);
}

std::vector<double> softmax(const std::vector<double> &logits)
{
    std::vector<double> p(logits.size());
    if (logits.empty()) return p;
    const double mx = *std::max_element(logits.begin(), logits.end());
    double sum = 0.0;
    for (std::size_t k = 0; k < logits.size(); ++k) sum += (p[k] = std::exp(logits[k] - mx));
    for (double &v : p) v /= sum;
    return p;
}

double kendallTauB(const std::vector<double> &x, const std::vector<double> &y)
{
    const std::size_t n = x.size();
    if (n != y.size() || n < 2) return kNaN;
    // O(n²) pair count: n is a token count (≤ a few thousand), and the definition stays visible.
    double concordant = 0.0, discordant = 0.0, tiesXOnly = 0.0, tiesYOnly = 0.0, tiesBoth = 0.0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) {
            const double dx = x[i] - x[j], dy = y[i] - y[j];
            if (dx == 0.0 && dy == 0.0) tiesBoth += 1.0;
            else if (dx == 0.0) tiesXOnly += 1.0;
            else if (dy == 0.0) tiesYOnly += 1.0;
            else if ((dx > 0.0) == (dy > 0.0)) concordant += 1.0;
            else discordant += 1.0;
        }
    // n0 − n1 = pairs not tied in x; n0 − n2 = pairs not tied in y.
    const double notTiedX = concordant + discordant + tiesYOnly;
    const double notTiedY = concordant + discordant + tiesXOnly;
    if (notTiedX == 0.0 || notTiedY == 0.0) return kNaN;
    return (concordant - discordant) / std::sqrt(notTiedX * notTiedY);
}

std::vector<double> averageRanks(const std::vector<double> &x)
{
    const std::size_t n = x.size();
    std::vector<std::size_t> idx(n);
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
    std::vector<double> r(n);
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i;
        while (j + 1 < n && x[idx[j + 1]] == x[idx[i]]) ++j;
        const double rank = 0.5 * static_cast<double>(i + j) + 1.0;   // ranks i+1..j+1 averaged
        for (std::size_t k = i; k <= j; ++k) r[idx[k]] = rank;
        i = j + 1;
    }
    return r;
}

double pearson(const std::vector<double> &x, const std::vector<double> &y)
{
    const std::size_t n = x.size();
    if (n != y.size() || n < 2) return kNaN;
    double mx = 0.0, my = 0.0;
    for (std::size_t i = 0; i < n; ++i) mx += x[i], my += y[i];
    mx /= static_cast<double>(n);
    my /= static_cast<double>(n);
    double sxy = 0.0, sxx = 0.0, syy = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double a = x[i] - mx, b = y[i] - my;
        sxy += a * b, sxx += a * a, syy += b * b;
    }
    if (sxx == 0.0 || syy == 0.0) return kNaN;
    return sxy / std::sqrt(sxx * syy);
}

double spearman(const std::vector<double> &x, const std::vector<double> &y)
{
    if (x.size() != y.size() || x.size() < 2) return kNaN;
    return pearson(averageRanks(x), averageRanks(y));
}

std::vector<int> descendingOrder(const std::vector<double> &scores)
{
    std::vector<int> idx(scores.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
        const double sa = scores[static_cast<std::size_t>(a)], sb = scores[static_cast<std::size_t>(b)];
        if (std::isnan(sa) || std::isnan(sb)) return !std::isnan(sa) && std::isnan(sb);
        return sa > sb;
    });
    return idx;
}

double topKOverlap(const std::vector<double> &x, const std::vector<double> &y, int k)
{
    const int n = static_cast<int>(x.size());
    if (n == 0 || x.size() != y.size()) return kNaN;
    k = std::clamp(k, 1, n);
    std::vector<int> ox = descendingOrder(x), oy = descendingOrder(y);
    std::vector<std::uint8_t> inX(static_cast<std::size_t>(n), 0);
    for (int i = 0; i < k; ++i) inX[static_cast<std::size_t>(ox[static_cast<std::size_t>(i)])] = 1;
    int both = 0;
    for (int i = 0; i < k; ++i) both += inX[static_cast<std::size_t>(oy[static_cast<std::size_t>(i)])];
    return static_cast<double>(both) / static_cast<double>(k);
}

double normalizedAuc(const std::vector<double> &v)
{
    if (v.size() < 2) return kNaN;
    const double sum = std::accumulate(v.begin(), v.end(), 0.0);
    return (sum - 0.5 * v.front() - 0.5 * v.back()) / static_cast<double>(v.size() - 1);
}

int eraserK(double fraction, int tokens)
{
    if (tokens <= 0) return 0;
    // A small tolerance so that 0.1·10 = 1.0000000000000002 is not rounded up to 2.
    const int k = static_cast<int>(std::ceil(fraction * tokens - 1e-9));
    return std::clamp(k, 1, tokens);
}

Curves deletionInsertionCurves(const SetScoreFn &score, const std::vector<int> &order, int step)
{
    const std::size_t n = order.size();
    step = std::max(step, 1);
    Curves c;
    std::vector<std::uint8_t> kept(n, 1), added(n, 0);
    c.deletion.push_back(score(kept));
    c.insertion.push_back(score(added));
    for (std::size_t done = 0; done < n;) {
        const std::size_t next = std::min(n, done + static_cast<std::size_t>(step));
        for (std::size_t i = done; i < next; ++i) {
            kept[static_cast<std::size_t>(order[i])] = 0;
            added[static_cast<std::size_t>(order[i])] = 1;
        }
        c.deletion.push_back(score(kept));
        c.insertion.push_back(score(added));
        done = next;
    }
    c.aucDeletion = normalizedAuc(c.deletion);
    c.aucInsertion = normalizedAuc(c.insertion);
    return c;
}

EraserScores eraserScores(const SetScoreFn &score, const std::vector<int> &order, const std::vector<double> &bins)
{
    const int n = static_cast<int>(order.size());
    EraserScores e;
    e.bins = bins;
    const double full = score(std::vector<std::uint8_t>(static_cast<std::size_t>(n), 1));
    for (double b : bins) {
        const int k = eraserK(b, n);
        std::vector<std::uint8_t> without(static_cast<std::size_t>(n), 1), only(static_cast<std::size_t>(n), 0);
        for (int i = 0; i < k; ++i) {
            without[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = 0;
            only[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = 1;
        }
        e.k.push_back(k);
        e.comprehensiveness.push_back(full - score(without));
        e.sufficiency.push_back(full - score(only));
    }
    const double nb = bins.empty() ? kNaN : static_cast<double>(bins.size());
    e.aopcComprehensiveness = std::accumulate(e.comprehensiveness.begin(), e.comprehensiveness.end(), 0.0) / nb;
    e.aopcSufficiency = std::accumulate(e.sufficiency.begin(), e.sufficiency.end(), 0.0) / nb;
    return e;
}

double faithfulnessCorrelation(const std::vector<double> &g, const std::vector<std::vector<int>> &subsets,
                               const std::vector<double> &drops)
{
    if (subsets.size() != drops.size()) return kNaN;
    std::vector<double> sums;
    sums.reserve(subsets.size());
    for (const auto &s : subsets) {
        double a = 0.0;
        for (int i : s) a += g[static_cast<std::size_t>(i)];
        sums.push_back(a);
    }
    return pearson(sums, drops);
}

int tokensToFlip(const DecisionFn &decide, const std::vector<int> &order)
{
    std::vector<std::uint8_t> kept(order.size(), 1);
    const std::int64_t original = decide(kept);
    for (std::size_t k = 0; k < order.size(); ++k) {
        kept[static_cast<std::size_t>(order[k])] = 0;
        if (decide(kept) != original) return static_cast<int>(k + 1);
    }
    return -1;
}

std::vector<double> featureAblation(const VectorFn &f, const std::vector<double> &x, const std::vector<double> &baseline)
{
    const double fx = f(x);
    std::vector<double> a(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        std::vector<double> y = x;
        y[i] = baseline[i];
        a[i] = fx - f(y);
    }
    return a;
}

std::vector<double> occlusion(const VectorFn &f, const std::vector<double> &x, const std::vector<double> &baseline,
                              int window, int stride)
{
    const int n = static_cast<int>(x.size());
    window = std::clamp(window, 1, std::max(n, 1));
    stride = std::max(stride, 1);
    const double fx = f(x);
    std::vector<double> sum(x.size(), 0.0), count(x.size(), 0.0);
    for (int start = 0; start + window <= n; start += stride) {
        std::vector<double> y = x;
        for (int i = start; i < start + window; ++i) y[static_cast<std::size_t>(i)] = baseline[static_cast<std::size_t>(i)];
        const double d = fx - f(y);
        for (int i = start; i < start + window; ++i) sum[static_cast<std::size_t>(i)] += d, count[static_cast<std::size_t>(i)] += 1.0;
    }
    for (std::size_t i = 0; i < x.size(); ++i) sum[i] = count[i] > 0 ? sum[i] / count[i] : 0.0;
    return sum;
}

std::vector<double> shapleyValues(const VectorFn &f, const std::vector<double> &x, const std::vector<double> &baseline)
{
    const std::size_t n = x.size();
    if (n > 16) return {};
    // φ_i = Σ_{S ∌ i} |S|!(n−|S|−1)!/n! · (f(S ∪ i) − f(S)), with f(S) = f(x on S, baseline elsewhere).
    std::vector<double> value(std::size_t{1} << n);
    for (std::size_t mask = 0; mask < value.size(); ++mask) {
        std::vector<double> y = baseline;
        for (std::size_t i = 0; i < n; ++i)
            if (mask >> i & 1u) y[i] = x[i];
        value[mask] = f(y);
    }
    std::vector<double> fact(n + 1, 1.0);
    for (std::size_t k = 1; k <= n; ++k) fact[k] = fact[k - 1] * static_cast<double>(k);
    std::vector<double> phi(n, 0.0);
    for (std::size_t mask = 0; mask < value.size(); ++mask) {
        const auto size = static_cast<std::size_t>(__builtin_popcountll(mask));
        for (std::size_t i = 0; i < n; ++i)
            if (!(mask >> i & 1u))
                phi[i] += fact[size] * fact[n - size - 1] / fact[n] * (value[mask | (std::size_t{1} << i)] - value[mask]);
    }
    return phi;
}

double median(std::vector<double> v)
{
    if (v.empty()) return kNaN;
    const std::size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    const double hi = v[mid];
    if (v.size() % 2) return hi;
    const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
    return 0.5 * (lo + hi);
}

} // namespace attn
