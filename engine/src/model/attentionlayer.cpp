// SPDX-License-Identifier: GPL-3.0-or-later
// The attention sublayer of every family: projections, QK-norm, RoPE, the layer's mask (causal, sliding window,
// padding, knockouts), attn::attention (so every backend serves models, grouped-query attention included), and
// the captures and interventions applied per head between the attention kernel and the output projection.
#include "forward.h"

#include "ops.h"
#include "rng.h"

#include <attnscope/mha.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn::detail {

namespace {

// Replaces each row of P [L, L] by a permutation of its allowed entries, or by the uniform distribution over them.
void overrideWeights(std::vector<float> &P, const HeadOverride &o, const MaskSpec &mask, std::int64_t layer,
                     std::int64_t L)
{
    std::vector<std::int64_t> allowed;
    for (std::int64_t i = 0; i < L; ++i) {
        float *row = P.data() + i * L;
        allowed.clear();
        for (std::int64_t j = 0; j < L; ++j)
            if (maskBias(mask, 0, o.head.head, i, j, L, L) != -std::numeric_limits<float>::infinity()) allowed.push_back(j);
        if (allowed.empty()) continue;
        if (o.kind == HeadOverride::Kind::Uniform) {
            const float u = 1.0f / static_cast<float>(allowed.size());
            for (std::int64_t j : allowed) row[j] = u;
            continue;
        }
        // Fisher–Yates on the allowed positions, seeded per (seed, layer, head, row) so rows differ.
        SplitMix64 rng(o.seed ^ (static_cast<std::uint64_t>(layer) << 48) ^ (static_cast<std::uint64_t>(o.head.head) << 32) ^
                       static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull);
        std::vector<float> values;
        for (std::int64_t j : allowed) values.push_back(row[j]);
        for (std::size_t k = values.size(); k > 1; --k) std::swap(values[k - 1], values[rng.next() % k]);
        for (std::size_t k = 0; k < allowed.size(); ++k) row[allowed[k]] = values[k];
    }
}

// Q (or K) [L, heads·dHead] for capture: [1, H, L, dHead], K/V heads repeated per query head (repeat_kv).
Tensor perQueryHead(const MutableTensorView &src, std::int64_t H, std::int64_t L, std::int64_t dh)
{
    const std::int64_t group = H / src.shape[1];
    Tensor t({1, H, L, dh});
    for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t i = 0; i < L; ++i)
            for (std::int64_t d = 0; d < dh; ++d) t.view().at(0, h, i, d) = src.at(0, h / group, i, d);
    return t;
}

} // namespace

MaskSpec layerMask(const ForwardContext &ctx, std::int64_t layer)
{
    const ModelConfig &c = ctx.w.config;
    MaskSpec mask = ctx.opt.maskOverride ? *ctx.opt.maskOverride : (c.causal ? MaskSpec::causalMask() : MaskSpec{});
    // Hugging Face's sliding_window W = W keys including the query = the engine's window W − 1 with causal.
    if (!ctx.opt.maskOverride && layerWindow(c, layer) > 0) mask.window = layerWindow(c, layer) - 1;
    const auto L = static_cast<std::size_t>(ctx.L);
    std::vector<std::uint8_t> keyValid = mask.keyValid.size() == L ? mask.keyValid : std::vector<std::uint8_t>(L, 1);
    bool anyMasked = !mask.keyValid.empty();
    for (std::size_t j = 0; j < ctx.in.attentionMask.size(); ++j)
        if (!ctx.in.attentionMask[j]) keyValid[j] = 0, anyMasked = true;
    for (const KeyKnockout &k : ctx.opt.knockouts)
        if (k.layer < 0 || k.layer == layer) keyValid[static_cast<std::size_t>(k.position)] = 0, anyMasked = true;
    if (anyMasked) mask.keyValid = std::move(keyValid);
    if (c.positions == PositionKind::ALiBi && !ctx.opt.dropPositions && mask.alibiSlopes.empty())
        mask.alibiSlopes = alibiSlopes(c.heads);
    return mask;
}

