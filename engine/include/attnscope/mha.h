// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Multi-head self-attention with projections and positional information.
//
//   x:  [B, L, dModel] contiguous fp32
//   Wq, Wk, Wv: [dModel, H·dHead] (in × out, y = x W + b)    Wo: [H·dHead, dModel]
//   Q, K, V = x' Wq + bq, ...  split into heads [B, H, L, dHead]
//   positional information:
//     None        nothing: the layer is permutation-equivariant without a causal mask
//     Sinusoidal  x' = x + PE(pos), PE(pos, 2i) = sin(pos / 10000^(2i/dModel)), PE(pos, 2i+1) = cos(...)
//     RoPE        rotate Q and K pairwise by position (rotate-half pairing (i, i + dHead/2), base ropeBase)
//     ALiBi       per-head linear distance bias on the scores (slopes from alibiSlopes(H))
//   y = concat_h(attention(Q_h, K_h, V_h)) Wo + bo      y: [B, L, dModel]

#include <attnscope/attention.h>

#include <cstdint>
#include <vector>

namespace attn {

enum class PositionalEncoding { None, Sinusoidal, RoPE, ALiBi };

std::string positionalName(PositionalEncoding pe);                    // "none", "sinusoidal", "rope", "alibi"
std::optional<PositionalEncoding> parsePositional(const std::string &name);

struct MhaWeights {
    std::int64_t dModel = 0;
    std::int64_t heads = 0;
    std::int64_t dHead = 0;
    std::vector<float> wq, wk, wv;   // [dModel, heads*dHead]
    std::vector<float> bq, bk, bv;   // [heads*dHead] or empty (no bias)
    std::vector<float> wo;           // [heads*dHead, dModel]
    std::vector<float> bo;           // [dModel] or empty

    // Xavier-uniform weights and zero biases from a fixed seed (deterministic across platforms).
    static MhaWeights random(std::int64_t dModel, std::int64_t heads, std::int64_t dHead, std::uint64_t seed);
};

Status validateMha(const MhaWeights &w);

struct MhaOptions {
    PositionalEncoding positional = PositionalEncoding::None;
    float ropeBase = 10000.0f;
    std::int64_t positionOffset = 0;  // position of token 0 (for sinusoidal, RoPE)
    AttentionOptions attention;       // backend, weights request, threads, progress, cancel
};

struct MhaOutput {
    Tensor y;        // [B, 1, L, dModel]: one "head" of width dModel
    Tensor q, k, v;  // [B, H, L, dHead] after positional information (what the scores see)
    AttentionOutput attention;   // per-head outputs [B, H, L, dHead], LSE, requested weights
};

Result<MhaOutput> multiHeadAttention(const float *x, std::int64_t B, std::int64_t L, const MhaWeights &w,
                                     const MaskSpec &mask, const MhaOptions &options = {});

// Helpers shared with models: positional information applied in place.
void addSinusoidal(float *x, std::int64_t B, std::int64_t L, std::int64_t dModel, std::int64_t offset = 0);
void applyRope(MutableTensorView t, float base = 10000.0f, std::int64_t offset = 0);   // t: [B, H, L, dHead]

} // namespace attn
