// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The numbers behind the Pipeline workspace: one head of a real forward pass, X → Q, K, V → QKᵀ → ÷√d_k → + M →
// softmax → ·V. The forward pass captures the layer's input, Q/K/V and the head's weights and scores; every
// stage after Q/K/V is recomputed here in fp64 (with the view's scaling, temperature and mask) and, at the
// model's own settings, checked against the weights and scores the engine captured.
//
// Layouts: row-major fp64. X [n, dModel] (the block's input, before the layer's LayerNorm for pre-LN models),
// Q, K, V, Y [n, dHead], every score and weight matrix [n (queries), n (keys)]. Masked cells hold -inf in the
// bias and masked-score matrices and exactly 0 in the weights. Runs on a worker thread (EngineRunner).

#include "runner/enginerunner.h"
#include "kit/subject.h"

#include <attnscope/variants.h>

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace attnui {

struct PipelineSettings {
    enum class Mask { Model, Bidirectional, Causal, Window };
    enum class Positional { Model, None };

    int layer = 0;
    int head = 0;
    bool scale = true;              // ÷√d_k (the model's own scale factor) on or off
    double temperature = 1.0;       // scores are divided by it before softmax, (0, ∞)
    Mask mask = Mask::Model;
    int window = 2;                 // Mask::Window: keys with |i − j| ≤ window (and j ≤ i for causal models)
    Positional positional = Positional::Model;

    // The score function (attn::scoreAttention, variants.h): the Transformer's scaled dot product (the model's own),
    // or, for teaching, the plain dot product, Luong's general q_iᵀ W k_j and Bahdanau's additive
    // v_aᵀ tanh(W_q q_i + W_k k_j) on this head's real q and k. The model has no W, W_a or v_a: they are drawn from
    // `scoreSeed` (attn::ScoreParams::random, Xavier-uniform, W [d_k, d_k], d_attn = d_k), so the pattern shows the
    // function's shape, not a trained one. Only ScaledDot is scaled (÷√d_k while `scale` is on).
    attn::ScoreFunction score = attn::ScoreFunction::ScaledDot;
    std::uint64_t scoreSeed = 1;
    // Attention dropout as a teaching view (attn::attentionDropout): with p > 0 the softmax stage shows the kept
    // weights P ⊙ keep (rows no longer sum to 1) and their 1/(1 − p) rescale beside P. Y and every later stage stay
    // exact: dropout is a training-time step and is never applied in the views.
    double dropout = 0.0;           // p in [0, kMaxDropout]
    std::uint64_t dropoutSeed = 1;
};
constexpr double kMaxDropout = 0.9;
constexpr std::uint64_t kMaxSeed = 999999;   // seeds as sessions and the spin boxes take them: 0 … kMaxSeed

QString maskName(PipelineSettings::Mask mask);                 // "model", "bidirectional", "causal", "window"
bool maskFromName(const QString &name, PipelineSettings::Mask *mask);
QString scoreLabel(attn::ScoreFunction f);   // "scaled dot (Transformer)", "dot (Luong)", …: for menus and titles

// The stages, in order; each has a short name, a one-line formula and a sentence of explanation.
// Tiled: the same P V computed as FlashAttention does, key block by key block (tiledStep below).
// Heads: every head of the layer with the same settings, side by side, concatenated and projected by W_O.
enum class PipelineStage { Input, Projections, Dot, Scale, Mask, Softmax, Output, Tiled, Heads };
constexpr int kPipelineStageCount = 9;
QString stageName(PipelineStage s);          // "input", "qkv", "dot", "scale", "mask", "softmax", "output", "tiled", "heads"
bool stageFromName(const QString &name, PipelineStage *stage);
QString stageTitle(PipelineStage s);         // "X", "Q, K, V", "QKᵀ", "÷√d_k", "+ M", "softmax", "·V", "⊕ · W_O"
QString stageFormula(PipelineStage s);       // "S = Q Kᵀ"
QString stageExplanation(PipelineStage s);
// The dot stage's formula and sentence under another score function (ScaledDot: stageFormula(Dot)'s).
QString scoreFormula(attn::ScoreFunction f);
QString scoreExplanation(attn::ScoreFunction f);
// The RNN-era encoder–decoder attention step beside the Transformer's, for the side panel (rich text).
QString rnnAttentionExplanation();

// Softmax statistics of one weight matrix, over its rows with at least one allowed key.
struct Saturation {
    double meanMaxWeight = 0.0;   // mean over rows of the row's largest weight (1 = one-hot)
    double meanEntropyBits = 0.0; // mean over rows of −Σ p log₂ p
    double meanUniformBits = 0.0; // the same for uniform attention over the allowed keys (the maximum)
};
Saturation saturation(const std::vector<double> &weights, int n);

// Stages after Q/K/V, for one head. `bias` [n, n] is the additive mask M (0, −inf, or ALiBi's −m·|i − j|).
struct HeadStages {
    std::vector<double> dot;      // S = Q Kᵀ
    std::vector<double> scaled;   // S · factor / temperature
    std::vector<double> masked;   // scaled + M
    std::vector<double> weights;  // softmax over each row of masked (fully masked rows: 0)
    std::vector<double> output;   // weights · V
};
HeadStages computeHeadStages(const std::vector<double> &q, const std::vector<double> &k, const std::vector<double> &v,
                             const std::vector<double> &bias, int n, int dHead, double factor, double temperature);
// The same from raw scores [n, n] of any score function (they become HeadStages::dot).
HeadStages computeHeadStagesFromScores(std::vector<double> raw, const std::vector<double> &v,
                                       const std::vector<double> &bias, int n, int dHead, double factor,
                                       double temperature);

// One head's raw scores under `settings.score`, through the engine's attn::scoreAttention on q, k [n, d_k]: the
// dot products for Dot and ScaledDot; General's q_iᵀ W k_j with qW = Q W [n, d_k]; Additive's
// v_aᵀ tanh(W_q q_i + W_k k_j) with projQ = Q W_qᵀ, projK = K W_kᵀ [n, d_attn]. `params` are the seeded ones.
struct ScoreStage {
    attn::ScoreParams params;
    std::vector<double> raw;              // [n, n]
    std::vector<double> qW;               // General
    std::vector<double> projQ, projK;     // Additive
    int dAttn = 0;                        // Additive: the hidden layer's width (d_k)
};
attn::Result<ScoreStage> scoreStage(const std::vector<double> &q, const std::vector<double> &k, int n, int dHead,
                                    const PipelineSettings &settings);

// The softmax stage's dropout view (settings.dropout > 0), from attn::attentionDropout on P with the seed:
// dropped = P ⊙ keep and rescaled = dropped / (1 − p), each [n, n + 1] with the row's sum in the last column; and
// what Y = rescaled · V would be (a training step's output), to compare with the exact Y.
struct DropoutStage {
    double p = 0.0;
    std::uint64_t seed = 0;
    std::vector<double> dropped, rescaled;   // [n, n + 1]: the weights, then Σ_j
    std::vector<double> keepBias;            // [n, n]: 0 where kept, −∞ where dropped (drawn as masked)
    std::vector<double> output;              // [n, d_k]: rescaled · V
    std::int64_t kept = 0, allowed = 0;      // weights kept, of the cells with P > 0
    double minRowSum = 0.0, maxRowSum = 0.0; // over rows with an allowed key, of dropped
    double meanRescaledRowSum = 0.0;
};
attn::Result<DropoutStage> dropoutStage(const std::vector<double> &weights, const std::vector<double> &v, int n,
                                        int dHead, double p, std::uint64_t seed);

// The tiled (FlashAttention-2) algorithm on one head's masked scores S″ [n, n] and V [n, d_k], in fp64: the keys
// are swept in blocks of `blockKeys`; after block b (0-based) every query row i holds
//   m_i = max of S″_ij over the keys so far                 (−∞ while the row has seen no allowed key)
//   l_i = Σ_j e^(S″_ij − m_i) over the keys so far
//   Õ_i = Σ_j e^(S″_ij − m_i) v_j over the keys so far       (unnormalised)
// updated from block b − 1 by the rescale factor e^(m_old − m_new) (1 when m did not grow, 0 from −∞): the kernel
// never holds a row of P. After the last block O = Õ / l is softmax(S″) V and m + ln l is the row's LSE. Query rows
// are independent, so the kernel's query blocks (32 or 64 rows) only split this work; here every row is shown.
struct TiledStep {
    int block = 0, blocks = 0;                // this block and how many there are: ⌈n / blockKeys⌉
    int keyBegin = 0, keyEnd = 0;             // its keys [keyBegin, keyEnd)
    std::vector<double> tile;                 // [n, keyEnd − keyBegin]: S″ of those keys
    std::vector<double> rescale;              // [n]: e^(m_old − m) applied to l and Õ at this block
    std::vector<double> m, l;                 // [n] after this block
    std::vector<double> acc;                  // [n, d_k]: Õ after this block
    std::vector<double> out;                  // [n, d_k]: Õ / l (0 for rows with l = 0)
    std::vector<double> lse;                  // [n]: m + ln l (−∞ for rows with no allowed key yet)
};
// blockKeys in 1 … n, block in 0 … ⌈n / blockKeys⌉ − 1 (both clamped). O(n · keyEnd · d_k).
TiledStep tiledStep(const std::vector<double> &masked, const std::vector<double> &v, int n, int dHead, int blockKeys,
                    int block);

struct PipelineSnapshot : Snapshot {
    PipelineSettings settings;
    TextModelPtr model;           // the model that ran
    QString modelName;            // what ran ("sample:induction-gpt2", a random spec)
    QString note;                 // e.g. why a fallback model is shown
    QString text;
    QStringList tokens;           // [n]
    int n = 0, dModel = 0, dHead = 0, layers = 0, heads = 0;
    bool modelCausal = false;
    bool canDropPositions = false;
    QString positionalName;       // "learned", "sinusoidal", "RoPE", "ALiBi", "none"
    double modelFactor = 1.0;     // the model's own scale factor (1/√d_k, GPT-2 may add 1/(layer+1))
    double factor = 1.0;          // the factor used in the stages (modelFactor, or 1 with scaling off)

    std::vector<double> x;        // [n, dModel]
    std::vector<double> q, k, v;  // [n, dHead]
    std::vector<double> bias;     // [n, n]
    HeadStages stages;
    ScoreStage score;             // the score function's parameters and intermediate matrices (settings.score)
    std::optional<DropoutStage> dropout;   // settings.dropout > 0
    Saturation withScale, withoutScale;   // the same scores with and without ÷√d_k (at this temperature)
    double dotStd = 0.0;          // standard deviation of this head's q·k over the allowed cells (the √d_k plot)

    // The multi-head step, every head of the layer with these settings: Y_h = P_h V_h side by side as
    // concat [n, H·d_k] (head h in columns h·d_k …), W_O [H·d_k, d_model] from the checkpoint (with b_O), and the
    // layer's attention output [n, d_model] = concat · W_O + b_O. wo is empty when the model has no W_O to show.
    std::vector<double> concat, wo, layerOutput;
    double maxErrHeadOutputs = -1.0;  // |fp64 per-head outputs − the engine's attention() on the captured Q, K, V|
                                      // at the model's own settings; −1 where it could not be checked

    double maxErrWeights = 0.0;   // |fp64 softmax − engine's captured weights| at the model's own settings
    double maxErrScores = 0.0;    // |fp64 scaled + M − engine's captured scores|, over allowed cells
    bool scoresMaskAgree = true;  // the same cells are −inf in both
    bool toy = false;             // the student's own numbers (runToyPipeline), not a model's
    bool toyDirect = false;       // the toy's Q, K, V were typed, not computed from X
};

// The toy: one head whose numbers the student types, X [n, d_model] and W_Q, W_K, W_V [d_model, d_k] with n,
// d_model, d_k in 1 … kToyMax — or Q, K, V [n, d_k] typed directly (`direct`), X and the W's then kept but unused.
// Its "model's own" mask is bidirectional; it has no positions and no W_O.
constexpr int kToyMax = 8;
struct ToyHead {
    int n = 3, dModel = 3, dHead = 2;
    std::vector<double> x, wq, wk, wv;
    bool direct = false;
    std::vector<double> q, k, v;                   // direct: [n, d_k] each; else empty
    static ToyHead example();                      // 3 tokens, d_model 3, d_k 2, small integers
    void resize(int n, int dModel, int dHead);     // keeps the entries that remain, new ones are 0
    std::vector<double> project(const std::vector<double> &w) const;   // X · w [n, d_k]
    // Q, K, V as the stages use them: typed (direct) or X·W.
    std::vector<double> queries() const { return direct ? q : project(wq); }
    std::vector<double> keys() const { return direct ? k : project(wk); }
    std::vector<double> values() const { return direct ? v : project(wv); }
    // Typing Q, K, V from now on, starting from X·W_Q, X·W_K, X·W_V (nothing changes until a number does); and
    // back to computing them from X and the W's.
    void setDirect(bool on);
    bool operator==(const ToyHead &) const = default;
};
// Every stage of the toy in fp64, and the check: the same Q, K, V through the engine's attention().
attn::Result<std::shared_ptr<Snapshot>> runToyPipeline(const ToyHead &toy, const PipelineSettings &settings);

// Opens nothing: `model` must be loaded. Validates settings against the model (names the field on failure).
attn::Result<std::shared_ptr<Snapshot>> runPipeline(const TextModelPtr &model, const QString &text,
                                                    const attn::TokenizeOptions &tokenize,
                                                    const PipelineSettings &settings, const JobContext &ctx);

// The aid for ÷√d_k: the standard deviation of q·k for random q, k with independent unit-variance entries, at
// d_k = 1, 2, 4, …, 512 (fixed seed). It grows like √d_k; after ÷√d_k it stays near 1.
struct ScoreSpread {
    std::vector<int> dk;
    std::vector<double> stdRaw;
    std::vector<double> stdScaled;
};
ScoreSpread scoreSpreadByDk(int samples = 4000, unsigned seed = 1);

} // namespace attnui
