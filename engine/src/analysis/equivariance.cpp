// SPDX-License-Identifier: GPL-3.0-or-later
// Permutation equivariance: the model on X and on PX, compared under P (equivariance.h), and causal leakage.
#include <attnscope/equivariance.h>

#include "rng.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

namespace attn {

namespace {

Result<std::int64_t> parseIndex(std::string_view text, const std::string &what)
{
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || v < 0)
        return Status::invalid(what + ": '" + std::string(text) + "' is not a non-negative integer");
    return v;
}

Result<std::vector<std::int64_t>> parseIndexList(std::string_view text, const std::string &what)
{
    std::vector<std::int64_t> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        auto v = parseIndex(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start), what);
        if (!v) return v.status();
        out.push_back(*v);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

std::string joinIndices(const std::vector<std::int64_t> &v)
{
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) s += ',';
        s += std::to_string(v[i]);
    }
    return s;
}

// The spec of a random: model with its pe= key replaced.
std::string respecPositions(const std::string &spec, const std::string &pe)
{
    std::string body = spec.substr(7), out = "random:";
    std::size_t start = 0;
    bool first = true;
    while (start <= body.size()) {
        const std::size_t comma = body.find(',', start);
        const std::string part = body.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!part.empty() && part.rfind("pe=", 0) != 0) {
            if (!first) out += ',';
            out += part;
            first = false;
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out + (first ? "" : ",") + "pe=" + pe;
}

// The model the passes run on, and the options that realise the positional and mask choices.
struct Setup {
    Model model;
    ForwardOptions options;
    std::string specUsed;
};

Result<Setup> makeSetup(const Model &base, PositionalChoice positional, const MaskChoice &mask, Backend backend,
                        int threads)
{
    Setup s{base, {}, {}};
    if (positional == PositionalChoice::Sinusoidal || positional == PositionalChoice::Rope) {
        if (base.config().architecture != Architecture::Synthetic)
            return Status::invalid("positional: '" + positionalChoiceName(positional) +
                                   "' is only available for random: models; use model or none");
        s.specUsed = respecPositions(base.source(), positionalChoiceName(positional));
        auto m = Model::synthetic(s.specUsed);
        if (!m) return m.status();
        s.model = std::move(*m);
    }
    s.options.dropPositions = positional == PositionalChoice::None;
    s.options.maskOverride = mask.override();
    s.options.backend = backend;
    s.options.threads = threads;
    return s;
}

double maxAbsDiffRows(const std::vector<float> &a, const std::vector<float> &b, const std::vector<std::int64_t> &perm,
                      std::int64_t width)
{
    double err = 0.0;
    const auto L = static_cast<std::int64_t>(perm.size());
    for (std::int64_t i = 0; i < L; ++i)
        for (std::int64_t d = 0; d < width; ++d)
            err = std::max(err, std::abs(static_cast<double>(a[static_cast<std::size_t>(i * width + d)]) -
                                         b[static_cast<std::size_t>(perm[static_cast<std::size_t>(i)] * width + d)]));
    return err;
}

std::string maskKindUsed(const Model &model, const MaskChoice &mask)
{
    if (mask.kind != MaskChoice::Kind::Model) return mask.kindName();
    return model.config().causal ? "causal" : "bidirectional";
}

} // namespace

Result<PermutationSpec> parsePermutationSpec(const std::string &text)
{
    PermutationSpec s;
    if (text == "reverse") return s;
    if (text.rfind("random:", 0) == 0) {
        s.kind = PermutationSpec::Kind::Random;
        auto v = parseIndex(std::string_view(text).substr(7), "permutation seed");
        if (!v) return v.status();
        s.seed = static_cast<std::uint64_t>(*v);
        return s;
    }
    if (text.rfind("swap:", 0) == 0 || text.rfind("swap ", 0) == 0) {
        s.kind = PermutationSpec::Kind::Swap;
        auto v = parseIndexList(std::string_view(text).substr(5), "permutation swap");
        if (!v) return v.status();
        if (v->size() != 2) return Status::invalid("permutation swap: give two positions, as swap:I,J");
        s.order = std::move(*v);
        return s;
    }
    if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0])))
        return Status::invalid("permutation: '" + text + "' is not reverse, random:SEED, swap:I,J or a list i,j,k,...");
    s.kind = PermutationSpec::Kind::Explicit;
    auto v = parseIndexList(text, "permutation");
    if (!v) return v.status();
    s.order = std::move(*v);
    return s;
}

std::string permutationSpecText(const PermutationSpec &spec)
{
    switch (spec.kind) {
    case PermutationSpec::Kind::Reverse: return "reverse";
    case PermutationSpec::Kind::Random: return "random:" + std::to_string(spec.seed);
    case PermutationSpec::Kind::Swap: return "swap:" + joinIndices(spec.order);
    case PermutationSpec::Kind::Explicit: return joinIndices(spec.order);
    }
    return {};
}

