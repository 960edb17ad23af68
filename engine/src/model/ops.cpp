// SPDX-License-Identifier: GPL-3.0-or-later
#include "ops.h"

#include <Eigen/Core>

#include <cmath>

namespace attn::detail {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMat>;
using MutMap = Eigen::Map<RowMat>;

std::vector<float> applyLinear(const float *x, std::int64_t L, const Linear &W)
{
    std::vector<float> y(static_cast<std::size_t>(L * W.out));
    MutMap Y(y.data(), L, W.out);
    Y.noalias() = ConstMap(x, L, W.in) * ConstMap(W.w.data(), W.in, W.out);
    if (!W.b.empty()) Y.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(W.b.data(), W.out);
    return y;
}

void layerNorm(float *x, std::int64_t L, std::int64_t D, const LayerNormWeights &w, float eps)
{
    for (std::int64_t r = 0; r < L; ++r) {
        float *row = x + r * D;
        double mean = 0.0;
        for (std::int64_t i = 0; i < D; ++i) mean += row[i];
        mean /= static_cast<double>(D);
        double var = 0.0;
        for (std::int64_t i = 0; i < D; ++i) var += (row[i] - mean) * (row[i] - mean);
        var /= static_cast<double>(D);
        const double inv = 1.0 / std::sqrt(var + static_cast<double>(eps));
        for (std::int64_t i = 0; i < D; ++i)
            row[i] = static_cast<float>((row[i] - mean) * inv) * w.gamma[static_cast<std::size_t>(i)] +
                     w.beta[static_cast<std::size_t>(i)];
    }
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

void applyNorm(float *x, std::int64_t L, std::int64_t D, const LayerNormWeights &w, NormKind kind, float eps)
{
    if (kind == NormKind::RMSNorm) rmsNorm(x, L, D, w, eps);
    else layerNorm(x, L, D, w, eps);
}

void softcap(float *x, std::size_t n, float cap)
{
    if (cap == 0.0f) return;
    for (std::size_t i = 0; i < n; ++i) x[i] = std::tanh(x[i] / cap) * cap;
}

void activate(float *x, std::size_t n, Activation a)
{
    constexpr float kSqrt2OverPi = 0.7978845608028654f;
    for (std::size_t i = 0; i < n; ++i) {
        const float v = x[i];
        switch (a) {
        case Activation::Gelu: x[i] = 0.5f * v * (1.0f + std::erf(v * 0.7071067811865476f)); break;
        case Activation::GeluNew:
            x[i] = 0.5f * v * (1.0f + std::tanh(kSqrt2OverPi * (v + 0.044715f * v * v * v)));
            break;
        case Activation::GeluFast:
            x[i] = 0.5f * v * (1.0f + std::tanh(v * kSqrt2OverPi * (1.0f + 0.044715f * v * v)));
            break;
        case Activation::QuickGelu: x[i] = v / (1.0f + std::exp(-1.702f * v)); break;
        case Activation::Relu: x[i] = v > 0.0f ? v : 0.0f; break;
        case Activation::Silu: x[i] = v / (1.0f + std::exp(-v)); break;
        case Activation::Tanh: x[i] = std::tanh(v); break;
        }
    }
}

std::vector<float> tiedProjection(const float *h, std::int64_t L, std::int64_t D, const std::vector<float> &E,
                                  std::int64_t V, const std::vector<float> &bias)
{
    std::vector<float> y(static_cast<std::size_t>(L * V));
    MutMap Y(y.data(), L, V);
    Y.noalias() = ConstMap(h, L, D) * ConstMap(E.data(), V, D).transpose();
    if (!bias.empty()) Y.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(bias.data(), V);
    return y;
}

} // namespace attn::detail
