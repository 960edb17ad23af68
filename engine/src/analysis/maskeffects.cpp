// SPDX-License-Identifier: GPL-3.0-or-later
#include <attnscope/maskeffects.h>

#include <algorithm>
#include <cmath>

namespace attn {

float modelAttentionScale(const ModelConfig &config, std::int64_t layer)
{
    return attentionScale(config, layer);   // the forward pass's own, so that recomputed weights equal captured ones
}

MaskSpec modelMaskStructure(const ModelConfig &config, std::int64_t layer)
{
    MaskSpec m = config.causal ? MaskSpec::causalMask() : MaskSpec::bidirectional();
    if (const std::int64_t w = layerWindow(config, layer); w > 0) m.window = w - 1;   // HF's W keys, the query included
    return m;
}

TensorView headSlice(const Tensor &t, std::int64_t head)
{
    const TensorView all = t.view();
    return TensorView(all.row(0, head, 0), {1, 1, all.shape[2], all.shape[3]},
                      {all.strides[0], all.strides[1], all.strides[2], all.strides[3]});
}

Result<MaskComparison> compareMasks(const TensorView &q, const TensorView &k, const TensorView &v,
                                    const std::vector<MaskVariant> &variants, std::size_t baseline,
                                    const AttentionOptions &options)
{
    if (q.shape[0] != 1 || q.shape[1] != 1)
        return Status::invalid("compareMasks: q must be one head [1, 1, L, dHead], got " + shapeString(q.shape));
    if (variants.empty()) return Status::invalid("compareMasks: no mask variants");
    if (baseline >= variants.size())
        return Status::invalid("compareMasks: baseline " + std::to_string(baseline) + " out of range (" +
                               std::to_string(variants.size()) + " variants)");
    const std::int64_t L = q.shape[2];
    const std::int64_t dv = v.shape[3];
    MaskComparison result;
    result.length = L;
    result.dHead = dv;
    result.baseline = baseline;

    const std::size_t n = variants.size();
    for (std::size_t m = 0; m < n; ++m) {
        AttentionOptions opt = options;
        opt.weights = WeightsRequest::only({HeadIndex{0, 0}});
        if (options.progress)
            opt.progress = [&options, m, n](double f) { options.progress((double(m) + f) / double(n)); };
        auto out = attention(q, k, v, variants[m].mask, opt);
        if (!out) return Status(out.status().code(), "mask “" + variants[m].name + "”: " + out.status().message());
        HeadUnderMask h;
        h.name = variants[m].name;
        h.mask = variants[m].mask;
        h.weights = std::move(out->weights.front().P);
        h.output = std::move(out->out.values);
        h.blocked.resize(std::size_t(L * L));
        for (std::int64_t i = 0; i < L; ++i)
            for (std::int64_t j = 0; j < L; ++j)
                h.blocked[std::size_t(i * L + j)] = std::isinf(maskBias(h.mask, 0, 0, i, j, L, L)) ? 1 : 0;
        result.variants.push_back(std::move(h));
    }

    const HeadUnderMask &base = result.variants[baseline];
    for (HeadUnderMask &h : result.variants) {
        h.weightDiff.resize(h.weights.size());
        for (std::size_t e = 0; e < h.weights.size(); ++e) {
            const double d = double(h.weights[e]) - double(base.weights[e]);
            h.weightDiff[e] = float(d);
            h.maxAbsWeightDiff = std::max(h.maxAbsWeightDiff, std::abs(d));
        }
        h.outputDelta.assign(std::size_t(L), 0.0);
        for (std::int64_t i = 0; i < L; ++i) {
            double s = 0.0;
            for (std::int64_t c = 0; c < dv; ++c) {
                const std::size_t e = std::size_t(i * dv + c);
                const double d = double(h.output[e]) - double(base.output[e]);
                s += d * d;
            }
            h.outputDelta[std::size_t(i)] = std::sqrt(s);
            h.maxOutputDelta = std::max(h.maxOutputDelta, h.outputDelta[std::size_t(i)]);
        }
    }
    return result;
}

namespace {

// Per position: max over the hidden dimension of |a − b|, for the first `rows` rows of two [*, D] matrices.
std::vector<double> rowMaxDiff(const std::vector<float> &a, const std::vector<float> &b, std::int64_t rows,
                               std::int64_t D)
{
    std::vector<double> out(std::size_t(rows), 0.0);
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t c = 0; c < D; ++c) {
            const std::size_t e = std::size_t(i * D + c);
            out[std::size_t(i)] = std::max(out[std::size_t(i)], std::abs(double(a[e]) - double(b[e])));
        }
    return out;
}

void plainOutputs(ForwardOptions &options, const MaskSpec &structure)
{
    options.weightsMode = WeightsRequest::Mode::None;
    options.weightHeads.clear();
    options.captureScores = false;
    options.captureQKV = false;
    options.captureHiddenStates = false;
    options.computeLogits = false;   // the final hidden state decides the logits; it is what we compare
    options.maskOverride = structure;
}

Result<ForwardResult> runStep(const Model &model, const ForwardInput &input, ForwardOptions options,
                              double from, double to)
{
    if (options.progress) {
        ProgressFn outer = options.progress;
        options.progress = [outer, from, to](double f) { outer(from + (to - from) * f); };
    }
    return model.forward(input, options);
}

} // namespace

