// SPDX-License-Identifier: GPL-3.0-or-later
// Approximate attention beside exact (approximate.h): sparse patterns through the same row softmax as exact (so a
// pattern that covers every key gives a difference of exactly 0), kernel forms evaluated in linear time with their
// implied weights formed separately for the map.
#include "variants_common.h"

#include <attnscope/approximate.h>

#include <algorithm>

namespace attn {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

bool causallyVisible(const ApproxSpec &s, std::int64_t ip, std::int64_t j) { return !s.causal || j <= ip; }

// Whether the sparse pattern computes score (i, j); ip = i + (Lk − Lq).
bool patternAllows(const ApproxSpec &s, std::int64_t ip, std::int64_t j)
{
    if (!causallyVisible(s, ip, j)) return false;
    const std::int64_t diff = ip - j, dist = diff < 0 ? -diff : diff;
    switch (s.kind) {
    case ApproxKind::LocalWindow: return dist <= s.window;
    case ApproxKind::BlockLocal: return ip >= 0 && ip / s.block == j / s.block;
    case ApproxKind::Strided: return dist < s.stride || diff % s.stride == 0;
    case ApproxKind::Dilated: return dist <= s.window * s.dilation && diff % s.dilation == 0;
    case ApproxKind::LinearElu:
    case ApproxKind::RandomFeatures: break;
    }
    return true;
}

// Feature maps of the kernel forms: rows of Φ(Q) [Lq, r] and Φ(K) [Lk, r].
struct Features {
    MatrixD q, k;
};

Features eluFeatures(const MatrixD &Q, const MatrixD &K)
{
    const auto phi = [](const MatrixD &X) {
        MatrixD F(X.rows, X.cols);
        for (std::size_t e = 0; e < X.values.size(); ++e) {
            const double x = X.values[e];
            F.values[e] = x > 0.0 ? x + 1.0 : std::exp(x);   // elu(x) + 1 > 0
        }
        return F;
    };
    return {phi(Q), phi(K)};
}

// Positive random features. The factors exp(−c) taken out for range cancel: one per query row between the
// numerator and the denominator of that row, one for all keys between every numerator and denominator.
Features randomFeatures(const MatrixD &Q, const MatrixD &K, double scale, std::int64_t m, std::uint64_t seed)
{
    const MatrixD omega = seededNormal(m, Q.cols, 1.0, seed);   // [m, d]
    const double root = std::sqrt(scale), norm = 1.0 / std::sqrt(double(m));
    const auto exponents = [&](const MatrixD &X) {
        MatrixD A(X.rows, m);
        for (std::int64_t i = 0; i < X.rows; ++i) {
            double sq = 0.0;
            for (std::int64_t c = 0; c < X.cols; ++c) sq += (X.at(i, c) * root) * (X.at(i, c) * root);
            for (std::int64_t r = 0; r < m; ++r) {
                double dot = 0.0;
                for (std::int64_t c = 0; c < X.cols; ++c) dot += omega.at(r, c) * (X.at(i, c) * root);
                A.at(i, r) = dot - sq / 2.0;
            }
        }
        return A;
    };
    Features f{exponents(Q), exponents(K)};
    for (std::int64_t i = 0; i < f.q.rows; ++i) {
        const double c = *std::max_element(f.q.row(i), f.q.row(i) + m);
        for (std::int64_t r = 0; r < m; ++r) f.q.at(i, r) = std::exp(f.q.at(i, r) - c) * norm;
    }
    const double c = *std::max_element(f.k.values.begin(), f.k.values.end());
    for (double &v : f.k.values) v = std::exp(v - c) * norm;
    return f;
}

// The linear-time evaluation: running S = Σ φ(k_j) v_jᵀ and z = Σ φ(k_j) over the visible keys (all of them, or
// the prefix j ≤ i' with causal), then Y_i = φ(q_i)ᵀ S / φ(q_i)ᵀ z. Returns false if a denominator underflowed.
bool linearEvaluation(const Features &f, const MatrixD &V, bool causal, MatrixD &Y)
{
    const std::int64_t Lq = f.q.rows, Lk = f.k.rows, r = f.q.cols, dv = V.cols;
    MatrixD S(r, dv);
    std::vector<double> z(static_cast<std::size_t>(r), 0.0);
    std::int64_t added = 0;
    const auto addKey = [&](std::int64_t j) {
        for (std::int64_t a = 0; a < r; ++a) {
            const double phi = f.k.at(j, a);
            z[static_cast<std::size_t>(a)] += phi;
            for (std::int64_t c = 0; c < dv; ++c) S.at(a, c) += phi * V.at(j, c);
        }
    };
    if (!causal)
        for (; added < Lk; ++added) addKey(added);
    Y = MatrixD(Lq, dv);
    for (std::int64_t i = 0; i < Lq; ++i) {
        const std::int64_t ip = i + (Lk - Lq);
        if (causal)
            for (; added <= ip && added < Lk; ++added) addKey(added);
        if (causal && ip < 0) continue;   // no visible key
        double den = 0.0;
        for (std::int64_t a = 0; a < r; ++a) den += f.q.at(i, a) * z[static_cast<std::size_t>(a)];
        if (!(den > 0.0) || !std::isfinite(den)) return false;
        for (std::int64_t c = 0; c < dv; ++c) {
            double num = 0.0;
            for (std::int64_t a = 0; a < r; ++a) num += f.q.at(i, a) * S.at(a, c);
            Y.at(i, c) = num / den;
        }
    }
    return true;
}

MatrixD impliedWeights(const Features &f, bool causal)
{
    const std::int64_t Lq = f.q.rows, Lk = f.k.rows, r = f.q.cols;
    MatrixD A(Lq, Lk);
    for (std::int64_t i = 0; i < Lq; ++i) {
        const std::int64_t ip = i + (Lk - Lq);
        double sum = 0.0;
        for (std::int64_t j = 0; j < Lk; ++j) {
            if (causal && j > ip) continue;
            double s = 0.0;
            for (std::int64_t a = 0; a < r; ++a) s += f.q.at(i, a) * f.k.at(j, a);
            A.at(i, j) = s;
            sum += s;
        }
        if (sum > 0.0)
            for (std::int64_t j = 0; j < Lk; ++j) A.at(i, j) /= sum;
    }
    return A;
}

} // namespace

