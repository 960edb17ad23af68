// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Perturbation-based faithfulness of attention (DESIGN.md §3.5; definitions and defaults in
// reference/faithfulness.md §1–§4). One call runs the whole suite on one input.
//
// Target (§1): fixed on the unperturbed pass, never re-selected after a perturbation.
//   classifier  m(x) = probability of the predicted class (or of settings.targetClass)   unit "probability"
//   causal LM   m(x) = log p(y* | x) at the last position, y* = the unperturbed argmax   unit "nats"
//   masked LM   like the causal LM at settings.targetPosition (default the last non-special position)
// Distances between output distributions (TVD = ½Σ|p−q|, JSD in nats) compare the class distribution, or the
// next-token distribution at the target position.
//
// Tokens: special tokens ([CLS], [SEP], ...) get no importance (NaN in the vectors) and are never perturbed.
// Every importance vector is [L] over all positions; only the n_s non-special positions are scored, ranked and
// perturbed. Orderings: larger importance first, ties by position.
//
// Importances: attention (row o = [CLS] for encoders / classifiers, the last position for causal LMs; the row is
// renormalized over non-special keys): one head, the mean over the heads of the last layer, rollout, flow
// (n ≤ kMaxFlowTokens); perturbation: leave-one-out by deletion and by key knockout (Δ = m(x) − m(x_{−t}),
// signed), occlusion with a baseline token id or a zero input embedding.
//
// Every ordering-based metric (ERASER, curves, flip, Bhatt) is reported for each importance and for random
// orderings (settings.randomSeeds seeds, derived from settings.seed; mean, and each seed's value).
// Sanity checks (§3.14): RandomLogit (another target) and the cascading model-parameter randomization
// (RandomizationCheck: importances recomputed on copies with the head and the top layers re-initialized).
// All metric arithmetic is float64. Forward passes run in parallel (settings.threads) with progress and cancel.

#include <attnscope/attention.h>
#include <attnscope/model.h>
#include <attnscope/status.h>
#include <attnscope/textmodel.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attn {

// How tokens are removed (§2).
enum class RemovalOperator {
    Deletion,        // drop the token; later positions shift
    Knockout,        // key column := masked for every query in every layer (no position shift)
    MaskToken,       // replace the id by the tokenizer's [MASK] (MLM encoders)
    UnkToken,        // ... by [UNK]
    PadToken,        // ... by the padding id
    ZeroEmbedding,   // the token embedding := 0 (positions and token types still added)
};
std::string removalOperatorName(RemovalOperator op);   // "deletion", "knockout", "mask", "unk", "pad", "zero_embedding"
Result<RemovalOperator> parseRemovalOperator(const std::string &text);

enum class ImportanceKind {
    AttentionHead,        // settings.head's row o
    AttentionHeadMean,    // mean over the heads of the last layer ("last layer")
    Rollout,              // attention rollout with residual (analysis.h), row o
    Flow,                 // attention flow, row o; skipped (recorded) when n > kMaxFlowTokens
    LooDeletion,          // leave-one-out, deletion
    LooKnockout,          // leave-one-out, key knockout
    Occlusion,            // leave-one-out with settings.occlusionBaseline
};
std::string importanceKindName(ImportanceKind kind);   // "head", "head_mean", "rollout", "flow", "loo_deletion", ...
Result<ImportanceKind> parseImportanceKind(const std::string &text);
bool isAttentionImportance(ImportanceKind kind);

enum class RandomizationMode {
    None,      // not run
    Cascade,   // the output head alone, then head + the top layer, head + the top two, ..., head + every layer
};
std::string randomizationModeName(RandomizationMode m);   // "none", "cascade"
Result<RandomizationMode> parseRandomizationMode(const std::string &text);

struct FaithfulnessSettings {
    // Target.
    std::optional<std::int64_t> targetClass;      // classifier: this class instead of the predicted one
    std::optional<std::int64_t> targetPosition;   // LM: predict after this position (default: the last one)

    // Importances compared. Defaults: all seven.
    std::vector<ImportanceKind> methods = {ImportanceKind::AttentionHead, ImportanceKind::AttentionHeadMean,
                                           ImportanceKind::Rollout,       ImportanceKind::Flow,
                                           ImportanceKind::LooDeletion,   ImportanceKind::LooKnockout,
                                           ImportanceKind::Occlusion};
    std::optional<HeadRef> head;                  // AttentionHead; default: last layer, head 0
    std::optional<RemovalOperator> occlusionBaseline;   // default: MaskToken when the tokenizer has [MASK],
                                                         // else ZeroEmbedding