Result<TokenLeakage> leakageTest(const Model &model, const ForwardInput &input, std::int64_t position,
                                  std::int64_t replacementId, const MaskSpec &structure, ForwardOptions options)
{
    const std::int64_t L = std::int64_t(input.tokenIds.size());
    if (L == 0) return Status::invalid("leakage test: the input has no tokens (token ids are needed)");
    if (position < 0 || position >= L)
        return Status::invalid("leakage test: position " + std::to_string(position) + " is outside the input (" +
                               std::to_string(L) + " tokens)");
    const std::int64_t vocab = model.config().vocabSize;
    const std::int64_t original = input.tokenIds[std::size_t(position)];
    if (replacementId < 0) replacementId = vocab > 1 ? (original + 1) % vocab : original;
    if (replacementId >= vocab)
        return Status::invalid("leakage test: replacement id " + std::to_string(replacementId) +
                               " is outside the vocabulary (" + std::to_string(vocab) + ")");
    plainOutputs(options, structure);

    auto a = runStep(model, input, options, 0.0, 0.5);
    if (!a) return a.status();
    ForwardInput perturbed = input;
    perturbed.tokenIds[std::size_t(position)] = replacementId;
    auto b = runStep(model, perturbed, options, 0.5, 1.0);
    if (!b) return b.status();

    TokenLeakage r;
    r.position = position;
    r.originalId = original;
    r.replacementId = replacementId;
    r.maxDiff = rowMaxDiff(a->lastHidden, b->lastHidden, L, model.config().dModel);
    for (std::int64_t i = 0; i < L; ++i) {
        double &m = i < position ? r.maxDiffBefore : r.maxDiffFromJ;
        m = std::max(m, r.maxDiff[std::size_t(i)]);
    }
    return r;
}

Result<PaddingResult> paddingTest(const Model &model, const ForwardInput &input, std::int64_t padCount,
                                  std::int64_t padId, const MaskSpec &structure, ForwardOptions options)
{
    const ModelConfig &c = model.config();
    const std::int64_t L = std::int64_t(input.tokenIds.size());
    if (L == 0) return Status::invalid("padding test: the input has no tokens (token ids are needed)");
    if (padCount < 1) return Status::invalid("padding test: pad count must be at least 1, got " + std::to_string(padCount));
    if (c.maxPositions > 0 && L + padCount > c.maxPositions)
        return Status::invalid("padding test: " + std::to_string(L) + " tokens + " + std::to_string(padCount) +
                               " padding exceed the model's " + std::to_string(c.maxPositions) + " positions");
    if (padId < 0) padId = c.padTokenId.value_or(c.eosTokenId.value_or(0));
    if (padId >= c.vocabSize)
        return Status::invalid("padding test: pad id " + std::to_string(padId) + " is outside the vocabulary (" +
                               std::to_string(c.vocabSize) + ")");
    plainOutputs(options, structure);

    ForwardInput plain = input;
    plain.attentionMask.clear();
    ForwardInput padded = plain;
    padded.tokenIds.insert(padded.tokenIds.end(), std::size_t(padCount), padId);
    if (!padded.tokenTypeIds.empty()) padded.tokenTypeIds.insert(padded.tokenTypeIds.end(), std::size_t(padCount), 0);

    auto base = runStep(model, plain, options, 0.0, 1.0 / 3.0);
    if (!base) return base.status();
    padded.attentionMask.assign(std::size_t(L + padCount), 1);
    auto visible = runStep(model, padded, options, 1.0 / 3.0, 2.0 / 3.0);
    if (!visible) return visible.status();
    std::fill(padded.attentionMask.begin() + L, padded.attentionMask.end(), std::uint8_t(0));
    auto masked = runStep(model, padded, options, 2.0 / 3.0, 1.0);
    if (!masked) return masked.status();

    PaddingResult r;
    r.realLength = L;
    r.padCount = padCount;
    r.padId = padId;
    r.maxDiffMasked = rowMaxDiff(base->lastHidden, masked->lastHidden, L, c.dModel);
    r.maxDiffUnmasked = rowMaxDiff(base->lastHidden, visible->lastHidden, L, c.dModel);
    for (double d : r.maxDiffMasked) r.maxMasked = std::max(r.maxMasked, d);
    for (double d : r.maxDiffUnmasked) r.maxUnmasked = std::max(r.maxUnmasked, d);
    for (std::size_t i = 0; i < std::size_t(L * c.dModel); ++i)
        r.hiddenScale = std::max(r.hiddenScale, double(std::abs(base->lastHidden[i])));
    return r;
}

} // namespace attn
