// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Attention variants for teaching (docs/variants.md): the scoring functions before and around the Transformer's,
// the RNN-era encoder–decoder attention step, and attention dropout. Everything is fp64 and keeps every
// intermediate stage, so a Pipeline view can show the real numbers; sizes are teaching sizes (limits below).
// Approximate attention (window, block, strided, dilated, linear, random features) is in approximate.h.
//
// Shapes (row-major MatrixD):
//   Q [Lq, dq]   K [Lk, dk]   V [Lk, dv]        one head, no batch
//   Dot        s_ij = q_i · k_j                                  (dq == dk)
//   ScaledDot  s_ij = (q_i · k_j) · scale, scale = 1/√dk         (dq == dk; the Transformer's)
//   General    s_ij = q_iᵀ W k_j,  W [dq, dk]                    (Luong et al. 2015, "general")
//   Additive   s_ij = vaᵀ tanh(Wa [q_i; k_j]) = vaᵀ tanh(W_q q_i + W_k k_j)
//              Wa [dAttn, dq + dk] = [W_q | W_k], va [dAttn]     (Bahdanau et al. 2015; no biases)
//   then s_ij += maskBias (mask.h with B = H = 1; −inf forbids), P = softmax over each row (a row with no
//   visible key is all 0, never NaN), Y = P V.
// Masks are applied after scoring and never rescale anything; only ScaledDot scales.

#include <attnscope/mask.h>
#include <attnscope/status.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attn {

// A dense fp64 matrix, row-major [rows, cols].
struct MatrixD {
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    std::vector<double> values;   // rows · cols

    MatrixD() = default;
    MatrixD(std::int64_t r, std::int64_t c, double fill = 0.0)
        : rows(r), cols(c), values(static_cast<std::size_t>(r * c), fill) {}
    double &at(std::int64_t i, std::int64_t j) { return values[static_cast<std::size_t>(i * cols + j)]; }
    double at(std::int64_t i, std::int64_t j) const { return values[static_cast<std::size_t>(i * cols + j)]; }
    const double *row(std::int64_t i) const { return values.data() + i * cols; }
};

// Limits for the teaching functions here and in approximate.h: Lq, Lk, d ≤ 4096 and Lq · Lk ≤ 2^22.
inline constexpr std::int64_t kVariantMaxSide = 4096;
inline constexpr std::int64_t kVariantMaxCells = std::int64_t(1) << 22;
// The additive score's hidden layer [Lq, Lk, dAttn] is kept only up to this many values (else left empty).
inline constexpr std::int64_t kVariantMaxHidden = std::int64_t(1) << 24;
// Additive scoring refuses more than this many tanh evaluations (Lq · Lk · dAttn).
inline constexpr std::int64_t kVariantMaxWork = std::int64_t(1) << 28;

// Deterministic numbers from our own SplitMix64 (never std:: distributions, whose output differs between
// standard libraries): element e (row-major) is drawn e-th from the stream of `seed`.
//   seededUniform: U[−bound, bound) from 53-bit uniforms
//   seededNormal:  N(0, stddev²) by Box–Muller on those uniforms, two normals per pair of uniforms
MatrixD seededUniform(std::int64_t rows, std::int64_t cols, double bound, std::uint64_t seed);
MatrixD seededNormal(std::int64_t rows, std::int64_t cols, double stddev, std::uint64_t seed);

enum class ScoreFunction { Dot, ScaledDot, General, Additive };
std::string scoreFunctionName(ScoreFunction f);                           // "dot", "scaled-dot", "general", "additive"
std::optional<ScoreFunction> parseScoreFunction(const std::string &name);

// The learned parameters of General and Additive (Dot and ScaledDot have none).
struct ScoreParams {
    MatrixD W;                // General: [dq, dk]
    MatrixD Wa;               // Additive: [dAttn, dq + dk]; columns 0..dq−1 are W_q, dq..dq+dk−1 are W_k
    std::vector<double> va;   // Additive: [dAttn]

    // Xavier-uniform from `seed`, for the teaching case: W ~ U(±√(6/(dq + dk))), Wa ~ U(±√(6/(dAttn + dq + dk))),
    // va ~ U(±√(6/(dAttn + 1))); Wa and va use the streams of seed and seed + 1. Empty for Dot and ScaledDot.
    static ScoreParams random(ScoreFunction f, std::int64_t dq, std::int64_t dk, std::int64_t dAttn,
                              std::uint64_t seed);
};

