// SPDX-License-Identifier: GPL-3.0-or-later
// The forward pass with hooks: one sequence, layer by layer, one block for every family parameterised by
// ModelConfig (post-norm encoders; pre-norm decoders with optional sandwich norms, parallel residual, gated MLP),
// then the output head. The attention sublayer is attentionlayer.cpp.
#include "forward.h"

#include "ops.h"

#include <attnscope/mha.h>

#include <algorithm>
#include <cmath>

namespace attn::detail {

namespace {

void addInPlace(std::vector<float> &x, const std::vector<float> &y)
{
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += y[i];
}

// Position ids: 0 .. L − 1, or RoBERTa's create_position_ids_from_input_ids (padding tokens get padding_idx,
// the others padding_idx + 1, + 2, ... in order).
std::vector<std::int64_t> positionIds(const ForwardContext &ctx)
{
    const ModelConfig &c = ctx.w.config;
    std::vector<std::int64_t> pos(static_cast<std::size_t>(ctx.L));
    for (std::int64_t i = 0; i < ctx.L; ++i) pos[static_cast<std::size_t>(i)] = i + c.positionOffset;
    if (c.positionOffset > 0 && !ctx.in.tokenIds.empty() && c.padTokenId) {
        std::int64_t count = 0;
        for (std::size_t i = 0; i < pos.size(); ++i)
            pos[i] = ctx.in.tokenIds[i] == *c.padTokenId ? *c.padTokenId : *c.padTokenId + ++count;
    }
    return pos;
}

// Token (or given) embeddings, scaled (Gemma), plus learned / sinusoidal positions and token types: [L, D].
std::vector<float> embed(const ForwardContext &ctx)
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
        if (c.embeddingScale != 1.0f)
            for (float &v : x) v *= c.embeddingScale;
    }
    for (std::int64_t p : ctx.opt.zeroEmbeddings) std::fill_n(x.begin() + p * D, D, 0.0f);
    if (!ctx.opt.dropPositions) {
        if (c.positions == PositionKind::Learned) {
            const std::vector<std::int64_t> pos = positionIds(ctx);
            for (std::int64_t p = 0; p < L; ++p)
                for (std::int64_t d = 0; d < D; ++d)
                    x[static_cast<std::size_t>(p * D + d)] += w.positionEmbedding[static_cast<std::size_t>(pos[static_cast<std::size_t>(p)] * D + d)];
        } else if (c.positions == PositionKind::Sinusoidal) {
            addSinusoidal(x.data(), 1, L, D);
        }
    }
    if (!w.typeEmbedding.empty())
        for (std::int64_t p = 0; p < L; ++p) {
            const std::int64_t t = ctx.in.tokenTypeIds.empty() ? 0 : ctx.in.tokenTypeIds[static_cast<std::size_t>(p)];
            for (std::int64_t d = 0; d < D; ++d) x[static_cast<std::size_t>(p * D + d)] += w.typeEmbedding[static_cast<std::size_t>(t * D + d)];
        }
    return x;
}

// down(act(gate(h)) · up(h)) or down(act(up(h))).
std::vector<float> mlp(const ModelConfig &c, const Block &b, const float *h, std::int64_t L, int T)
{
    std::vector<float> up = applyLinear(h, L, b.fc1, T);
    if (!b.gate.w.empty()) {
        std::vector<float> gate = applyLinear(h, L, b.gate, T);
        activate(gate.data(), gate.size(), c.activation, T);
        for (std::size_t i = 0; i < up.size(); ++i) up[i] = gate[i] * up[i];
    } else {
        activate(up.data(), up.size(), c.activation, T);
    }
    return applyLinear(up.data(), L, b.fc2, T);
}

void norm(const ModelConfig &c, std::vector<float> &x, std::int64_t L, const LayerNormWeights &w, int T)
{
    applyNorm(x.data(), L, c.dModel, w, c.norm, c.layerNormEps, T);
}

