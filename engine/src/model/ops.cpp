// SPDX-License-Identifier: GPL-3.0-or-later
#include "ops.h"

#include "cpu/elementwise.h"
#include "cpu/gemm.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace attn::detail {

namespace {

// ForwardOptions::threads: 0 means all hardware threads, as for attention().
int workers(int threads)
{
    return threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void addBias(float *y, std::int64_t rows, std::int64_t cols, const std::vector<float> &b)
{
    if (b.empty()) return;
    for (std::int64_t r = 0; r < rows; ++r) {
        float *row = y + r * cols;
        for (std::int64_t c = 0; c < cols; ++c) row[c] += b[static_cast<std::size_t>(c)];
    }
}

} // namespace

std::vector<float> applyLinear(const float *x, std::int64_t L, const Linear &W, int threads)
{
    std::vector<float> y(static_cast<std::size_t>(L * W.out));
    gemm(false, L, W.out, W.in, x, W.in, W.w.data(), W.out, y.data(), W.out, 0.0f, workers(threads));
    addBias(y.data(), L, W.out, W.b);
    return y;
}

void layerNorm(float *x, std::int64_t L, std::int64_t D, const LayerNormWeights &w, float eps, int threads)
{
    layerNorm(x, L, D, D, w.gamma.data(), w.beta.empty() ? nullptr : w.beta.data(), eps, x, D, workers(threads));
}

void rmsNorm(float *x, std::int64_t L, std::int64_t D, const LayerNormWeights &w, float eps)
{
    for (std::int64_t r = 0; r < L; ++r) {
        float *row = x + r * D;
        double ss = 0.0;
        for (std::int64_t i = 0; i < D; ++i) ss += static_cast<double>(row[i]) * row[i];
        const float variance = static_cast<float>(ss / static_cast<double>(D));
        const float inv = static_cast<float>(1.0 / std::sqrt(static_cast<double>(variance + eps)));
        for (std::int64_t i = 0; i < D; ++i) row[i] = w.gamma[static_cast<std::size_t>(i)] * (row[i] * inv);
    }
}

void applyNorm(float *x, std::int64_t L, std::int64_t D, const LayerNormWeights &w, NormKind kind, float eps,
               int threads)
{
    if (kind == NormKind::RMSNorm) rmsNorm(x, L, D, w, eps);
    else layerNorm(x, L, D, w, eps, threads);
}

void softcap(float *x, std::size_t n, float cap)
{
    if (cap == 0.0f) return;
    for (std::size_t i = 0; i < n; ++i) x[i] = std::tanh(x[i] / cap) * cap;
}

void activate(float *x, std::size_t n, Activation a, int threads)
{
    const auto count = static_cast<std::int64_t>(n);
    switch (a) {
    case Activation::Gelu: geluErf(x, x, count, workers(threads)); return;
    case Activation::GeluNew:    // tanh(√(2/π)(v + 0.044715 v³)); GeluFast is the same function, factored
    case Activation::GeluFast: geluTanh(x, x, count, workers(threads)); return;
    case Activation::Silu: silu(x, x, count, workers(threads)); return;
    default: break;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const float v = x[i];
        switch (a) {
        case Activation::QuickGelu: x[i] = v / (1.0f + std::exp(-1.702f * v)); break;
        case Activation::Relu: x[i] = v > 0.0f ? v : 0.0f; break;
        case Activation::Tanh: x[i] = std::tanh(v); break;
        default: break;
        }
    }
}

std::vector<float> tiedProjection(const float *h, std::int64_t L, std::int64_t D, const std::vector<float> &E,
                                  std::int64_t V, const std::vector<float> &bias, int threads)
{
    std::vector<float> y(static_cast<std::size_t>(L * V));
    gemm(true, L, V, D, h, D, E.data(), D, y.data(), V, 0.0f, workers(threads));
    addBias(y.data(), L, V, bias);
    return y;
}

} // namespace attn::detail