Result<ApproxResult> approximateAttention(const MatrixD &Q, const MatrixD &K, const MatrixD &V, const ApproxSpec &spec)
{
    const std::string what = "approximation " + approxKindName(spec.kind) + ": ";
    if (Status s = detail::checkApproxSpec(spec); !s) return s;
    if (Status s = detail::checkOperand(Q, what + "Q"); !s) return s;
    if (Status s = detail::checkOperand(K, what + "K"); !s) return s;
    if (Status s = detail::checkOperand(V, what + "V"); !s) return s;
    const std::int64_t Lq = Q.rows, Lk = K.rows, d = Q.cols, dv = V.cols;
    if (K.cols != d)
        return Status::invalid(what + "K has " + std::to_string(K.cols) + " columns but Q has " + std::to_string(d));
    if (V.rows != Lk)
        return Status::invalid(what + "V has " + std::to_string(V.rows) + " rows but K has " + std::to_string(Lk));
    if (Lq * Lk > kVariantMaxCells)
        return Status::invalid(what + std::to_string(Lq) + " × " + std::to_string(Lk) +
                               " scores is over the limit of 2^22");
    if (spec.kind == ApproxKind::RandomFeatures && std::max(Lq + Lk, d) * spec.features > kVariantMaxHidden)
        return Status::invalid(what + std::to_string(spec.features) + " features for " + std::to_string(Lq + Lk) +
                               " rows of width " + std::to_string(d) + " is over the limit of 2^24 feature values");

    const double scale = spec.scale > 0.0 ? spec.scale : 1.0 / std::sqrt(double(d));
    const bool sparse = spec.kind != ApproxKind::LinearElu && spec.kind != ApproxKind::RandomFeatures;
    ApproxResult res;
    res.spec = spec;
    MatrixD exactScores(Lq, Lk), approxScores(Lq, Lk, kNegInf);
    if (sparse) res.pattern.assign(static_cast<std::size_t>(Lq * Lk), 0);
    std::int64_t visible = 0;
    for (std::int64_t i = 0; i < Lq; ++i) {
        const std::int64_t ip = i + (Lk - Lq);
        for (std::int64_t j = 0; j < Lk; ++j) {
            if (!causallyVisible(spec, ip, j)) {
                exactScores.at(i, j) = kNegInf;
                continue;
            }
            ++visible;
            double s = 0.0;
            for (std::int64_t c = 0; c < d; ++c) s += Q.at(i, c) * K.at(j, c);
            exactScores.at(i, j) = s * scale;
            if (sparse && patternAllows(spec, ip, j)) {
                approxScores.at(i, j) = exactScores.at(i, j);
                res.pattern[static_cast<std::size_t>(i * Lk + j)] = 1;
                ++res.computedScores;
            }
        }
    }
    res.exactWeights = detail::softmaxRows(exactScores);
    res.exactOutput = detail::matmul(res.exactWeights, V);
    if (sparse) {
        res.approxWeights = detail::softmaxRows(approxScores);
        res.approxOutput = detail::matmul(res.approxWeights, V);
        res.approxCost = detail::patternCost(double(res.computedScores), d, dv);
    } else {
        const Features f = spec.kind == ApproxKind::LinearElu
                               ? eluFeatures(Q, K)
                               : randomFeatures(Q, K, scale, spec.features, spec.seed);
        if (!linearEvaluation(f, V, spec.causal, res.approxOutput))
            return Status::invalid(what + "a normaliser φ(q)ᵀz underflowed to 0 (scores too large for the feature "
                                          "map; lower the scale)");
        res.approxWeights = impliedWeights(f, spec.causal);
        res.approxCost = detail::kernelCost(spec, Lq, Lk, d, dv);
    }
    res.exactCost = detail::patternCost(double(visible), d, dv);
    res.difference = MatrixD(Lq, Lk);
    for (std::size_t e = 0; e < res.difference.values.size(); ++e)
        res.difference.values[e] = res.approxWeights.values[e] - res.exactWeights.values[e];
    res.maxAbsDeltaP = detail::maxAbsDifference(res.approxWeights, res.exactWeights);
    res.maxAbsDeltaY = detail::maxAbsDifference(res.approxOutput, res.exactOutput);
    for (std::int64_t i = 0; i < Lq; ++i) {
        double tvd = 0.0;
        for (std::int64_t j = 0; j < Lk; ++j) tvd += std::abs(res.difference.at(i, j));
        res.maxRowTvd = std::max(res.maxRowTvd, tvd / 2.0);
    }
    return res;
}

} // namespace attn