    // Ordering metrics: removal operator (default Deletion; ERASER's x \ r).
    RemovalOperator removal = RemovalOperator::Deletion;
    // The ordering metrics once more with a second operator (§2 recommends showing two: deletion and [MASK] for
    // encoders, deletion and knockout for causal LMs; a large disagreement points to out-of-distribution effects).
    // nullopt (default): not run, which keeps the suite within its time goal.
    std::optional<RemovalOperator> secondRemoval;
    std::vector<double> eraserBins = {0.01, 0.05, 0.1, 0.2, 0.5};
    int curveStep = 0;                            // tokens per curve point; 0: 1, or ceil(n_s/20) when n_s > 100
    int bhattRuns = 100;                          // faithfulness correlation subsets
    int bhattSubsetSize = 0;                      // 0: max(1, round(0.25·n_s))

    bool orderingMetrics = true;                  // false: importances and agreement only (fast; n_s·3 passes)

    // Attention tests per head (§3.3, §3.4, §3.11).
    bool permutationTest = true;
    int permutations = 100;                       // J&W: 100 per head; TVD median
    bool uniformTest = true;
    bool headAblation = true;                     // zero and mean ablation per head
    bool randomLogitCheck = true;                 // sanity check (§3.14), see RandomLogitCheck
    // Model-parameter randomization (§3.14, Adebayo et al. 2018), see RandomizationCheck. Cost: (layers + 1) ×
    // (1 + (n_s + 1) per perturbation importance) passes on randomized copies of the model.
    RandomizationMode randomization = RandomizationMode::Cascade;
    double randomizationThreshold = 0.9;          // |ρ| ≥ this: the map "stays similar" (fails the check)
    bool randomizationResetLayerNorms = false;    // see RandomizationSpec::resetLayerNorms

    int randomSeeds = 5;                          // random-order baseline: seeds seed+1 .. seed+randomSeeds
    std::uint64_t seed = 42;
    Backend backend = Backend::Auto;
    int threads = 0;                              // 0: all hardware threads (passes run in parallel)
};

struct TargetInfo {
    std::string kind;            // "class_probability" or "next_token_log_prob"
    std::string unit;            // "probability" or "nats"
    std::int64_t index = 0;      // class index or token id y*
    std::string label;           // class label or token text
    std::int64_t position = 0;   // the output row read (0 for classifiers' pooled [CLS])
    double score = 0.0;          // m(x)
};

struct Importance {
    ImportanceKind kind;
    std::string name;                 // importanceKindName(kind)
    std::vector<double> scores;       // [L]; NaN at special positions
    std::string note;                 // e.g. "head 2.0", "baseline mask id 4"
};

struct AgreementScores {
    std::string method;               // an attention importance, or "random" (mean over the random seeds)
    std::string reference;            // a perturbation importance; compared against its absolute value
    double kendallTauB = 0.0;         // NaN when a side is constant
    double spearman = 0.0;
    double topKOverlap = 0.0;         // k = max(1, ceil(0.1·n_s))
    int k = 1;
};

struct OrderingMetrics {
    std::vector<double> bins, comprehensiveness, sufficiency;   // per ERASER bin
    std::vector<int> k;
    double aopcComprehensiveness = 0.0, aopcSufficiency = 0.0;
    std::vector<double> deletion, insertion;                    // curve points (target score)
    double aucDeletion = 0.0, aucInsertion = 0.0;
    int tokensToFlip = -1;            // first k whose removal changes the argmax (−1: never)
    double fractionToFlip = -1.0;     // tokensToFlip / n_s (−1: never)
    double faithfulnessCorrelation = 0.0;   // Bhatt; NaN when constant
};

struct MethodMetrics {
    std::string method;               // importance name, or "random"
    OrderingMetrics metrics;          // for "random": the mean over seeds (flip: mean over flipping seeds)
    std::vector<std::uint64_t> seeds;            // "random" only
    std::vector<OrderingMetrics> perSeed;        // "random" only
    int neverFlipped = 0;                         // "random": seeds that never flipped
};

struct HeadTest {
    HeadRef head;
    double permutationMedianTvd = 0.0;   // median over permutations of TVD(y^p, ŷ)
    double permutationMaxAttention = 0.0;   // max over keys of the head's row o (non-special)
    double uniformTvd = 0.0;             // TVD with the head's rows uniform over allowed keys
    bool uniformFlip = false;
    double zeroAblationDelta = 0.0;      // m(x; head zeroed) − m(x)
    double meanAblationDelta = 0.0;      // m(x; head := mean over positions) − m(x)
    double zeroAblationTvd = 0.0, meanAblationTvd = 0.0;
};

// Sanity check (§3.14), the RandomLogit variant (Sixt et al.), kept next to RandomizationCheck: each importance
// is recomputed for a different target (the runner-up class, or the runner-up next token) and compared with
// Spearman to the original. Attention and rollout do not depend on the target, so they give exactly 1 (flagged
// class-agnostic, a structural property); perturbation importances change.
struct RandomLogitCheck {
    std::int64_t otherIndex = 0;     // the other class / token
    std::vector<std::string> methods;
    std::vector<double> spearman;    // per method
    std::vector<bool> classAgnostic; // spearman ≥ 1 − 1e-12 (or both vectors identical)
};

