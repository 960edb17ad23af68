// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The raw Explore experiment: one random multi-head self-attention layer over fixed random word embeddings.
// Words are split on whitespace; each word (case-folded) hashes to a seed that fixes its embedding, so the
// same word always gets the same vector and repeated words are visible in the weights. Runs on a worker thread
// through EngineRunner; everything here is plain data and pure functions.

#include "runner/enginerunner.h"

#include <attnscope/analysis.h>
#include <attnscope/attention.h>
#include <attnscope/mha.h>
#include <attnscope/model.h>

#include <QStringList>

#include <cstdint>
#include <vector>

namespace attnui {

enum class MaskKind { Bidirectional, Causal, SlidingWindow };

QString maskKindName(MaskKind kind);   // "bidirectional", "causal", "sliding window"

struct ExperimentRequest {
    QString text;
    int heads = 4;
    int dModel = 64;
    quint64 seed = 7;
    MaskKind mask = MaskKind::Causal;
    int window = 2;                         // |i - j| <= window, for SlidingWindow
    attn::PositionalEncoding positional = attn::PositionalEncoding::None;
    attn::Backend backend = attn::Backend::Reference;
    int focusHead = 0;                      // always gets weights, whatever the length
    int allHeadsUpTo = 512;                 // weights for every head up to this many tokens
    bool flow = true;                       // attention flow too (Explore asks only while its tab is shown)
};

// One predicted token (model outputs).
struct TokenPrediction {
    QString token;
    double probability = 0.0;
};

// What the model's output head says about this input.
struct ModelOutputs {
    attn::ModelHead head = attn::ModelHead::None;
    QStringList classLabels;                          // Classification: id2label order
    std::vector<double> classProbabilities;           // Classification: softmax of the class logits
    std::vector<int> positions;                       // CausalLM / MaskedLM: positions with predictions
    std::vector<std::vector<TokenPrediction>> topK;   // [positions.size()] each sorted by probability
    QString note;                                     // e.g. "type [MASK] to see masked-token predictions"
};

// A result of Explore, from a raw experiment or from a model: tokens, the captured heads, their statistics
// and the aggregations across heads and layers. Immutable once delivered.
struct ExploreSnapshot : Snapshot {
    ExperimentRequest request;               // raw experiments only
    QString source;                          // what ran: "sample:induction-gpt2", "random attention layer"
    QString text;                            // the input text
    QStringList tokens;                      // display labels
    std::vector<std::int64_t> tokenIds;      // [L]; raw experiments: one id per distinct case-folded word
    std::vector<std::uint8_t> special;       // [L] 1 for special tokens ([CLS], [SEP], ...)
    int layers = 1;
    int heads = 0;
    // Per (layer, head), index layer * heads + head: row-major [L, L], empty when not computed.
    std::vector<std::vector<float>> weights;
    std::vector<std::vector<float>> scores;  // scaled Q·Kᵀ plus biases (ALiBi), −∞ where masked
    std::vector<std::uint8_t> masked;        // [L, L], 1 where the mask forbids the pair (every layer without its own)
    QString maskDescription;
    QString inputNote;                       // how the text became tokens, when worth saying (truncation)
    // Models whose layers differ (Mistral, Qwen2 layer_types, Gemma 2/3: sliding-window layers beside global
    // ones): per layer, its window in Hugging Face's convention (W keys, the query included; 0: full), its
    // masked cells where they differ from `masked` (else empty) and its mask described.
    std::vector<int> layerWindow;                        // [layers] or empty
    std::vector<std::vector<std::uint8_t>> layerMasked;  // [layers] of [L, L] or empty
    QStringList layerMaskDescription;                    // [layers] or empty
    // Grouped-query attention: the K/V head each query head reads ([heads]); empty when every head has its own.
    std::vector<int> kvHeadOf;

    // Analysis (engine/src/analysis): per head [layers * heads], NaN-filled for heads not computed.
    std::vector<attn::HeadStatistics> stats;
    std::vector<std::vector<double>> layerMeans;   // [layers] of [L, L]; empty unless every head was computed
    std::vector<double> rollout;                   // [L, L] or empty
    std::vector<double> flow;                      // [L, L] or empty
    QString aggregationNote;                       // why rollout or flow is missing, when it is
    bool flowDeferred = false;                     // flow could be computed but was not asked for

    ModelOutputs outputs;
    QStringList examples;                          // the model folder's examples.json texts
    QStringList exampleHints;                      // their "what_to_look_for"

    int length() const { return int(tokens.size()); }
    bool hasWeights(int layer, int head) const;
    const std::vector<float> &weightsOf(int layer, int head) const { return weights[std::size_t(layer * heads + head)]; }
    const std::vector<float> &scoresOf(int layer, int head) const { return scores[std::size_t(layer * heads + head)]; }
    const std::vector<std::uint8_t> &maskedOf(int layer) const;
    QString maskDescriptionOf(int layer) const;
    int windowOf(int layer) const { return layer >= 0 && layer < int(layerWindow.size()) ? layerWindow[std::size_t(layer)] : 0; }
};

QStringList tokenizeWords(const QString &text);
// A fixed unit-variance random vector for a word; the same word (case-folded) gives the same vector.
std::vector<float> wordEmbedding(const QString &word, int dModel);
attn::MaskSpec maskFor(const ExperimentRequest &request);

// Fills the analysis fields of a snapshot whose weights, tokens and ids are set: head statistics for every
// computed head; layer means, rollout and flow (up to attn::kMaxFlowTokens, when `flow`) when every head was
// computed. Flow is one max-flow per token pair — most of a short input's run time — so it is optional.
attn::Status analyseSnapshot(ExploreSnapshot &snapshot, const JobContext &ctx, bool flow = true);

// Computes the experiment; errors name the setting that is wrong. Honours ctx's cancel flag and progress.
attn::Result<std::shared_ptr<Snapshot>> runExperiment(const ExperimentRequest &request, const JobContext &ctx);

} // namespace attnui
