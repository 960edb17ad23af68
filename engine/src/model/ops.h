// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The dense building blocks of a transformer layer, on row-major fp32 matrices of L rows (one per token).
// `threads` workers, 0 = all hardware threads (cpu/gemm.h, cpu/elementwise.h); the same bits for any thread count.
#include "weights.h"

#include <cstdint>
#include <vector>

namespace attn::detail {

// y [L, out] = x [L, in] · W + b
std::vector<float> applyLinear(const float *x, std::int64_t L, const Linear &W, int threads = 1);
// In place, per row: (x - mean) / sqrt(var + eps) · gamma + beta (biased variance, two fp32 passes).
void layerNorm(float *x, std::int64_t L, std::int64_t D, const LayerNormWeights &w, float eps, int threads = 1);
// In place, per row: x · rsqrt(mean(x²) + eps) · gamma, the float32 steps of LlamaRMSNorm (mean accumulated in
// double; Gemma's 1 + w is already in gamma).
void rmsNorm(float *x, std::int64_t L, std::int64_t D, const LayerNormWeights &w, float eps);
// LayerNorm or RMSNorm by the model's kind.
void applyNorm(float *x, std::int64_t L, std::int64_t D, const LayerNormWeights &w, NormKind kind, float eps,
               int threads = 1);
// In place: x ← cap · tanh(x / cap) (Gemma 2's final_logit_softcapping); cap 0 leaves x alone.
void softcap(float *x, std::size_t n, float cap);
// In place, elementwise: transformers' ACT2FN definitions.
void activate(float *x, std::size_t n, Activation a, int threads = 1);
// logits [L, V] = h [L, D] · Eᵀ (+ bias) for an embedding-shaped matrix E [V, D].
std::vector<float> tiedProjection(const float *h, std::int64_t L, std::int64_t D, const std::vector<float> &E,
                                  std::int64_t V, const std::vector<float> &bias, int threads = 1);

} // namespace attn::detail
