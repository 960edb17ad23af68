// SPDX-License-Identifier: GPL-3.0-or-later
// The forward pass with hooks: one sequence, layer by layer, the attention of each layer through attn::attention
// (so every backend serves models), with captures and interventions applied per head between the attention
// kernel and the output projection.
#include "forward.h"

#include "ops.h"
#include "rng.h"

#include <attnscope/mha.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn::detail {

namespace {

struct Context {
    const ModelWeights &w;
    const ForwardInput &in;
    const ForwardOptions &opt;
    std::int64_t L = 0;
    ForwardResult &result;
    std::vector<std::vector<std::size_t>> capturesByLayer;   // indices into result.heads
};

float attentionScale(const ModelConfig &c, std::int64_t layer)
{
    float scale = c.scaleAttnWeights ? 1.0f / std::sqrt(static_cast<float>(c.dHead)) : 1.0f;
    if (c.scaleAttnByInverseLayerIdx) scale /= static_cast<float>(layer + 1);
    return scale;
}

MaskSpec layerMask(const Context &ctx, std::int64_t layer)
{
    const ModelConfig &c = ctx.w.config;
    MaskSpec mask = ctx.opt.maskOverride ? *ctx.opt.maskOverride : (c.causal ? MaskSpec::causalMask() : MaskSpec{});
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

// The attention sublayer: x [L, D] → W_O · concat_h(attention_h) + b_O, with hooks.
Result<std::vector<float>> attentionLayer(Context &ctx, std::int64_t layer, const float *x)
{
    const ModelConfig &c = ctx.w.config;
    const Block &b = ctx.w.blocks[static_cast<std::size_t>(layer)];
    const std::int64_t L = ctx.L, H = c.heads, dh = c.dHead;

    // Projections are [L, H·dHead] = [1, L, H, dHead]: seen as [1, H, L, dHead] without a copy.
    const int T = ctx.opt.threads;
    std::vector<float> Q = applyLinear(x, L, b.q, T), K = applyLinear(x, L, b.k, T), V = applyLinear(x, L, b.v, T);
    const auto qv = MutableTensorView::fromBLHD(Q.data(), 1, L, H, dh);
    const auto kv = MutableTensorView::fromBLHD(K.data(), 1, L, H, dh);
    const auto vv = MutableTensorView::fromBLHD(V.data(), 1, L, H, dh);
    if (c.positions == PositionKind::RoPE && !ctx.opt.dropPositions) {
        applyRope(qv);
        applyRope(kv);
    }
    const MaskSpec mask = layerMask(ctx, layer);
    const float scale = attentionScale(c, layer);

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
        for (std::int64_t i = 0; i < L; ++i)
            for (std::int64_t d = 0; d < dh; ++d) {
                double acc = 0.0;
                for (std::int64_t j = 0; j < L; ++j) acc += static_cast<double>(P[static_cast<std::size_t>(i * L + j)]) * vv.at(0, o.head.head, j, d);
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
                    for (std::int64_t d = 0; d < dh; ++d) dot += static_cast<double>(qv.at(0, h, i, d)) * kv.at(0, h, j, d);
                    cap.scores[static_cast<std::size_t>(i * L + j)] =
                        static_cast<float>(dot) * scale + maskBias(mask, 0, h, i, j, L, L);
                }
        }
    }
    if (ctx.opt.captureQKV) {
        LayerQKV &dst = ctx.result.qkv[static_cast<std::size_t>(layer)];
        for (auto [t, src] : {std::pair{&dst.q, &qv}, std::pair{&dst.k, &kv}, std::pair{&dst.v, &vv}}) {
            *t = Tensor({1, H, L, dh});
            for (std::int64_t h = 0; h < H; ++h)
                for (std::int64_t i = 0; i < L; ++i)
                    for (std::int64_t d = 0; d < dh; ++d) t->view().at(0, h, i, d) = src->at(0, h, i, d);
        }
    }

    // Heads back to [L, H·dHead], then W_O.
    std::vector<float> concat(static_cast<std::size_t>(L * H * dh));
    for (std::int64_t i = 0; i < L; ++i)
        for (std::int64_t h = 0; h < H; ++h)
            for (std::int64_t d = 0; d < dh; ++d) concat[static_cast<std::size_t>((i * H + h) * dh + d)] = O.at(0, h, i, d);
    return applyLinear(concat.data(), L, b.o, ctx.opt.threads);
}

void addInPlace(std::vector<float> &x, const std::vector<float> &y)
{
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += y[i];
}

// Token (or given) embeddings plus learned / sinusoidal positions and token types: [L, D].
std::vector<float> embed(const Context &ctx)
{
    const ModelWeights &w = ctx.w;
    const ModelConfig &c = w.config;
    const std::int64_t L = ctx.L, D = c.dModel;
    std::vector<float> x;
    if (!ctx.in.inputEmbeddings.empty()) {
        x = ctx.in.inputEmbeddings;
    } else {
        x.resize(static_cast<std::size_t>(L * D));
        for (std::int64_t p = 0; p < L; ++p)
            std::copy_n(w.tokenEmbedding.begin() + ctx.in.tokenIds[static_cast<std::size_t>(p)] * D, D, x.begin() + p * D);
    }
    for (std::int64_t p : ctx.opt.zeroEmbeddings) std::fill_n(x.begin() + p * D, D, 0.0f);
    if (!ctx.opt.dropPositions) {
        if (c.positions == PositionKind::Learned)
            for (std::int64_t i = 0; i < L * D; ++i) x[static_cast<std::size_t>(i)] += w.positionEmbedding[static_cast<std::size_t>(i)];
        else if (c.positions == PositionKind::Sinusoidal)
            addSinusoidal(x.data(), 1, L, D);
    }
    if (!w.typeEmbedding.empty())
        for (std::int64_t p = 0; p < L; ++p) {
            const std::int64_t t = ctx.in.tokenTypeIds.empty() ? 0 : ctx.in.tokenTypeIds[static_cast<std::size_t>(p)];
            for (std::int64_t d = 0; d < D; ++d) x[static_cast<std::size_t>(p * D + d)] += w.typeEmbedding[static_cast<std::size_t>(t * D + d)];
        }
    return x;
}

} // namespace

