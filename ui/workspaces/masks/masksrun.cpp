// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/masks/masksrun.h"
#include "kit/tokenlimits.h"

#include "workspaces/explore/modelrun.h"

#include <QObject>

#include <algorithm>
#include <cmath>

namespace attnui {

namespace {

// Picking the head automatically recomputes every head twice; beyond this it keeps the requested head.
constexpr int kAutoHeadMaxTokens = 512;
constexpr int kAutoHeadMaxHeads = 256;

attn::MaskSpec withStructure(const attn::ModelConfig &config, attn::MaskSpec mask)
{
    mask.causal = mask.causal || config.causal;
    return mask;
}

} // namespace

QString maskChoiceName(MaskChoice choice)
{
    switch (choice) {
    case MaskChoice::Bidirectional: return QStringLiteral("bidirectional");
    case MaskChoice::Causal: return QStringLiteral("causal");
    case MaskChoice::Padding: return QStringLiteral("padding");
    case MaskChoice::Window: return QStringLiteral("window");
    case MaskChoice::Custom: return QStringLiteral("custom");
    }
    return {};
}

std::optional<MaskChoice> maskChoiceFromName(const QString &name)
{
    for (MaskChoice c : kAllMaskChoices)
        if (maskChoiceName(c) == name) return c;
    return std::nullopt;
}

std::vector<attn::MaskVariant> maskVariants(const MasksRequest &r, const attn::ModelConfig &config, int L)
{
    std::vector<attn::MaskVariant> v;
    const attn::MaskSpec own = attn::modelMaskStructure(config, r.layer);
    const std::int64_t window = attn::layerWindow(config, r.layer);
    v.push_back({std::string(config.causal ? "model's own: causal" : "model's own: bidirectional") +
                     (window > 0 ? ", sliding " + std::to_string(window) : std::string()),
                 own});
    for (MaskChoice c : r.choices) {
        switch (c) {
        case MaskChoice::Bidirectional:
            if (config.causal) v.push_back({"bidirectional", attn::MaskSpec::bidirectional()});
            break;
        case MaskChoice::Causal:
            if (!config.causal) v.push_back({"causal", attn::MaskSpec::causalMask()});
            break;
        case MaskChoice::Padding: {
            attn::MaskSpec m = own;
            m.keyValid.assign(std::size_t(L), 1);
            for (int p : r.padding)
                if (p >= 0 && p < L) m.keyValid[std::size_t(p)] = 0;
            v.push_back({"key padding", m});
            break;
        }
        case MaskChoice::Window:
            v.push_back({(config.causal ? "causal window " : "window ") + std::to_string(r.window),
                         withStructure(config, attn::MaskSpec::slidingWindow(r.window))});
            break;
        case MaskChoice::Custom: {
            attn::MaskSpec m;
            if (r.customLength == L && r.customAllowed.size() == std::size_t(L) * std::size_t(L)) {
                m.allowed = r.customAllowed;
            } else {
                m.allowed.assign(std::size_t(L) * std::size_t(L), 0);   // starts as causal
                for (int i = 0; i < L; ++i)
                    for (int j = 0; j <= i; ++j) m.allowed[std::size_t(i * L + j)] = 1;
            }
            v.push_back({"custom", m});
            break;
        }
        }
    }
    return v;
}

attn::Result<std::shared_ptr<Snapshot>> runMasks(const MasksRequest &request, const JobContext &ctx)
{
    if (!request.model) return attn::Status::invalid("no model is open: pick one in Explore");
    const attn::TextModel &tm = *request.model;
    const attn::ModelConfig &config = tm.model().config();
    if (request.text.trimmed().isEmpty()) return attn::Status::invalid("the text is empty: type a few words in Explore");
    auto tokenized = tm.tokenize(request.text.toStdString(), request.tokenize);
    if (!tokenized) return tokenized.status();
    const int L = int(tokenized->ids.size());
    if (L == 0) return attn::Status::invalid("the text gives no tokens");
    if (auto s = checkTokenLimit(L, kMasksMaxTokens, "Masks", "five masks of one head, each with its difference map"); !s) return s;

    auto snap = std::make_shared<MasksSnapshot>();
    snap->request = request;
    snap->modelName = QString::fromStdString(tm.displayName());
    snap->modelCausal = config.causal;
    snap->layers = int(config.layers);
    snap->heads = int(config.heads);
    snap->backend = attn::backendName(request.backend);
    snap->tokenIds = tokenized->ids;
    snap->tokenized = *tokenized;
    for (const std::string &label : tokenized->labels) snap->tokens << tokenDisplayLabel(label);
    MasksRequest &r = snap->request;
    r.layer = std::clamp(r.layer, 0, snap->layers - 1);
    r.head = std::clamp(r.head, 0, snap->heads - 1);
    // Default padding where it matters: decoders are padded on the left when batched (keys 0 and 1 are visible
    // to every later query), encoders on the right.
    if (r.paddingDefault && r.padding.empty()) {
        if (L < 4) r.padding = {L - 1};
        else r.padding = config.causal ? std::vector<int>{0, 1} : std::vector<int>{L - 2, L - 1};
    }

    // One forward pass under the model's own mask: Q, K, V of every layer.
    attn::ForwardInput input;
    input.tokenIds = tokenized->ids;
    attn::ForwardOptions fo;
    fo.backend = request.backend;
    fo.cancel = ctx.cancelFn();
    fo.captureQKV = true;
    fo.computeLogits = false;
    fo.progress = [&ctx](double f) { ctx.reportProgress(0.3 * f); };
    auto run = tm.model().forward(input, fo);
    if (!run) return run.status();

    attn::AttentionOptions ao;
    ao.backend = request.backend;
    ao.cancel = ctx.cancelFn();
    ao.softcap = config.attnSoftcap;   // Gemma 2: the scores are soft-capped before the mask, as in the forward pass
    const auto headVariants = [&](int head, std::vector<attn::MaskVariant> variants) {
        if (config.positions == attn::PositionKind::ALiBi) {
            const std::vector<float> slopes = attn::alibiSlopes(config.heads);
            for (attn::MaskVariant &v : variants) v.mask.alibiSlopes = {slopes[std::size_t(head)]};
        }
        return variants;
    };

    if (request.autoHead && L <= kAutoHeadMaxTokens && snap->layers * snap->heads <= kAutoHeadMaxHeads) {
        // The head whose weights change most between bidirectional and causal: masks visibly differ there.
        double best = -1.0;
        for (int l = 0; l < snap->layers; ++l)
            for (int h = 0; h < snap->heads; ++h) {
                attn::AttentionOptions one = ao;
                one.scale = attn::modelAttentionScale(config, l);
                const attn::LayerQKV &qkv = run->qkv[std::size_t(l)];
                auto cmp = attn::compareMasks(attn::headSlice(qkv.q, h), attn::headSlice(qkv.k, h), attn::headSlice(qkv.v, h),
                                              headVariants(h, {{"causal", attn::MaskSpec::causalMask()},
                                                               {"bidirectional", attn::MaskSpec::bidirectional()}}),
                                              0, one);
                if (!cmp) return cmp.status();
                double sum = 0.0;
                for (float d : cmp->variants[1].weightDiff) sum += std::abs(d);
                if (sum > best + 1e-9) best = sum, r.layer = l, r.head = h;
            }
    }
    ctx.reportProgress(0.4);

    const std::vector<attn::MaskVariant> variants = headVariants(r.head, maskVariants(r, config, L));
    for (const attn::MaskVariant &v : variants)
        if (v.name == "custom") snap->customAllowed = v.mask.allowed;
    ao.scale = attn::modelAttentionScale(config, r.layer);
    ao.progress = [&ctx](double f) { ctx.reportProgress(0.4 + 0.2 * f); };
    const attn::LayerQKV &qkv = run->qkv[std::size_t(r.layer)];
    auto cmp = attn::compareMasks(attn::headSlice(qkv.q, r.head), attn::headSlice(qkv.k, r.head),
                                  attn::headSlice(qkv.v, r.head), variants, 0, ao);
    if (!cmp) return cmp.status();
    snap->comparison = std::move(cmp).value();

    // The proofs: the whole model, twice per mask.
    attn::ForwardOptions po;
    po.backend = request.backend;
    po.cancel = ctx.cancelFn();
    r.perturb = request.perturb < 0 ? L / 2 : std::min(request.perturb, L - 1);
    const auto step = [&ctx](double from, double to) { return [&ctx, from, to](double f) { ctx.reportProgress(from + (to - from) * f); }; };
    po.progress = step(0.6, 0.75);
    auto causal = attn::leakageTest(tm.model(), input, r.perturb, request.replacement, attn::MaskSpec::causalMask(), po);
    if (causal.status().code() == attn::ErrorCode::Cancelled) return causal.status();
    po.progress = step(0.75, 0.9);
    auto bidir = attn::leakageTest(tm.model(), input, r.perturb, request.replacement, attn::MaskSpec::bidirectional(), po);
    if (causal && bidir) {
        snap->leakCausal = *causal;
        snap->leakBidirectional = *bidir;
    } else {
        snap->leakNote = QString::fromStdString(causal ? bidir.status().message() : causal.status().message());
    }
    po.progress = step(0.9, 1.0);
    auto pad = attn::paddingTest(tm.model(), input, request.pads, -1, attn::MaskSpec::bidirectional(), po);
    if (pad) snap->padding = *pad;
    else if (pad.status().code() == attn::ErrorCode::Cancelled) return pad.status();
    else snap->paddingNote = QString::fromStdString(pad.status().message());
    return std::shared_ptr<Snapshot>(snap);
}

} // namespace attnui
