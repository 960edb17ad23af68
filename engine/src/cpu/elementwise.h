// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Vectorised elementwise kernels for the model's forward pass (internal; namespace attn::detail), each within a
// few ulp of the double-precision definition (tst_kernels checks them against scalar double versions):
//
//   geluErf    y = x/2 · (1 + erf(x/√2))                          BERT's "gelu"
//   geluTanh   y = x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³)))   GPT-2's "gelu_new"
//   silu       y = x / (1 + e^-x)                                  LLaMA's MLP gate
//   expNonPositive  y = e^x for x <= 0 (simd/exp.h; 0 below -86.5 and for -inf), the kernels' exp
//   layerNorm  y = (x − mean) / sqrt(var + eps) · gamma + beta     per row; biased variance; beta may be null
//   rmsNorm    y = x / sqrt(mean(x²) + eps) · (gamma + offset)    per row; offset 1 for Gemma's (1 + w)
//   softmax    y = exp(x − max) / Σ exp(x − max)                   per row, in place; -inf entries give 0, a row of
//                                                                   only -inf gives 0 (never NaN)
// Rows are [rows, cols] with row strides ldx / ldy (elements); y may be x (in place). Norm statistics are fp32
// with a fixed summation order (8 partial sums per vector lane, then pairwise): the same bits whatever the thread
// count. `threads` splits rows (norms, softmax) or fixed 16384-element chunks (activations).

#include <cstdint>

namespace attn::detail {

void geluErf(const float *x, float *y, std::int64_t n, int threads = 1);
void geluTanh(const float *x, float *y, std::int64_t n, int threads = 1);
void silu(const float *x, float *y, std::int64_t n, int threads = 1);
void expNonPositive(const float *x, float *y, std::int64_t n, int threads = 1);
void layerNorm(const float *x, std::int64_t rows, std::int64_t cols, std::int64_t ldx, const float *gamma,
               const float *beta, float eps, float *y, std::int64_t ldy, int threads = 1);
void rmsNorm(const float *x, std::int64_t rows, std::int64_t cols, std::int64_t ldx, const float *gamma,
             float offset, float eps, float *y, std::int64_t ldy, int threads = 1);
void softmaxRows(float *x, std::int64_t rows, std::int64_t cols, std::int64_t ldx, int threads = 1);

} // namespace attn::detail