// One block; records nothing (the caller does).
Status block(ForwardContext &ctx, std::int64_t l, std::vector<float> &x)
{
    const ModelConfig &c = ctx.w.config;
    const Block &b = ctx.w.blocks[static_cast<std::size_t>(l)];
    const std::int64_t L = ctx.L;
    const int T = ctx.opt.threads;
    if (c.postNorm) {   // BERT, RoBERTa, DistilBERT
        auto a = attentionLayer(ctx, l, x.data());
        if (!a || l == ctx.opt.stopAtLayer) return a.status();
        addInPlace(x, *a);
        norm(c, x, L, b.ln1, T);
        addInPlace(x, mlp(c, b, x.data(), L, T));
        norm(c, x, L, b.ln2, T);
        return Status::ok();
    }
    std::vector<float> h = x;
    norm(c, h, L, b.ln1, T);
    auto a = attentionLayer(ctx, l, h.data());
    if (!a || l == ctx.opt.stopAtLayer) return a.status();
    if (c.sandwichNorms) norm(c, *a, L, b.postAttn, T);
    if (b.fc1.w.empty()) {   // synthetic: attention only
        addInPlace(x, *a);
        return Status::ok();
    }
    if (c.parallelResidual) {   // GPT-NeoX: x + attn(LN1(x)) + mlp(LN2(x)), summed as mlp + attn + x
        h = x;
        norm(c, h, L, b.ln2, T);
        std::vector<float> m = mlp(c, b, h.data(), L, T);
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = (m[i] + (*a)[i]) + x[i];
        return Status::ok();
    }
    addInPlace(x, *a);
    h = x;
    norm(c, h, L, b.ln2, T);
    std::vector<float> m = mlp(c, b, h.data(), L, T);
    if (c.sandwichNorms) norm(c, m, L, b.postMlp, T);
    addInPlace(x, m);
    return Status::ok();
}

void outputHead(const ModelWeights &w, const std::vector<float> &x, std::int64_t L, ForwardResult &result, int T)
{
    const ModelConfig &c = w.config;
    const std::int64_t D = c.dModel;
    const std::vector<float> &decoder = w.lmHead.empty() ? w.tokenEmbedding : w.lmHead;
    switch (c.head) {
    case ModelHead::None: break;
    case ModelHead::CausalLM:
        result.logits = tiedProjection(x.data(), L, D, decoder, c.vocabSize, {}, T);
        softcap(result.logits.data(), result.logits.size(), c.finalSoftcap);
        break;
    case ModelHead::MaskedLM: {
        std::vector<float> t = applyLinear(x.data(), L, w.mlmTransform, T);
        activate(t.data(), t.size(), w.mlmActivation, T);
        layerNorm(t.data(), L, D, w.mlmNorm, c.layerNormEps, T);
        result.logits = tiedProjection(t.data(), L, D, decoder, c.vocabSize, w.lmBias, T);
        break;
    }
    case ModelHead::Classification: result.logits = applyLinear(result.pooled.data(), 1, w.classifier); break;
    }
}

} // namespace

Result<ForwardResult> runForward(const ModelWeights &w, const ForwardInput &in, const ForwardOptions &opt)
{
    const ModelConfig &c = w.config;
    ForwardResult result;
    ForwardContext ctx{w, in, opt, 0, result, {}, {}, {}};
    ctx.L = !in.inputEmbeddings.empty() ? static_cast<std::int64_t>(in.inputEmbeddings.size()) / c.dModel
                                        : static_cast<std::int64_t>(in.tokenIds.size());
    const std::int64_t L = ctx.L;
    result.length = L;
    result.head = c.head;
    if (c.positions == PositionKind::RoPE && c.architecture != Architecture::Synthetic) {
        ctx.rope = ropeTable(ropeFrequencies(c.rope, c.rotaryDim, c.maxPositions, L), L);
        if (std::any_of(c.layerAttention.begin(), c.layerAttention.end(), [](const LayerAttention &a) { return a.localRope; }))
            ctx.ropeLocal = ropeTable(ropeFrequencies(c.ropeLocal, c.rotaryDim, c.maxPositions, L), L);
    }

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
    if (c.postNorm) norm(c, x, L, w.embeddingNorm, opt.threads);
    record(x);
    for (std::int64_t l = 0; l < c.layers; ++l) {
        if (cancelled()) return Status::cancelled();
        if (Status s = block(ctx, l, x); !s) return s;
        if (l == opt.stopAtLayer) {   // the layer's attention inputs are in result.attentionInputs
            if (opt.progress) opt.progress(1.0);
            return result;
        }
        // Post-norm: each layer's output. Pre-norm: each block's input; the last entry is the final norm's output.
        if (c.postNorm || l + 1 < c.layers) record(x);
    }
    if (cancelled()) return Status::cancelled();
    if (!c.postNorm) {
        norm(c, x, L, w.finalNorm, opt.threads);
        record(x);
    }

    if (!w.pooler.w.empty()) {
        result.pooled = applyLinear(x.data(), 1, w.pooler);   // the first token ([CLS], <s>)
        activate(result.pooled.data(), result.pooled.size(), w.poolerActivation);
    }
    if (opt.computeLogits) outputHead(w, x, L, result, opt.threads);
    result.lastHidden = std::move(x);
    if (opt.progress) opt.progress(1.0);
    return result;
}

} // namespace attn::detail
