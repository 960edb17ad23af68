// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Rotary position embeddings as transformers computes them (modeling_rope_utils.py, pinned version), in float32
// step by step so that inv_freq matches bit for bit where the platform's pow and cos are correctly rounded:
// at position 4096 one ulp of p·inv_freq is already ~5e-4 rad (reference/models-and-tokenizers.md §1.5).
#include <attnscope/modelconfig.h>

#include <cstdint>
#include <vector>

namespace attn::detail {

struct RopeFrequencies {
    std::vector<float> invFreq;     // [rotaryDim / 2]
    float attentionFactor = 1.0f;   // multiplies cos and sin (yarn, longrope)
};

// The frequencies a forward pass over `length` tokens (positions 0 .. length − 1) uses. Dynamic and longrope
// depend on the length: dynamic grows the base once length > maxPositions; longrope switches to long_factor
// once length > originalMaxPositions. Each forward pass is a fresh start (transformers' cached growth within
// one model instance is not modelled: the engine has no state between passes).
RopeFrequencies ropeFrequencies(const RopeConfig &rope, std::int64_t rotaryDim, std::int64_t maxPositions,
                                std::int64_t length);

// cos and sin [length, rotaryDim / 2] for positions 0 .. length − 1 (each half of emb = cat(freqs, freqs)).
struct RopeTable {
    std::int64_t half = 0;
    std::vector<float> cos, sin;
};
RopeTable ropeTable(const RopeFrequencies &f, std::int64_t length);

// In place on x [length, heads · dHead] (row-major, heads contiguous): rotate-half on the first 2·half
// dimensions of each head, x' = x·cos + rotate_half(x)·sin; the other dimensions pass through (partial rotary).
void applyRopeTable(float *x, std::int64_t length, std::int64_t heads, std::int64_t dHead, const RopeTable &t);

} // namespace attn::detail
