// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Permutation equivariance of self-attention (DESIGN.md §3.4). The causal-leakage check (§3.3) is
// attn::leakageTest in maskeffects.h.
//
// A permutation π of the L positions reorders the input: (PX)[i] = X[π[i]]. Self-attention without positional
// information and with a bidirectional mask is equivariant:
//   A(PX) = P·A(X)·Pᵀ, i.e. A'[i, j] = A[π[i], π[j]]      Y(PX) = P·Y(X), i.e. Y'[i, :] = Y[π[i], :]
// where A is one head's [L, L] weights (row = query) and Y the model's final hidden state [L, D]. The check runs
// the model twice (X and PX, both in the same settings) and reports the largest absolute differences. Positional
// information or a causal mask break equivariance; the errors are then reported, not judged.
//
// Special tokens ([CLS], [SEP], ...) stay in place by default: reverse and random permute only the other
// positions, so a classifier's [CLS] stays first. Explicit permutations and swaps are taken as given.

#include <attnscope/attention.h>
#include <attnscope/export.h>
#include <attnscope/model.h>
#include <attnscope/status.h>
#include <attnscope/textmodel.h>

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

struct PermutationSpec {
    enum class Kind { Reverse, Random, Explicit, Swap };
    Kind kind = Kind::Reverse;
    std::uint64_t seed = 0;              // Random
    std::vector<std::int64_t> order;     // Explicit: π as a list of L indices; Swap: the two positions
    bool keepSpecialFixed = true;        // Reverse, Random: special tokens keep their positions
};
// "reverse", "random:SEED", "swap:I,J" (or "swap I,J"), or "i,j,k,..." (an explicit π). Messages name the part.
Result<PermutationSpec> parsePermutationSpec(const std::string &text);
std::string permutationSpecText(const PermutationSpec &spec);   // back to the parse form

// π for L positions; `special` [L] (may be empty: none). Validates explicit lists (each index once, size L) and
// swap positions (< L).
Result<std::vector<std::int64_t>> makePermutation(const PermutationSpec &spec, std::int64_t length,
                                                  const std::vector<std::uint8_t> &special = {});

// --pe: what positional information the two passes use.
enum class PositionalChoice {
    Model,        // the model's own (learned, sinusoidal, RoPE, ALiBi or none)
    None,         // drop all positional information (ForwardOptions::dropPositions)
    Sinusoidal,   // random: models only: the same synthetic weights with pe=sinusoidal
    Rope,         // random: models only: the same synthetic weights with pe=rope
};
Result<PositionalChoice> parsePositionalChoice(const std::string &text);   // model | none | sinusoidal | rope
std::string positionalChoiceName(PositionalChoice choice);

// --scope: which heads are compared.
struct EquivarianceScope {
    enum class Kind { Head, Layer, Model };
    Kind kind = Kind::Model;
    HeadRef head;            // Head
    std::int64_t layer = 0;  // Layer
};
Result<EquivarianceScope> parseEquivarianceScope(const std::string &text);   // head:L.H | layer:L | model
std::string equivarianceScopeText(const EquivarianceScope &scope);

struct EquivarianceSettings {
    PermutationSpec permutation;
    PositionalChoice positional = PositionalChoice::Model;
    MaskChoice mask;                      // bidirectional / causal / ... (export.h); Model: the model's own
    EquivarianceScope scope;
    Backend backend = Backend::Auto;
    int threads = 0;
};

struct HeadEquivariance {
    HeadRef head;
    double maxAbsErrWeights = 0.0;   // max_{i,j} |A(PX)[i,j] − A(X)[π i, π j]|
};

struct EquivarianceResult {
    TokenizedText tokens;                    // the unpermuted input [L]
    std::vector<std::int64_t> permutation;   // π [L]
    std::vector<std::int64_t> permutedIds;   // ids of PX [L]
    std::vector<HeadEquivariance> heads;     // the heads in scope, layer-major
    double maxAbsErrWeights = 0.0;           // max over heads in scope
    double maxAbsErrOutputs = 0.0;           // max_{i,d} |Y(PX)[i,d] − Y(X)[π i, d]| (final hidden state)
    double maxAbsErrLogits = -1.0;           // classifier logits (invariance) or LM/MLM logits rows; −1: no head
    bool expectedEquivariant = false;        // no positional information and a bidirectional mask
    PositionKind positionsUsed = PositionKind::None;   // what the passes actually ran with
    std::string maskUsed;                    // "bidirectional", "causal", ...
    std::string modelSpecUsed;               // random: models with --pe sinusoidal/rope: the respecified model
    Backend backendUsed = Backend::Auto;
};

// Two forward passes (X and PX) with the settings; `text` is tokenized by the model. progress in [0, 1];
// cancel returns true to stop (Cancelled status).
Result<EquivarianceResult> runEquivariance(const TextModel &model, const std::string &text,
                                           const EquivarianceSettings &settings, const ProgressFn &progress = {},
                                           const CancelFn &cancel = {});
// The same on given tokens (ids, labels and special flags from a TokenizedText).
Result<EquivarianceResult> runEquivariance(const TextModel &model, const TokenizedText &tokens,
                                           const EquivarianceSettings &settings, const ProgressFn &progress = {},
                                           const CancelFn &cancel = {});

// The equivariance document (docs/json-format.md, docs/schema/equivariance.schema.json), version 1.
std::string equivarianceExportJson(const TextModel &model, const EquivarianceSettings &settings,
                                   const EquivarianceResult &result);

} // namespace attn