// Cascading top-down model-parameter randomization (§3.14): every importance is recomputed on randomized copies
// of the model (Model::withRandomizedParameters, seed = settings.seed; same target index and position, target
// fixed on the original model's unperturbed pass) and compared with the original by Spearman over the scored
// tokens, signed and on absolute values. Step k re-initializes the output head and the top k layers
// (k = 0 .. layers; step 0 is also the head-only run). A method "stays similar" at a step when |ρ| ≥ threshold
// (signed ρ; NaN, from a constant map, counts as changed). It fails the check when it stays similar after the
// head alone is randomized: it does not depend on the output at all. Attention importances (raw, mean, rollout,
// flow) fail by construction (structural: they are class-agnostic, ρ = 1 exactly) and change only once a layer
// they read is randomized; perturbation importances are expected to pass.
struct RandomizationStep {
    std::int64_t topLayers = 0;       // 0: the output head alone
    std::string randomized;           // RandomizationSpec::describe(): "head", "head + layers 2..1", ...
    std::vector<double> spearman;     // [methods]
    std::vector<double> spearmanAbs;  // [methods] Spearman of |original| vs |randomized|
    double outputTvd = 0.0;           // TVD between the randomized and the original model's output on x
};

struct RandomizationCheck {
    std::uint64_t seed = 42;
    double threshold = 0.9;
    bool resetLayerNorms = false;
    std::string init;                         // how tensors were redrawn, in words
    std::vector<std::string> methods;
    std::vector<RandomizationStep> steps;     // topLayers 0 .. layers
    std::vector<bool> fails;                  // [methods] |ρ| ≥ threshold at step 0 (head only)
    std::vector<bool> structural;             // [methods] attention importances: failing is expected
    std::vector<int> firstChangedStep;        // [methods] first step with |ρ| < threshold; −1: never
    std::int64_t forwardPasses = 0;
};

struct FaithfulnessResult {
    TokenizedText tokens;                      // [L]
    TargetInfo target;
    std::vector<double> baseDistribution;      // the unperturbed output distribution (classes or vocabulary)
    std::string removal;                       // removalOperatorName(settings.removal)
    std::string occlusionBaseline;
    std::int64_t occlusionBaselineId = -1;     // −1 for zero embedding
    int scoredTokens = 0;                      // n_s
    int curveStep = 1;
    int bhattSubsetSize = 1;
    std::vector<Importance> importances;
    std::vector<AgreementScores> agreement;
    std::vector<MethodMetrics> orderings;      // one per importance, then "random"
    std::string secondRemoval;                 // empty when settings.secondRemoval was not set
    std::vector<MethodMetrics> secondOrderings;   // the same with the second operator
    std::vector<HeadTest> heads;               // layer-major; empty when all head tests are off
    std::optional<RandomLogitCheck> randomLogit;
    std::optional<RandomizationCheck> randomization;   // nullopt when settings.randomization is None
    std::vector<std::string> skipped;          // "flow: n_s = 97 > 64", ...
    std::int64_t forwardPasses = 0;
    double seconds = 0.0;                      // wall time of the suite
};

// Estimated forward passes for the settings on L tokens (for a "this will run N passes" line before a sweep).
std::int64_t estimateFaithfulnessPasses(const Model &model, std::int64_t length, const FaithfulnessSettings &s);

Result<FaithfulnessResult> runFaithfulness(const TextModel &model, const std::string &text,
                                           const FaithfulnessSettings &settings, const ProgressFn &progress = {},
                                           const CancelFn &cancel = {});
Result<FaithfulnessResult> runFaithfulness(const TextModel &model, const TokenizedText &tokens,
                                           const FaithfulnessSettings &settings, const ProgressFn &progress = {},
                                           const CancelFn &cancel = {});

// Scoring an importance against a ground-truth rationale (token indices into the same [L] tokens).
// The prediction is the top-|gold| scored tokens (ties by position); F1 of that set against gold.
// precision@k: the fraction of the top-k scored tokens that are in gold.
struct RationaleScores {
    double f1 = 0.0;
    double precisionAtK = 0.0;
    int k = 0;
};
RationaleScores scoreRationale(const std::vector<double> &importance, const std::vector<std::int64_t> &gold,
                               int k);

// The faithfulness document (docs/json-format.md, docs/schema/faithfulness.schema.json), version 1.
std::string faithfulnessExportJson(const TextModel &model, const FaithfulnessSettings &settings,
                                   const FaithfulnessResult &result);

} // namespace attn
