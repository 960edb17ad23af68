// SPDX-License-Identifier: GPL-3.0-or-later
// The scoring functions and the RNN-era encoder–decoder step (variants.h), with the shared helpers of
// variants_common.h.
#include "variants_common.h"

#include <algorithm>

namespace attn {

namespace detail {

Status checkOperand(const MatrixD &m, const std::string &what, bool allowEmptyRows)
{
    if (m.rows < (allowEmptyRows ? 0 : 1) || m.cols < 1 || m.rows > kVariantMaxSide || m.cols > kVariantMaxSide)
        return Status::invalid(what + " is " + dims(m) + " (rows and columns 1 … 4096)");
    if (m.values.size() != static_cast<std::size_t>(m.rows * m.cols))
        return Status::invalid(what + " holds " + std::to_string(m.values.size()) + " values for " + dims(m));
    for (const double v : m.values)
        if (!std::isfinite(v)) return Status::invalid(what + " holds a NaN or infinity");
    return Status::ok();
}

MatrixD softmaxRows(const MatrixD &scores)
{
    MatrixD P(scores.rows, scores.cols);
    for (std::int64_t i = 0; i < scores.rows; ++i) {
        const double *s = scores.row(i);
        double m = -std::numeric_limits<double>::infinity();
        for (std::int64_t j = 0; j < scores.cols; ++j) m = std::max(m, s[j]);
        if (m == -std::numeric_limits<double>::infinity()) continue;   // no visible key: the row stays 0
        double sum = 0.0;
        for (std::int64_t j = 0; j < scores.cols; ++j) {
            const double e = s[j] == -std::numeric_limits<double>::infinity() ? 0.0 : std::exp(s[j] - m);
            P.at(i, j) = e;
            sum += e;
        }
        for (std::int64_t j = 0; j < scores.cols; ++j) P.at(i, j) /= sum;
    }
    return P;
}

MatrixD matmul(const MatrixD &A, const MatrixD &B)
{
    MatrixD C(A.rows, B.cols);
    for (std::int64_t i = 0; i < A.rows; ++i)
        for (std::int64_t k = 0; k < A.cols; ++k) {
            const double a = A.at(i, k);
            if (a == 0.0) continue;
            for (std::int64_t j = 0; j < B.cols; ++j) C.at(i, j) += a * B.at(k, j);
        }
    return C;
}

} // namespace detail

using detail::checkOperand;
using detail::dims;

MatrixD seededUniform(std::int64_t rows, std::int64_t cols, double bound, std::uint64_t seed)
{
    MatrixD m(rows, cols);
    detail::SeededStream s(seed);
    for (double &v : m.values) v = bound * (2.0 * s.uniform() - 1.0);
    return m;
}

MatrixD seededNormal(std::int64_t rows, std::int64_t cols, double stddev, std::uint64_t seed)
{
    MatrixD m(rows, cols);
    detail::SeededStream s(seed);
    for (double &v : m.values) v = stddev * s.normal();
    return m;
}

std::string scoreFunctionName(ScoreFunction f)
{
    switch (f) {
    case ScoreFunction::Dot: return "dot";
    case ScoreFunction::ScaledDot: return "scaled-dot";
    case ScoreFunction::General: return "general";
    case ScoreFunction::Additive: return "additive";
    }
    return "?";
}

std::optional<ScoreFunction> parseScoreFunction(const std::string &name)
{
    for (const ScoreFunction f : {ScoreFunction::Dot, ScoreFunction::ScaledDot, ScoreFunction::General,
                                  ScoreFunction::Additive})
        if (scoreFunctionName(f) == name) return f;
    return std::nullopt;
}

ScoreParams ScoreParams::random(ScoreFunction f, std::int64_t dq, std::int64_t dk, std::int64_t dAttn,
                                std::uint64_t seed)
{
    ScoreParams p;
    if (f == ScoreFunction::General) {
        p.W = seededUniform(dq, dk, std::sqrt(6.0 / double(dq + dk)), seed);
    } else if (f == ScoreFunction::Additive) {
        p.Wa = seededUniform(dAttn, dq + dk, std::sqrt(6.0 / double(dAttn + dq + dk)), seed);
        p.va = seededUniform(1, dAttn, std::sqrt(6.0 / double(dAttn + 1)), seed + 1).values;
    }
    return p;
}

namespace {

Status checkParams(ScoreFunction f, const ScoreParams &p, std::int64_t dq, std::int64_t dk)
{
    if (f == ScoreFunction::General) {
        if (Status s = checkOperand(p.W, "scoring: W"); !s) return s;
        if (p.W.rows != dq || p.W.cols != dk)
            return Status::invalid("scoring: W is " + dims(p.W) + "; general scoring needs [dq, dk] = [" +
                                   std::to_string(dq) + ", " + std::to_string(dk) + "]");
    } else if (f == ScoreFunction::Additive) {
        if (Status s = checkOperand(p.Wa, "scoring: Wa"); !s) return s;
        if (p.Wa.cols != dq + dk)
            return Status::invalid("scoring: Wa is " + dims(p.Wa) + "; additive scoring needs dq + dk = " +
                                   std::to_string(dq + dk) + " columns ([W_q | W_k])");
        if (static_cast<std::int64_t>(p.va.size()) != p.Wa.rows)
            return Status::invalid("scoring: va has " + std::to_string(p.va.size()) + " values; Wa has " +
                                   std::to_string(p.Wa.rows) + " rows (dAttn)");
        for (const double v : p.va)
            if (!std::isfinite(v)) return Status::invalid("scoring: va holds a NaN or infinity");
    }
    return Status::ok();
}

} // namespace

Result<ScoringTrace> scoreAttention(const MatrixD &Q, const MatrixD &K, const MatrixD &V, ScoreFunction f,
                                    const ScoreParams &params, const ScoringOptions &options)
{
    if (Status s = checkOperand(Q, "scoring: Q"); !s) return s;
    if (Status s = checkOperand(K, "scoring: K"); !s) return s;
    if (Status s = checkOperand(V, "scoring: V"); !s) return s;
    const std::int64_t Lq = Q.rows, Lk = K.rows, dq = Q.cols, dk = K.cols;
    if (V.rows != Lk)
        return Status::invalid("scoring: V has " + std::to_string(V.rows) + " rows but K has " + std::to_string(Lk) +
                               " (one value per key)");
    if (Lq * Lk > kVariantMaxCells)
        return Status::invalid("scoring: " + std::to_string(Lq) + " × " + std::to_string(Lk) +
                               " scores is over the limit of 2^22");
    if ((f == ScoreFunction::Dot || f == ScoreFunction::ScaledDot) && dq != dk)
        return Status::invalid("scoring: K has " + std::to_string(dk) + " columns but Q has " + std::to_string(dq) +
                               " (dot products need dq == dk)");
    if (Status s = checkParams(f, params, dq, dk); !s) return s;
    if (f == ScoreFunction::Additive && Lq * Lk * params.Wa.rows > kVariantMaxWork)
        return Status::invalid("scoring: additive scoring of " + std::to_string(Lq) + " × " + std::to_string(Lk) +
                               " pairs through " + std::to_string(params.Wa.rows) +
                               " hidden units is over the limit of 2^28 tanh evaluations");
    if (!std::isfinite(options.scale) || options.scale < 0.0)
        return Status::invalid("scoring: scale " + std::to_string(options.scale) + " (finite, ≥ 0; 0 = 1/√dk)");
    if (Status s = validateMask(options.mask, 1, 1, Lq, Lk); !s)
        return Status::invalid("scoring: mask: " + s.message());

    ScoringTrace t;
    t.function = f;
    t.raw = MatrixD(Lq, Lk);
    switch (f) {
    case ScoreFunction::Dot:
    case ScoreFunction::ScaledDot:
        for (std::int64_t i = 0; i < Lq; ++i)
            for (std::int64_t j = 0; j < Lk; ++j) {
                double s = 0.0;
                for (std::int64_t c = 0; c < dq; ++c) s += Q.at(i, c) * K.at(j, c);
                t.raw.at(i, j) = s;
            }
        if (f == ScoreFunction::ScaledDot) t.scale = options.scale > 0.0 ? options.scale : 1.0 / std::sqrt(double(dk));
        break;
    case ScoreFunction::General:
        t.qW = detail::matmul(Q, params.W);
        for (std::int64_t i = 0; i < Lq; ++i)
            for (std::int64_t j = 0; j < Lk; ++j) {
                double s = 0.0;
                for (std::int64_t c = 0; c < dk; ++c) s += t.qW.at(i, c) * K.at(j, c);
                t.raw.at(i, j) = s;
            }
        break;
    case ScoreFunction::Additive: {
        const std::int64_t dA = params.Wa.rows;
        t.projQ = MatrixD(Lq, dA);
        t.projK = MatrixD(Lk, dA);
        for (std::int64_t a = 0; a < dA; ++a) {
            for (std::int64_t i = 0; i < Lq; ++i) {
                double s = 0.0;
                for (std::int64_t c = 0; c < dq; ++c) s += params.Wa.at(a, c) * Q.at(i, c);
                t.projQ.at(i, a) = s;
            }
            for (std::int64_t j = 0; j < Lk; ++j) {
                double s = 0.0;
                for (std::int64_t c = 0; c < dk; ++c) s += params.Wa.at(a, dq + c) * K.at(j, c);
                t.projK.at(j, a) = s;
            }
        }
        const bool keepHidden = options.keepHidden && Lq * Lk * dA <= kVariantMaxHidden;
        if (keepHidden) t.hidden.resize(static_cast<std::size_t>(Lq * Lk * dA));
        for (std::int64_t i = 0; i < Lq; ++i)
            for (std::int64_t j = 0; j < Lk; ++j) {
                double s = 0.0;
                for (std::int64_t a = 0; a < dA; ++a) {
                    const double h = std::tanh(t.projQ.at(i, a) + t.projK.at(j, a));
                    if (keepHidden) t.hidden[static_cast<std::size_t>((i * Lk + j) * dA + a)] = h;
                    s += params.va[static_cast<std::size_t>(a)] * h;
                }
                t.raw.at(i, j) = s;
            }
        break;
    }
    }
    t.scores = MatrixD(Lq, Lk);
    for (std::int64_t i = 0; i < Lq; ++i)
        for (std::int64_t j = 0; j < Lk; ++j)
            t.scores.at(i, j) = t.raw.at(i, j) * t.scale + double(maskBias(options.mask, 0, 0, i, j, Lq, Lk));
    t.weights = detail::softmaxRows(t.scores);
    t.output = detail::matmul(t.weights, V);
    return t;
}

Result<EncoderDecoderStep> rnnAttentionStep(const std::vector<double> &decoderState, const MatrixD &encoderStates,
                                            ScoreFunction f, const ScoreParams &params, const ScoringOptions &options)
{
    MatrixD s(1, static_cast<std::int64_t>(decoderState.size()));
    s.values = decoderState;
    auto trace = scoreAttention(s, encoderStates, encoderStates, f, params, options);
    if (!trace) return Status::invalid("encoder-decoder step: " + trace.status().message());
    EncoderDecoderStep step;
    step.energies.assign(trace->scores.values.begin(), trace->scores.values.end());
    step.alignment.assign(trace->weights.values.begin(), trace->weights.values.end());
    step.context.assign(trace->output.values.begin(), trace->output.values.end());
    step.trace = std::move(*trace);
    return step;
}

} // namespace attn