Result<std::vector<std::int64_t>> makePermutation(const PermutationSpec &spec, std::int64_t L,
                                                  const std::vector<std::uint8_t> &special)
{
    std::vector<std::int64_t> perm(static_cast<std::size_t>(L));
    std::iota(perm.begin(), perm.end(), std::int64_t{0});
    switch (spec.kind) {
    case PermutationSpec::Kind::Explicit: {
        if (static_cast<std::int64_t>(spec.order.size()) != L)
            return Status::invalid("permutation: " + std::to_string(spec.order.size()) + " indices for " +
                                   std::to_string(L) + " tokens");
        std::vector<std::uint8_t> seen(static_cast<std::size_t>(L), 0);
        for (std::int64_t i : spec.order) {
            if (i >= L) return Status::invalid("permutation: index " + std::to_string(i) + " is outside the " + std::to_string(L) + " tokens");
            if (seen[static_cast<std::size_t>(i)]++) return Status::invalid("permutation: index " + std::to_string(i) + " appears twice");
        }
        return spec.order;
    }
    case PermutationSpec::Kind::Swap: {
        for (std::int64_t i : spec.order)
            if (i >= L) return Status::invalid("permutation swap: position " + std::to_string(i) + " is outside the " + std::to_string(L) + " tokens");
        std::swap(perm[static_cast<std::size_t>(spec.order[0])], perm[static_cast<std::size_t>(spec.order[1])]);
        return perm;
    }
    case PermutationSpec::Kind::Reverse:
    case PermutationSpec::Kind::Random: {
        std::vector<std::int64_t> movable;
        for (std::int64_t i = 0; i < L; ++i)
            if (!spec.keepSpecialFixed || special.empty() || !special[static_cast<std::size_t>(i)]) movable.push_back(i);
        std::vector<std::int64_t> values = movable;
        if (spec.kind == PermutationSpec::Kind::Reverse) {
            std::reverse(values.begin(), values.end());
        } else {
            detail::SplitMix64 rng(spec.seed);
            for (std::size_t k = values.size(); k > 1; --k) std::swap(values[k - 1], values[rng.next() % k]);
        }
        for (std::size_t k = 0; k < movable.size(); ++k) perm[static_cast<std::size_t>(movable[k])] = values[k];
        return perm;
    }
    }
    return perm;
}

Result<PositionalChoice> parsePositionalChoice(const std::string &text)
{
    if (text == "model") return PositionalChoice::Model;
    if (text == "none") return PositionalChoice::None;
    if (text == "sinusoidal") return PositionalChoice::Sinusoidal;
    if (text == "rope") return PositionalChoice::Rope;
    return Status::invalid("positional: '" + text + "' is not model, none, sinusoidal or rope");
}

std::string positionalChoiceName(PositionalChoice c)
{
    switch (c) {
    case PositionalChoice::Model: return "model";
    case PositionalChoice::None: return "none";
    case PositionalChoice::Sinusoidal: return "sinusoidal";
    case PositionalChoice::Rope: return "rope";
    }
    return {};
}

Result<EquivarianceScope> parseEquivarianceScope(const std::string &text)
{
    EquivarianceScope s;
    if (text == "model") return s;
    if (text.rfind("layer:", 0) == 0) {
        auto v = parseIndex(std::string_view(text).substr(6), "scope layer");
        if (!v) return v.status();
        s.kind = EquivarianceScope::Kind::Layer;
        s.layer = *v;
        return s;
    }
    if (text.rfind("head:", 0) == 0) {
        const std::string body = text.substr(5);
        const std::size_t dot = body.find('.');
        if (dot == std::string::npos) return Status::invalid("scope: '" + text + "' needs head:L.H");
        auto l = parseIndex(std::string_view(body).substr(0, dot), "scope layer");
        if (!l) return l.status();
        auto h = parseIndex(std::string_view(body).substr(dot + 1), "scope head");
        if (!h) return h.status();
        s.kind = EquivarianceScope::Kind::Head;
        s.head = {*l, *h};
        return s;
    }
    return Status::invalid("scope: '" + text + "' is not head:L.H, layer:L or model");
}

std::string equivarianceScopeText(const EquivarianceScope &s)
{
    switch (s.kind) {
    case EquivarianceScope::Kind::Head: return "head:" + std::to_string(s.head.layer) + "." + std::to_string(s.head.head);
    case EquivarianceScope::Kind::Layer: return "layer:" + std::to_string(s.layer);
    case EquivarianceScope::Kind::Model: return "model";
    }
    return {};
}

Result<EquivarianceResult> runEquivariance(const TextModel &model, const std::string &text,
                                           const EquivarianceSettings &settings, const ProgressFn &progress,
                                           const CancelFn &cancel)
{
    auto tokens = model.tokenize(text);
    if (!tokens) return tokens.status();
    return runEquivariance(model, *tokens, settings, progress, cancel);
}

