#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Known answers for engine/include/attnscope/stats.h, computed with NumPy, SciPy and scikit-learn
(tools/requirements.txt pins them). Writes tests/fixtures/stats/known_answers.json; tests/tst_stats.cpp reads it.

    /work/venv/bin/python tools/make_stats_fixtures.py

The only code re-implemented here is the seeded generator (SplitMix64 and the unbiased bounded draw, as stats.h
specifies them), so that the bootstrap's resample means can be formed the same way; each resample's sum is a plain
left-to-right Python loop (the order the engine adds in) and the interval is numpy.percentile (method "linear").
Everything else comes from the libraries: numpy.mean/std(ddof=1)/median/percentile, scipy.stats.wilcoxon
(zeros dropped, method "exact" without ties for n <= 50, else "asymptotic" with correction=False),
scipy.stats.rankdata for the rank-biserial correlation, sklearn.metrics.average_precision_score.
"""
import json
import os

import numpy as np
import scipy
import scipy.stats
import sklearn
import sklearn.metrics

MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        threshold = (1 << 64) % n
        while True:
            w = self.next()
            if w >= threshold:
                return w % n


def bootstrap_interval(x, seed, resamples, level=0.95):
    rng = SplitMix64(seed)
    n = len(x)
    means = []
    for _ in range(resamples):
        s = 0.0
        for _ in range(n):
            s += x[rng.below(n)]
        means.append(s / n)
    means = np.array(means)
    return [float(np.percentile(means, 100 * (1 - level) / 2)), float(np.percentile(means, 100 * (1 + level) / 2))]


def wilcoxon_case(x, y):
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    d = x - y
    nz = d[d != 0]
    n = len(nz)
    ranks = scipy.stats.rankdata(np.abs(nz))
    ties = len(np.unique(np.abs(nz))) < n
    exact = n <= 50 and not ties
    res = scipy.stats.wilcoxon(nz, method="exact" if exact else "asymptotic", correction=False)
    if not exact:
        # The same numbers with the zeros left in, as zero_method="wilcox" drops them itself.
        with_zeros = scipy.stats.wilcoxon(d, zero_method="wilcox", method="asymptotic", correction=False)
        assert abs(with_zeros.pvalue - res.pvalue) <= 1e-15 * max(1.0, res.pvalue) or len(nz) == len(d), (with_zeros, res)
    r_plus = float(ranks[nz > 0].sum())
    r_minus = float(ranks[nz < 0].sum())
    case = {"x": x.tolist(), "y": y.tolist(), "n": n, "zeros": int(len(d) - n), "exact": bool(exact),
            "ties": bool(ties), "r_plus": r_plus, "r_minus": r_minus, "statistic": float(res.statistic),
            "p": float(res.pvalue), "rank_biserial": (r_plus - r_minus) / (r_plus + r_minus)}
    if not exact:
        z = (r_plus - n * (n + 1) / 4) / np.sqrt(n * (n + 1) * (2 * n + 1) / 24
                                                 - sum(t ** 3 - t for t in np.unique(np.abs(nz), return_counts=True)[1]) / 48)
        # SciPy reports z = -|z| for two-sided tests; the engine keeps the sign of R+ - mean.
        assert abs(abs(z) - abs(res.zstatistic)) < 1e-12, (z, res.zstatistic)
        case["z"] = float(z)
    return case


def holm_step_down(p):
    # Holm (1979) written as the step-down procedure: reject H_(1..i) while p_(i) <= alpha/(m-i+1); the adjusted
    # value of H_(i) is the smallest alpha at which it would be rejected.
    m = len(p)
    order = sorted(range(m), key=lambda i: (p[i], i))
    adjusted = [0.0] * m
    previous = 0.0
    for rank, i in enumerate(order):
        value = min(1.0, max(previous, (m - rank) * p[i]))
        adjusted[i] = value
        previous = value
    return adjusted


def main():
    rng = np.random.default_rng(20261201)
    out = {"generator": "tools/make_stats_fixtures.py",
           "versions": {"numpy": np.__version__, "scipy": scipy.__version__, "sklearn": sklearn.__version__}}

    # SplitMix64 outputs (seed 0: the reference implementation's first outputs) and derived seeds.
    g = SplitMix64(0)
    out["splitmix64_seed0"] = [str(g.next()) for _ in range(3)]
    derived = []
    for seed, k in [(42, 0), (42, 1), (42, 149), (7, 3), (2**63 + 5, 12)]:
        derived.append({"seed": str(seed), "k": str(k), "value": str(SplitMix64(seed ^ SplitMix64(k).next()).next())})
    out["derive_seed"] = derived

    samples = {
        "n1": [0.25],
        "n2": [1.0, -3.5],
        "n7": [0.1, 0.4, 0.35, 0.8, -0.2, 0.4, 0.05],
        "n97": rng.normal(0.3, 1.7, 97).tolist(),
        "n150_skewed": rng.exponential(0.2, 150).tolist(),
    }
    summaries = []
    for name, x in samples.items():
        a = np.asarray(x)
        summaries.append({"name": name, "x": x, "mean": float(np.mean(a)),
                          "sd": float(np.std(a, ddof=1)) if len(a) > 1 else None,
                          "median": float(np.median(a)),
                          "percentiles": {str(q): float(np.percentile(a, q)) for q in [0, 2.5, 33.3, 50, 97.5, 100]}})
    out["summaries"] = summaries

    boots = []
    for name, seed, resamples in [("n7", 42, 1000), ("n7", 43, 10000), ("n97", 2026, 10000), ("n1", 5, 100),
                                  ("n150_skewed", 9, 10000)]:
        x = samples[name]
        boots.append({"name": name, "x": x, "seed": seed, "resamples": resamples,
                      "interval": bootstrap_interval(x, seed, resamples)})
    out["bootstrap"] = boots

    wil = []
    # exact, no ties, no zeros
    wil.append(wilcoxon_case([1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30],
                             [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]))
    # exact after dropping a zero
    wil.append(wilcoxon_case([0.5, 1.25, -0.75, 2.0, 3.5, 0.0, -1.5], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]))
    # ties (n <= 13): normal approximation with tie correction
    wil.append(wilcoxon_case([1, 2, -2, 3, 3, -1, 4, 2, 5, 0, 6, -3], [0] * 12))
    # n = 50 without ties: exact
    d50 = rng.normal(0.15, 1.0, 50)
    wil.append(wilcoxon_case(d50.tolist(), [0.0] * 50))
    # n = 51 without ties: normal approximation
    d51 = rng.normal(0.15, 1.0, 51)
    wil.append(wilcoxon_case(d51.tolist(), [0.0] * 51))
    # n = 150 paired with zeros and ties (rounded differences)
    xa = np.round(rng.normal(0.4, 0.3, 150), 2)
    ya = np.round(rng.normal(0.35, 0.3, 150), 2)
    ya[:7] = xa[:7]
    wil.append(wilcoxon_case(xa.tolist(), ya.tolist()))
    # all differences of one sign (smallest exact p): n = 8
    wil.append(wilcoxon_case([3, 4, 5, 6, 7, 8, 9, 10], [0.5, 1.25, 2.1, 3.3, 3.0, 3.7, 3.05, 3.01]))
    out["wilcoxon"] = wil

    holms = []
    for p in [[0.01, 0.04, 0.03, 0.005], [0.2, 0.2, 0.01, 0.5, 0.03], rng.uniform(0, 0.1, 13).tolist(), [0.6]]:
        holms.append({"p": p, "adjusted": holm_step_down(p)})
    out["holm"] = holms

    aps = []
    for scores, labels in [([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]),
                           ([0.5, 0.5, 0.2, 0.9, 0.5, 0.1], [1, 0, 0, 1, 1, 0]),
                           (rng.uniform(0, 1, 31).tolist(), (rng.uniform(0, 1, 31) < 0.2).astype(int).tolist()),
                           ([0.3, 0.3, 0.3], [0, 1, 0])]:
        if sum(labels) == 0:
            labels[0] = 1
        aps.append({"scores": scores, "labels": labels,
                    "ap": float(sklearn.metrics.average_precision_score(labels, scores))})
    out["average_precision"] = aps

    path = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "stats", "known_answers.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print("wrote", os.path.normpath(path))


if __name__ == "__main__":
    main()