Result<std::vector<float>> attentionLayer(ForwardContext &ctx, std::int64_t layer, const float *x)
{
    const ModelConfig &c = ctx.w.config;
    const Block &b = ctx.w.blocks[static_cast<std::size_t>(layer)];
    const std::int64_t L = ctx.L, H = c.heads, Hkv = c.kvHeads, dh = c.dHead, group = H / Hkv;

    // Projections are [L, heads·dHead] = [1, L, heads, dHead]: seen as [1, heads, L, dHead] without a copy.
    const int T = ctx.opt.threads;
    std::vector<float> Q = applyLinear(x, L, b.q, T), K = applyLinear(x, L, b.k, T), V = applyLinear(x, L, b.v, T);
    if (c.qkNorm) {
        // Per head over dHead, before RoPE (Qwen3Attention, Gemma3Attention).
        applyNorm(Q.data(), L * H, dh, b.qNorm, NormKind::RMSNorm, c.layerNormEps);
        applyNorm(K.data(), L * Hkv, dh, b.kNorm, NormKind::RMSNorm, c.layerNormEps);
    }
    const auto qv = MutableTensorView::fromBLHD(Q.data(), 1, L, H, dh);
    const auto kv = MutableTensorView::fromBLHD(K.data(), 1, L, Hkv, dh);
    const auto vv = MutableTensorView::fromBLHD(V.data(), 1, L, Hkv, dh);
    if (c.positions == PositionKind::RoPE && !ctx.opt.dropPositions) {
        if (c.architecture == Architecture::Synthetic) {
            applyRope(qv);   // raw experiments: the engine's RoPE (mha.h), as multiHeadAttention applies it
            applyRope(kv);
        } else {
            const bool local = c.layerAttention.size() > static_cast<std::size_t>(layer) &&
                               c.layerAttention[static_cast<std::size_t>(layer)].localRope;
            const RopeTable &table = local ? ctx.ropeLocal : ctx.rope;
            applyRopeTable(Q.data(), L, H, dh, table);
            applyRopeTable(K.data(), L, Hkv, dh, table);
        }
    }
    const MaskSpec mask = layerMask(ctx, layer);
    const float scale = attentionScale(c, layer);
    if (ctx.opt.stopAtLayer == layer) {
        AttentionInputs &in = ctx.result.attentionInputs;
        in.layer = layer;
        in.length = L;
        in.heads = H;
        in.kvHeads = Hkv;
        in.dHead = dh;
        in.q = std::move(Q);
        in.k = std::move(K);
        in.v = std::move(V);
        in.mask = mask;
        in.scale = scale;
        in.softcap = c.attnSoftcap;
        return std::vector<float>{};
    }

    std::vector<HeadIndex> needed;
    const auto need = [&](std::int64_t h) {
        if (std::find(needed.begin(), needed.end(), HeadIndex{0, h}) == needed.end()) needed.push_back({0, h});
    };
    for (std::size_t idx : ctx.capturesByLayer[static_cast<std::size_t>(layer)]) need(ctx.result.heads[idx].head.head);
    for (const HeadOverride &o : ctx.opt.overrides)
        if (o.head.layer == layer) need(o.head.head);

    AttentionOptions ao;
    ao.backend = ctx.opt.backend;
    ao.scale = scale;
    ao.softcap = c.attnSoftcap;   // Gemma 2: on the scaled score, before the mask (as transformers' eager attention)
    ao.weights = needed.empty()                              ? WeightsRequest::none()
                 : static_cast<std::int64_t>(needed.size()) == H ? WeightsRequest::all()
                                                                 : WeightsRequest::only(needed);
    ao.weightsBudgetBytes = ctx.opt.weightsBudgetBytes;
    ao.threads = ctx.opt.threads;
    ao.cancel = ctx.opt.cancel;
    if (ctx.opt.progress) {
        const double layers = static_cast<double>(c.layers);
        ao.progress = [&ctx, layer, layers](double f) { ctx.opt.progress((static_cast<double>(layer) + f) / layers); };
    }
    auto att = attention(qv, kv, vv, mask, ao);
    if (!att) return att.status();
    ctx.result.backend = att->backend;
    MutableTensorView O = att->out.view();   // [1, H, L, dHead]
    const auto weightsOf = [&](std::int64_t h) -> std::vector<float> * {
        for (HeadWeights &hw : att->weights)
            if (hw.index.head == h) return &hw.P;
        return nullptr;
    };

    for (const HeadOverride &o : ctx.opt.overrides) {
        if (o.head.layer != layer) continue;
        std::vector<float> &P = *weightsOf(o.head.head);
        overrideWeights(P, o, mask, layer, L);
        const std::int64_t g = o.head.head / group;
        for (std::int64_t i = 0; i < L; ++i)
            for (std::int64_t d = 0; d < dh; ++d) {
                double acc = 0.0;
                for (std::int64_t j = 0; j < L; ++j) acc += static_cast<double>(P[static_cast<std::size_t>(i * L + j)]) * vv.at(0, g, j, d);
                O.at(0, o.head.head, i, d) = static_cast<float>(acc);
            }
    }
    for (const HeadAblation &a : ctx.opt.ablations) {
        if (a.head.layer != layer) continue;
        const std::int64_t h = a.head.head;
        if (a.kind == HeadAblation::Kind::Zero) {
            for (std::int64_t i = 0; i < L; ++i)
                for (std::int64_t d = 0; d < dh; ++d) O.at(0, h, i, d) = 0.0f;
            if (std::vector<float> *P = weightsOf(h)) std::fill(P->begin(), P->end(), 0.0f);
            continue;
        }
        std::vector<double> mean(static_cast<std::size_t>(dh), 0.0);
        if (!a.mean.empty()) {
            std::copy(a.mean.begin(), a.mean.end(), mean.begin());
        } else {
            std::int64_t count = 0;
            for (std::int64_t i = 0; i < L; ++i) {
                if (!ctx.in.attentionMask.empty() && !ctx.in.attentionMask[static_cast<std::size_t>(i)]) continue;
                ++count;
                for (std::int64_t d = 0; d < dh; ++d) mean[static_cast<std::size_t>(d)] += O.at(0, h, i, d);
            }
            for (double &m : mean) m /= static_cast<double>(std::max<std::int64_t>(count, 1));
        }
        for (std::int64_t i = 0; i < L; ++i)
            for (std::int64_t d = 0; d < dh; ++d) O.at(0, h, i, d) = static_cast<float>(mean[static_cast<std::size_t>(d)]);
    }

    for (std::size_t idx : ctx.capturesByLayer[static_cast<std::size_t>(layer)]) {
        CapturedHead &cap = ctx.result.heads[idx];
        const std::int64_t h = cap.head.head;
        cap.weights = *weightsOf(h);
        if (ctx.opt.captureScores) {
            cap.scores.assign(static_cast<std::size_t>(L * L), 0.0f);
            for (std::int64_t i = 0; i < L; ++i)
                for (std::int64_t j = 0; j < L; ++j) {
                    double dot = 0.0;
                    for (std::int64_t d = 0; d < dh; ++d) dot += static_cast<double>(qv.at(0, h, i, d)) * kv.at(0, h / group, j, d);
                    float score = static_cast<float>(dot) * scale;
                    if (c.attnSoftcap > 0.0f) score = c.attnSoftcap * std::tanh(score / c.attnSoftcap);
                    cap.scores[static_cast<std::size_t>(i * L + j)] = score + maskBias(mask, 0, h, i, j, L, L);
                }
        }
    }
    if (ctx.opt.captureQKV) {
        LayerQKV &dst = ctx.result.qkv[static_cast<std::size_t>(layer)];
        dst.q = perQueryHead(qv, H, L, dh);
        dst.k = perQueryHead(kv, H, L, dh);
        dst.v = perQueryHead(vv, H, L, dh);
    }

    // Heads back to [L, H·dHead], then W_O.
    std::vector<float> concat(static_cast<std::size_t>(L * H * dh));
    for (std::int64_t i = 0; i < L; ++i)
        for (std::int64_t h = 0; h < H; ++h)
            for (std::int64_t d = 0; d < dh; ++d) concat[static_cast<std::size_t>((i * H + h) * dh + d)] = O.at(0, h, i, d);
    return applyLinear(concat.data(), L, b.o, ctx.opt.threads);
}

} // namespace attn::detail