struct ScoringOptions {
    double scale = 0.0;   // ScaledDot only: 0 → 1/√dk; must be finite and ≥ 0
    MaskSpec mask;        // validated with B = H = 1 against Lq, Lk
    bool keepHidden = true;   // Additive: keep ScoringTrace::hidden (up to kVariantMaxHidden values); false: never
};

// Every stage of one head's attention with its numbers.
struct ScoringTrace {
    ScoreFunction function = ScoreFunction::ScaledDot;
    MatrixD raw;                  // [Lq, Lk] the score before scale and mask: q·k, qᵀWk or vaᵀtanh(...)
    double scale = 1.0;           // the factor applied to raw (ScaledDot: 1/√dk unless given; others 1)
    MatrixD qW;                   // General: [Lq, dk] q_iᵀ W, the query mapped into the key space
    MatrixD projQ;                // Additive: [Lq, dAttn] W_q q_i
    MatrixD projK;                // Additive: [Lk, dAttn] W_k k_j
    std::vector<double> hidden;   // Additive: [Lq, Lk, dAttn] tanh(W_q q_i + W_k k_j); empty past kVariantMaxHidden
    MatrixD scores;               // [Lq, Lk] raw · scale + mask bias (−inf where masked)
    MatrixD weights;              // [Lq, Lk] row softmax of scores
    MatrixD output;               // [Lq, dv] weights · V
};

// Errors name the operand and the sizes: "scoring: K has 5 columns but Q has 4 (dot products need dq == dk)".
Result<ScoringTrace> scoreAttention(const MatrixD &Q, const MatrixD &K, const MatrixD &V, ScoreFunction f,
                                    const ScoreParams &params = {}, const ScoringOptions &options = {});

// The RNN-era encoder–decoder attention step (Bahdanau 2015, Luong 2015): the decoder state s [dDec] attends
// over the encoder states H [S, dEnc]; keys and values are both the encoder states (no W_K, W_V projections):
//   e_j = score(s, h_j),  α = softmax(e),  c = Σ_j α_j h_j  [dEnc]
// The Transformer's cross-attention is the same step with q = s W_Q, k_j = h_j W_K, v_j = h_j W_V and the
// scaled dot product, run for every target position at once.
struct EncoderDecoderStep {
    ScoringTrace trace;             // Lq = 1, Lk = S, V = H
    std::vector<double> energies;   // [S] e_j (= trace.scores row 0)
    std::vector<double> alignment;  // [S] α_j (= trace.weights row 0)
    std::vector<double> context;    // [dEnc] c
};
Result<EncoderDecoderStep> rnnAttentionStep(const std::vector<double> &decoderState, const MatrixD &encoderStates,
                                            ScoreFunction f, const ScoreParams &params = {},
                                            const ScoringOptions &options = {});

// Attention dropout as a teaching view, never part of an exact path. Each weight is kept with probability 1 − p:
// keep_ij = (u_ij ≥ p) with u_ij the (i·Lk + j)-th 53-bit uniform in [0, 1) of the stream of `seed`.
//   dropped  = P ⊙ keep              rows no longer sum to 1
//   rescaled = P ⊙ keep / (1 − p)    E[rescaled] = P (inverted dropout, as torch's F.dropout in training)
//   output   = rescaled · V          [Lq, dv], when V is given
struct DropoutView {
    double p = 0.0;
    std::uint64_t seed = 0;
    std::vector<std::uint8_t> keep;        // [Lq, Lk] 1 = kept
    MatrixD dropped;                       // [Lq, Lk]
    MatrixD rescaled;                      // [Lq, Lk]
    std::vector<double> droppedRowSums;    // [Lq]
    std::vector<double> rescaledRowSums;   // [Lq]
    MatrixD output;                        // [Lq, dv]; empty without V
    std::int64_t keptCount = 0;
};
// p in [0, 1); P finite (any row sums: a row of zeros stays zeros). V, when given, has P.cols rows.
Result<DropoutView> attentionDropout(const MatrixD &P, double p, std::uint64_t seed, const MatrixD *V = nullptr);

} // namespace attn
