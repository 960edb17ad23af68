// SPDX-License-Identifier: GPL-3.0-or-later
// RoPE frequencies per rope_type (rope.h). Each step mirrors one torch operation on float32 tensors: Python
// numbers are cast to float32 where torch casts them, integer tensors become float32 before they mix with floats.
#include "rope.h"

#include <algorithm>
#include <cmath>

namespace attn::detail {

namespace {

// float32 pow as torch computes it on float32 operands (rounded from the exact double result).
float powf32(float base, float e) { return static_cast<float>(std::pow(static_cast<double>(base), static_cast<double>(e))); }

// torch.arange(0, dim, 2).float() / dim
std::vector<float> exponents(std::int64_t dim)
{
    std::vector<float> e;
    for (std::int64_t k = 0; k < dim; k += 2) e.push_back(static_cast<float>(k) / static_cast<float>(dim));
    return e;
}

// 1.0 / (base ** exponents)
std::vector<float> defaultInvFreq(float base, std::int64_t dim)
{
    std::vector<float> inv;
    for (float e : exponents(dim)) inv.push_back(1.0f / powf32(base, e));
    return inv;
}

double mscale(double scale, double m = 1.0) { return scale <= 1.0 ? 1.0 : 0.1 * m * std::log(scale) + 1.0; }

RopeFrequencies yarn(const RopeConfig &r, std::int64_t dim)
{
    RopeFrequencies out;
    const double factor = r.factor, base = r.theta;
    double af = 0.0;
    if (r.attentionFactor) af = *r.attentionFactor;
    else if (r.mscale && r.mscaleAllDim && *r.mscale != 0.0 && *r.mscaleAllDim != 0.0) af = mscale(factor, *r.mscale) / mscale(factor, *r.mscaleAllDim);
    else af = mscale(factor);
    out.attentionFactor = static_cast<float>(af);

    const auto correctionDim = [&](double rotations) {
        return (static_cast<double>(dim) * std::log(static_cast<double>(r.originalMaxPositions) / (rotations * 2.0 * M_PI))) /
               (2.0 * std::log(base));
    };
    double low = correctionDim(r.betaFast), high = correctionDim(r.betaSlow);
    if (r.truncate) {
        low = std::floor(low);
        high = std::ceil(high);
    }
    low = std::max(low, 0.0);
    high = std::min(high, static_cast<double>(dim - 1));
    if (low == high) high += 0.001;   // linear_ramp_factor's guard against a zero range

    const float baseF = static_cast<float>(base), factorF = static_cast<float>(factor);
    const float lowF = static_cast<float>(low), rangeF = static_cast<float>(high - low);
    const std::vector<float> e = exponents(dim);
    for (std::size_t k = 0; k < e.size(); ++k) {
        const float posFreq = powf32(baseF, e[k]);
        const float extrapolation = 1.0f / posFreq;
        const float interpolation = 1.0f / (factorF * posFreq);
        const float ramp = std::clamp((static_cast<float>(k) - lowF) / rangeF, 0.0f, 1.0f);
        const float extrapolationFactor = 1.0f - ramp;
        out.invFreq.push_back(interpolation * (1.0f - extrapolationFactor) + extrapolation * extrapolationFactor);
    }
    return out;
}

RopeFrequencies longrope(const RopeConfig &r, std::int64_t dim, std::int64_t maxPositions, std::int64_t length)
{
    RopeFrequencies out;
    const double lo = static_cast<double>(r.originalMaxPositions);
    const double factor = r.factor > 0.0 ? r.factor : static_cast<double>(maxPositions) / lo;
    const double af = r.attentionFactor ? *r.attentionFactor
                                        : (factor <= 1.0 ? 1.0 : std::sqrt(1.0 + std::log(factor) / std::log(lo)));
    out.attentionFactor = static_cast<float>(af);
    const std::vector<double> &ext = length > r.originalMaxPositions ? r.longFactor : r.shortFactor;
    const float baseF = static_cast<float>(r.theta);
    const std::vector<float> e = exponents(dim);
    for (std::size_t k = 0; k < e.size(); ++k)
        out.invFreq.push_back(1.0f / (static_cast<float>(ext[k]) * powf32(baseF, e[k])));
    return out;
}

RopeFrequencies llama3(const RopeConfig &r, std::int64_t dim)
{
    RopeFrequencies out;
    const std::vector<float> inv = defaultInvFreq(static_cast<float>(r.theta), dim);
    const double old = static_cast<double>(r.originalMaxPositions);
    const float lowWavelen = static_cast<float>(old / r.lowFreqFactor), highWavelen = static_cast<float>(old / r.highFreqFactor);
    const float factor = static_cast<float>(r.factor), low = static_cast<float>(r.lowFreqFactor);
    const float range = static_cast<float>(r.highFreqFactor - r.lowFreqFactor), oldF = static_cast<float>(old);
    const float twoPi = static_cast<float>(2.0 * M_PI);
    for (float f : inv) {
        const float wavelen = twoPi / f;
        const float scaled = wavelen > lowWavelen ? f / factor : f;
        const float smooth = (oldF / wavelen - low) / range;
        const float smoothed = (1.0f - smooth) * scaled / factor + smooth * scaled;
        const bool medium = !(wavelen < highWavelen) && !(wavelen > lowWavelen);
        out.invFreq.push_back(medium ? smoothed : scaled);
    }
    return out;
}

} // namespace

RopeFrequencies ropeFrequencies(const RopeConfig &r, std::int64_t dim, std::int64_t maxPositions, std::int64_t length)
{
    switch (r.type) {
    case RopeType::Default: return {defaultInvFreq(static_cast<float>(r.theta), dim), 1.0f};
    case RopeType::Linear: {
        RopeFrequencies out{defaultInvFreq(static_cast<float>(r.theta), dim), 1.0f};
        for (float &f : out.invFreq) f /= static_cast<float>(r.factor);
        return out;
    }
    case RopeType::Dynamic: {
        if (length <= maxPositions) return {defaultInvFreq(static_cast<float>(r.theta), dim), 1.0f};
        // seq_len is a tensor here, so the new base is computed in float32.
        float t = static_cast<float>(r.factor) * static_cast<float>(length);
        t = t / static_cast<float>(maxPositions);
        t = t - static_cast<float>(r.factor - 1.0);
        t = powf32(t, static_cast<float>(static_cast<double>(dim) / static_cast<double>(dim - 2)));
        const float base = static_cast<float>(r.theta) * t;
        return {defaultInvFreq(base, dim), 1.0f};
    }
    case RopeType::Yarn: return yarn(r, dim);
    case RopeType::LongRope: return longrope(r, dim, maxPositions, length);
    case RopeType::Llama3: return llama3(r, dim);
    }
    return {};
}

RopeTable ropeTable(const RopeFrequencies &f, std::int64_t length)
{
    RopeTable t;
    t.half = static_cast<std::int64_t>(f.invFreq.size());
    t.cos.resize(static_cast<std::size_t>(length * t.half));
    t.sin.resize(t.cos.size());
    for (std::int64_t p = 0; p < length; ++p)
        for (std::int64_t k = 0; k < t.half; ++k) {
            const float theta = static_cast<float>(p) * f.invFreq[static_cast<std::size_t>(k)];
            const auto i = static_cast<std::size_t>(p * t.half + k);
            t.cos[i] = std::cos(theta) * f.attentionFactor;
            t.sin[i] = std::sin(theta) * f.attentionFactor;
        }
    return t;
}

void applyRopeTable(float *x, std::int64_t length, std::int64_t heads, std::int64_t dHead, const RopeTable &t)
{
    const std::int64_t half = t.half;
    for (std::int64_t p = 0; p < length; ++p) {
        const float *c = t.cos.data() + p * half, *s = t.sin.data() + p * half;
        for (std::int64_t h = 0; h < heads; ++h) {
            float *v = x + (p * heads + h) * dHead;
            for (std::int64_t k = 0; k < half; ++k) {
                const float x1 = v[k], x2 = v[k + half];
                // (x · cos) + (rotate_half(x) · sin), rotate_half([x1, x2]) = [−x2, x1]
                v[k] = x1 * c[k] + (-x2) * s[k];
                v[k + half] = x2 * c[k] + x1 * s[k];
            }
        }
    }
}

} // namespace attn::detail

namespace attn {

std::vector<float> ropeInverseFrequencies(const ModelConfig &c, std::int64_t layer, std::int64_t length,
                                          float *attentionFactor)
{
    if (c.positions != PositionKind::RoPE || c.rotaryDim <= 0) return {};
    const bool local = layer >= 0 && static_cast<std::size_t>(layer) < c.layerAttention.size() &&
                       c.layerAttention[static_cast<std::size_t>(layer)].localRope;
    detail::RopeFrequencies f = detail::ropeFrequencies(local ? c.ropeLocal : c.rope, c.rotaryDim, c.maxPositions, length);
    if (attentionFactor) *attentionFactor = f.attentionFactor;
    return f.invFreq;
}

} // namespace attn