Result<EquivarianceResult> runEquivariance(const TextModel &textModel, const TokenizedText &tokens,
                                           const EquivarianceSettings &settings, const ProgressFn &progress,
                                           const CancelFn &cancel)
{
    const ModelConfig &c = textModel.model().config();
    const auto L = static_cast<std::int64_t>(tokens.ids.size());
    if (L == 0) return Status::invalid("text: no tokens to permute");

    EquivarianceResult r;
    r.tokens = tokens;
    auto perm = makePermutation(settings.permutation, L, tokens.special);
    if (!perm) return perm.status();
    r.permutation = std::move(*perm);
    for (std::int64_t i : r.permutation) r.permutedIds.push_back(tokens.ids[static_cast<std::size_t>(i)]);

    std::vector<HeadRef> heads;
    const EquivarianceScope &sc = settings.scope;
    for (std::int64_t l = 0; l < c.layers; ++l)
        for (std::int64_t h = 0; h < c.heads; ++h) {
            const bool in = sc.kind == EquivarianceScope::Kind::Model ||
                            (sc.kind == EquivarianceScope::Kind::Layer && sc.layer == l) ||
                            (sc.kind == EquivarianceScope::Kind::Head && sc.head == HeadRef{l, h});
            if (in) heads.push_back({l, h});
        }
    if (heads.empty())
        return Status::invalid("scope: '" + equivarianceScopeText(sc) + "' is outside the model's " +
                               std::to_string(c.layers) + " layers × " + std::to_string(c.heads) + " heads");

    auto setup = makeSetup(textModel.model(), settings.positional, settings.mask, settings.backend, settings.threads);
    if (!setup) return setup.status();
    ForwardOptions opt = setup->options;
    opt.weightsMode = WeightsRequest::Mode::Heads;
    opt.weightHeads = heads;
    opt.cancel = cancel;

    ForwardResult passes[2];
    for (int pass = 0; pass < 2; ++pass) {
        ForwardInput in;
        in.tokenIds = pass == 0 ? tokens.ids : r.permutedIds;
        // A sentence pair's token types move with their tokens: (PX) permutes whole input rows.
        const std::vector<std::int64_t> types = textModel.forwardInput(tokens).tokenTypeIds;
        if (!types.empty())
            for (std::size_t i = 0; i < types.size(); ++i)
                in.tokenTypeIds.push_back(pass == 0 ? types[i] : types[static_cast<std::size_t>(r.permutation[i])]);
        if (progress) opt.progress = [&progress, pass](double f) { progress(0.5 * (pass + f)); };
        if (Status s = setup->model.validate(in, opt); !s) return s;
        auto out = setup->model.forward(in, opt);
        if (!out) return out.status();
        passes[pass] = std::move(*out);
    }
    const ForwardResult &base = passes[0], &permuted = passes[1];

    // A(PX)[i,j] against A(X)[π i, π j].
    for (std::size_t k = 0; k < heads.size(); ++k) {
        const std::vector<float> &A = base.heads[k].weights, &B = permuted.heads[k].weights;
        double err = 0.0;
        for (std::int64_t i = 0; i < L; ++i)
            for (std::int64_t j = 0; j < L; ++j) {
                const auto pi = r.permutation[static_cast<std::size_t>(i)], pj = r.permutation[static_cast<std::size_t>(j)];
                err = std::max(err, std::abs(static_cast<double>(B[static_cast<std::size_t>(i * L + j)]) -
                                             A[static_cast<std::size_t>(pi * L + pj)]));
            }
        r.heads.push_back({heads[k], err});
        r.maxAbsErrWeights = std::max(r.maxAbsErrWeights, err);
    }
    r.maxAbsErrOutputs = maxAbsDiffRows(permuted.lastHidden, base.lastHidden, r.permutation, c.dModel);
    if (c.head == ModelHead::Classification) {
        // [CLS] is kept in place, so the class logits should be invariant.
        double err = 0.0;
        for (std::size_t k = 0; k < base.logits.size(); ++k)
            err = std::max(err, std::abs(static_cast<double>(base.logits[k]) - permuted.logits[k]));
        r.maxAbsErrLogits = err;
    } else if (!base.logits.empty()) {
        r.maxAbsErrLogits = maxAbsDiffRows(permuted.logits, base.logits, r.permutation, c.vocabSize);
    }

    const ModelConfig &cu = setup->model.config();
    r.positionsUsed = settings.positional == PositionalChoice::None ? PositionKind::None : cu.positions;
    r.maskUsed = maskKindUsed(setup->model, settings.mask);
    r.expectedEquivariant = r.positionsUsed == PositionKind::None && r.maskUsed == "bidirectional";
    r.modelSpecUsed = setup->specUsed;
    r.backendUsed = base.backend;
    if (progress) progress(1.0);
    return r;
}

} // namespace attn
