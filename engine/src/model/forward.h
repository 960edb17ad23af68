// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include "rope.h"
#include "weights.h"

namespace attn::detail {

// The state of one forward pass, shared by the block loop (forward.cpp) and the attention sublayer
// (attentionlayer.cpp).
struct ForwardContext {
    const ModelWeights &w;
    const ForwardInput &in;
    const ForwardOptions &opt;
    std::int64_t L = 0;
    ForwardResult &result;
    std::vector<std::vector<std::size_t>> capturesByLayer;   // indices into result.heads
    RopeTable rope, ropeLocal;                               // cos/sin for this length (checkpoint RoPE models)
};

// The forward pass proper; the input and options have been validated (Model::validate).
Result<ForwardResult> runForward(const ModelWeights &w, const ForwardInput &in, const ForwardOptions &opt);

// The mask layer `layer` runs with: the model's structure (causal, the layer's sliding window) or the override,
// plus padding and key knockouts.
MaskSpec layerMask(const ForwardContext &ctx, std::int64_t layer);
// The attention sublayer: x [L, D] → W_O · concat_h(attention_h) + b_O, with captures and interventions.
Result<std::vector<float>> attentionLayer(ForwardContext &ctx, std::int64_t layer, const float *x);

} // namespace attn::detail
