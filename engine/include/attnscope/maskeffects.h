// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Masks' effects: the same weights under different masks, and two proofs that masking does what it claims.
//
//   compareMasks   one head's captured Q, K, V (same numbers for every variant) recomputed under several masks:
//                  weights P [L, L] and head output O = P V [L, dHead] per mask, and for each variant the
//                  difference from a baseline variant (ΔP = P − P_base, ‖ΔO_i‖₂ per query row i).
//   leakageTest    replaces token j by another id and runs the whole model twice under one mask structure:
//                  with a causal mask the final hidden states at positions < j do not change at all; with a
//                  bidirectional mask they do (information flows right to left).
//   paddingTest    appends padding tokens and runs the model with the padding masked as keys and unmasked:
//                  the real tokens' final hidden states, compared with the unpadded run.
//
// Shapes: L tokens, dHead per head; matrices row-major fp32 (queries as rows). Differences are in fp64 to avoid
// adding rounding of our own; "max difference" is max |a − b| over the elements named.

#include <algorithm>
#include <attnscope/attention.h>
#include <attnscope/mask.h>
#include <attnscope/model.h>
#include <attnscope/status.h>
#include <attnscope/textmodel.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attn {

// The scale the model's attention uses in `layer` (attentionScale(): 1/√dHead unless the config says otherwise;
// GPT-2's scale_attn_by_inverse_layer_idx divides by layer + 1; Gemma's query_pre_attn_scalar^-½), so that
// recomputed weights match captured ones.
float modelAttentionScale(const ModelConfig &config, std::int64_t layer);

// The mask structure the model uses by itself in `layer`: causal for decoders (and causal=1 synthetic models), none
// otherwise, with the layer's sliding window where it has one (Mistral, Qwen2 layer_types, Gemma 2/3).
MaskSpec modelMaskStructure(const ModelConfig &config, std::int64_t layer);

struct MaskVariant {
    std::string name;   // "bidirectional", "causal", "window 2", "custom", ...
    MaskSpec mask;      // for one head: per-head parts (alibiSlopes) have one entry
};

struct HeadUnderMask {
    std::string name;
    MaskSpec mask;
    std::vector<float> weights;             // [L, L] P under this mask (masked entries exactly 0)
    std::vector<std::uint8_t> blocked;      // [L, L] 1 where the mask forbids query i → key j
    std::vector<float> output;              // [L, dHead] P V
    std::vector<float> weightDiff;          // [L, L] P − P_baseline
    std::vector<double> outputDelta;        // [L] ‖O_i − O_baseline,i‖₂
    double maxAbsWeightDiff = 0.0;
    double maxOutputDelta = 0.0;
};

struct MaskComparison {
    std::int64_t length = 0;    // L
    std::int64_t dHead = 0;
    std::size_t baseline = 0;   // index into variants
    std::vector<HeadUnderMask> variants;
};

// q, k, v: one head, [1, 1, L, dHead] views (e.g. a slice of LayerQKV). Each variant's mask must fit [L, L].
// options.weights is set here; backend, scale, threads, progress and cancel are used as given (progress spans
// all variants). Errors name the variant.
Result<MaskComparison> compareMasks(const TensorView &q, const TensorView &k, const TensorView &v,
                                    const std::vector<MaskVariant> &variants, std::size_t baseline,
                                    const AttentionOptions &options = {});

// A one-head view of layer `layer`'s captured Q, K or V ([1, H, L, dHead], K and V repeated per query head under
// grouped-query attention) at `head`: [1, 1, L, dHead].
TensorView headSlice(const Tensor &t, std::int64_t head);

struct TokenLeakage {
    std::int64_t position = 0;              // j, the token replaced
    std::int64_t originalId = 0;
    std::int64_t replacementId = 0;
    std::vector<double> maxDiff;            // [L] max over d of |h_i,d − h'_i,d|, final hidden states
    double maxDiffBefore = 0.0;             // over positions i < j (0 when j == 0)
    double maxDiffFromJ = 0.0;              // over positions i ≥ j
};

// Runs `model` on `input` and on `input` with token `position` replaced by `replacementId` (−1: the next id,
// modulo the vocabulary), both with `options` and maskOverride = `structure`. Captures are switched off.
Result<TokenLeakage> leakageTest(const Model &model, const ForwardInput &input, std::int64_t position,
                                  std::int64_t replacementId, const MaskSpec &structure,
                                  ForwardOptions options = {});

struct PaddingResult {
    std::int64_t realLength = 0;            // tokens of the input
    std::int64_t padCount = 0;              // padding tokens appended
    std::int64_t padId = 0;
    std::vector<double> maxDiffMasked;      // [realLength] padded, padding masked as keys, vs unpadded
    std::vector<double> maxDiffUnmasked;    // [realLength] padded, padding visible, vs unpadded
    double maxMasked = 0.0;
    double maxUnmasked = 0.0;
    double hiddenScale = 0.0;               // max |h| over the real tokens of the unpadded run

    // Padding masked is invisible when the real tokens' outputs agree to fp32 rounding: within 1e-6 relative to
    // the hidden states' scale (the padded run multiplies matrices of another shape, so the last bits may differ).
    double invisibleTolerance() const { return 1e-6 * std::max(1.0, hiddenScale); }
    bool maskedIsInvisible() const { return maxMasked <= invisibleTolerance(); }
};

// Appends `padCount` tokens `padId` (−1: the model's pad id, else its eos id, else 0) to `input` and compares the
// real tokens' final hidden states with those of the unpadded input, all under maskOverride = `structure`
// (bidirectional shows the effect; under a causal mask, padding after the text cannot reach it either way).
Result<PaddingResult> paddingTest(const Model &model, const ForwardInput &input, std::int64_t padCount,
                                  std::int64_t padId, const MaskSpec &structure, ForwardOptions options = {});

// The Masks workspace's document (docs/json-format.md, "The masks export"): one head of one input under each
// mask (weights, what was blocked, P V and the differences from the baseline) and the two proofs.
struct MaskEffectsReport {
    TokenizedText tokens;
    HeadRef head;
    MaskComparison comparison;
    std::optional<TokenLeakage> leakCausal, leakBidirectional;
    std::optional<PaddingResult> padding;
    std::string leakNote, paddingNote;  // why a proof is missing, when it is
    Backend backend = Backend::Auto;    // as asked for
};
std::string maskEffectsExportJson(const TextModel &model, const MaskEffectsReport &report);

} // namespace attn