Result<ForwardResult> runForward(const ModelWeights &w, const ForwardInput &in, const ForwardOptions &opt)
{
    const ModelConfig &c = w.config;
    ForwardResult result;
    Context ctx{w, in, opt, 0, result, {}};
    ctx.L = !in.inputEmbeddings.empty() ? static_cast<std::int64_t>(in.inputEmbeddings.size()) / c.dModel
                                        : static_cast<std::int64_t>(in.tokenIds.size());
    const std::int64_t L = ctx.L, D = c.dModel;
    result.length = L;
    result.head = c.head;

    ctx.capturesByLayer.resize(static_cast<std::size_t>(c.layers));
    if (opt.weightsMode == WeightsRequest::Mode::All) {
        for (std::int64_t l = 0; l < c.layers; ++l)
            for (std::int64_t h = 0; h < c.heads; ++h) result.heads.push_back({{l, h}, {}, {}});
    } else if (opt.weightsMode == WeightsRequest::Mode::Heads) {
        for (const HeadRef &r : opt.weightHeads) result.heads.push_back({r, {}, {}});
    }
    for (std::size_t i = 0; i < result.heads.size(); ++i)
        ctx.capturesByLayer[static_cast<std::size_t>(result.heads[i].head.layer)].push_back(i);
    if (opt.captureQKV) result.qkv.resize(static_cast<std::size_t>(c.layers));

    const auto record = [&](const std::vector<float> &h) {
        if (opt.captureHiddenStates) result.hiddenStates.push_back(h);
    };
    const auto cancelled = [&] { return opt.cancel && opt.cancel(); };

    std::vector<float> x = embed(ctx);
    const bool postLN = c.architecture == Architecture::Bert;
    if (postLN) layerNorm(x.data(), L, D, w.embeddingNorm, c.layerNormEps, opt.threads);
    record(x);

    for (std::int64_t l = 0; l < c.layers; ++l) {
        if (cancelled()) return Status::cancelled();
        const Block &b = w.blocks[static_cast<std::size_t>(l)];
        if (postLN) {
            auto a = attentionLayer(ctx, l, x.data());
            if (!a) return a.status();
            addInPlace(x, *a);
            layerNorm(x.data(), L, D, b.ln1, c.layerNormEps, opt.threads);
            std::vector<float> m = applyLinear(x.data(), L, b.fc1, opt.threads);
            activate(m.data(), m.size(), c.activation, opt.threads);
            addInPlace(x, applyLinear(m.data(), L, b.fc2, opt.threads));
            layerNorm(x.data(), L, D, b.ln2, c.layerNormEps, opt.threads);
            record(x);
        } else {
            std::vector<float> h = x;
            layerNorm(h.data(), L, D, b.ln1, c.layerNormEps, opt.threads);
            auto a = attentionLayer(ctx, l, h.data());
            if (!a) return a.status();
            addInPlace(x, *a);
            if (!b.fc1.w.empty()) {
                h = x;
                layerNorm(h.data(), L, D, b.ln2, c.layerNormEps, opt.threads);
                std::vector<float> m = applyLinear(h.data(), L, b.fc1, opt.threads);
                activate(m.data(), m.size(), c.activation, opt.threads);
                addInPlace(x, applyLinear(m.data(), L, b.fc2, opt.threads));
            }
            // transformers records each block's input; the last entry is the final norm's output (below).
            if (l + 1 < c.layers) record(x);
        }
    }
    if (cancelled()) return Status::cancelled();
    if (!postLN) {
        layerNorm(x.data(), L, D, w.finalNorm, c.layerNormEps, opt.threads);
        record(x);
    }

    if (!w.pooler.w.empty()) {
        result.pooled = applyLinear(x.data(), 1, w.pooler);   // the first token ([CLS])
        for (float &v : result.pooled) v = std::tanh(v);
    }
    if (opt.computeLogits) {
        switch (c.head) {
        case ModelHead::None: break;
        case ModelHead::CausalLM:
            result.logits = tiedProjection(x.data(), L, D, w.lmHead.empty() ? w.tokenEmbedding : w.lmHead,
                                           c.vocabSize, {}, opt.threads);
            break;
        case ModelHead::MaskedLM: {
            std::vector<float> t = applyLinear(x.data(), L, w.mlmTransform, opt.threads);
            activate(t.data(), t.size(), c.activation, opt.threads);
            layerNorm(t.data(), L, D, w.mlmNorm, c.layerNormEps, opt.threads);
            result.logits = tiedProjection(t.data(), L, D, w.lmHead.empty() ? w.tokenEmbedding : w.lmHead,
                                           c.vocabSize, w.lmBias, opt.threads);
            break;
        }
        case ModelHead::Classification: result.logits = applyLinear(result.pooled.data(), 1, w.classifier); break;
        }
    }
    result.lastHidden = std::move(x);
    if (opt.progress) opt.progress(1.0);
    return result;
}

} // namespace attn::detail
