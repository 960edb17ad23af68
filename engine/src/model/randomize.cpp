// SPDX-License-Identifier: GPL-3.0-or-later
// Model::withRandomizedParameters and the parameter names (model.h): the weights of a copy redrawn from
// N(0, σ_original²), one seeded stream per tensor, for the model-parameter randomization check (§3.14).
#include "weights.h"

#include "rng.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace attn {

namespace detail {

namespace {

// What a tensor is, for the choice of what to re-initialize.
enum class Group { Embedding, BlockNorm, Block, HeadNorm, Head, FinalNorm };

struct TensorRef {
    std::string name;
    std::vector<float> *values;
    Group group;
    std::int64_t layer = -1;                  // Block / BlockNorm
    unsigned part = 0;                        // Block: RandomizationSpec::Part
};

// Every non-empty tensor of `w` with its name and group, in a fixed order.
std::vector<TensorRef> tensorsOf(ModelWeights &w)
{
    std::vector<TensorRef> out;
    const auto add = [&](const std::string &name, std::vector<float> &v, Group g, std::int64_t layer = -1, unsigned part = 0) {
        if (!v.empty()) out.push_back({name, &v, g, layer, part});
    };
    const auto norm = [&](const std::string &prefix, LayerNormWeights &n, Group g, std::int64_t layer = -1) {
        add(prefix + ".gamma", n.gamma, g, layer);
        add(prefix + ".beta", n.beta, g, layer);
    };
    const auto linear = [&](const std::string &prefix, Linear &l, Group g, std::int64_t layer = -1, unsigned part = 0) {
        add(prefix + ".weight", l.w, g, layer, part);
        add(prefix + ".bias", l.b, g, layer, part);
    };
    add("embeddings.token", w.tokenEmbedding, Group::Embedding);
    add("embeddings.position", w.positionEmbedding, Group::Embedding);
    add("embeddings.type", w.typeEmbedding, Group::Embedding);
    norm("embeddings.norm", w.embeddingNorm, Group::Embedding);
    using P = RandomizationSpec::Part;
    for (std::size_t i = 0; i < w.blocks.size(); ++i) {
        Block &b = w.blocks[i];
        const auto l = static_cast<std::int64_t>(i);
        const std::string p = "layer." + std::to_string(i) + ".";
        norm(p + "ln1", b.ln1, Group::BlockNorm, l);
        linear(p + "q", b.q, Group::Block, l, P::Query);
        linear(p + "k", b.k, Group::Block, l, P::Key);
        linear(p + "v", b.v, Group::Block, l, P::Value);
        norm(p + "q_norm", b.qNorm, Group::BlockNorm, l);
        norm(p + "k_norm", b.kNorm, Group::BlockNorm, l);
        linear(p + "o", b.o, Group::Block, l, P::Output);
        norm(p + "post_attn_norm", b.postAttn, Group::BlockNorm, l);
        norm(p + "ln2", b.ln2, Group::BlockNorm, l);
        linear(p + "gate", b.gate, Group::Block, l, P::Mlp);
        linear(p + "fc1", b.fc1, Group::Block, l, P::Mlp);
        linear(p + "fc2", b.fc2, Group::Block, l, P::Mlp);
        norm(p + "post_mlp_norm", b.postMlp, Group::BlockNorm, l);
    }
    norm("final_norm", w.finalNorm, Group::FinalNorm);
    linear("pooler", w.pooler, Group::Head);
    linear("mlm.transform", w.mlmTransform, Group::Head);
    norm("mlm.norm", w.mlmNorm, Group::HeadNorm);
    add("lm_head.weight", w.lmHead, Group::Head);
    add("lm_head.bias", w.lmBias, Group::Head);
    linear("classifier", w.classifier, Group::Head);
    return out;
}

double stddev(const std::vector<float> &v)
{
    double mean = 0.0;
    for (float x : v) mean += x;
    mean /= static_cast<double>(v.size());
    double ss = 0.0;
    for (float x : v) ss += (x - mean) * (x - mean);
    return std::sqrt(ss / static_cast<double>(v.size()));
}

// N(0, σ²) by Box–Muller on a stream seeded from (seed, name): FNV-1a of the name, mixed with the seed.
void redraw(std::vector<float> &v, double sigma, std::uint64_t seed, const std::string &name)
{
    std::uint64_t h = 0xCBF29CE484222325ull;
    for (unsigned char c : name) h = (h ^ c) * 0x100000001B3ull;
    SplitMix64 rng(seed * 0x9E3779B97F4A7C15ull ^ h);
    const auto unit = [&] { return (static_cast<double>(rng.next() >> 11) + 0.5) * (1.0 / 9007199254740992.0); };   // (0, 1)
    for (std::size_t i = 0; i < v.size(); i += 2) {
        const double r = std::sqrt(-2.0 * std::log(unit())), t = 6.283185307179586 * unit();
        v[i] = static_cast<float>(sigma * r * std::cos(t));
        if (i + 1 < v.size()) v[i + 1] = static_cast<float>(sigma * r * std::sin(t));
    }
}

} // namespace

} // namespace detail

RandomizationSpec RandomizationSpec::cascade(std::int64_t modelLayers, std::int64_t topLayers, std::uint64_t seed)
{
    RandomizationSpec s;
    s.outputHead = true;
    s.seed = seed;
    for (std::int64_t k = 0; k < topLayers; ++k) s.layers.push_back(modelLayers - 1 - k);
    return s;
}

std::string RandomizationSpec::describe() const
{
    // Appends only: GCC 12 -O3 warns (-Wrestrict, a false positive) on some chains of operator+.
    std::string text;
    if (outputHead) text += "head";
    if (!layers.empty()) {
        if (outputHead) text += " + ";
        const auto [lo, hi] = std::minmax_element(layers.begin(), layers.end());
        const bool contiguous = *hi - *lo + 1 == static_cast<std::int64_t>(layers.size());
        text += layers.size() == 1 ? "layer " : "layers ";
        if (layers.size() == 1 || !contiguous) {
            for (std::size_t i = 0; i < layers.size(); ++i) {
                if (i) text += ',';
                text += std::to_string(layers[i]);
            }
        } else {
            text += std::to_string(*hi);
            text += "..";
            text += std::to_string(*lo);
        }
        if ((parts & AllParts) != AllParts) {
            text += " (";
            bool first = true;
            for (auto [bit, name] : {std::pair{Query, "q"}, std::pair{Key, "k"}, std::pair{Value, "v"}, std::pair{Output, "o"},
                                     std::pair{Mlp, "mlp"}})
                if (parts & bit) {
                    if (!first) text += ", ";
                    text += name;
                    first = false;
                }
            text += ')';
        }
    }
    return text.empty() ? "nothing" : text;
}

Result<Model> Model::withRandomizedParameters(const RandomizationSpec &spec) const
{
    const ModelConfig &c = m_w->config;
    if (spec.outputHead && c.head == ModelHead::None)
        return Status::invalid("randomization: outputHead is set, but model '" + name() + "' has no output head");
    std::set<std::int64_t> layers;
    for (std::int64_t l : spec.layers) {
        if (l < 0 || l >= c.layers)
            return Status::invalid("randomization: layer " + std::to_string(l) + " is outside the model's layers [0, " +
                                   std::to_string(c.layers) + ")");
        if (!layers.insert(l).second) return Status::invalid("randomization: layer " + std::to_string(l) + " is named twice");
    }
    if ((spec.parts & ~static_cast<unsigned>(RandomizationSpec::AllParts)) != 0)
        return Status::invalid("randomization: parts has unknown bits " + std::to_string(spec.parts));
    if (!layers.empty() && (spec.parts & RandomizationSpec::AllParts) == 0)
        return Status::invalid("randomization: parts is empty (choose q, k, v, o and/or mlp)");
    if (!spec.outputHead && layers.empty())
        return Status::invalid("randomization: nothing to randomize (set outputHead or name layers)");

    auto w = std::make_shared<detail::ModelWeights>(*m_w);
    if (spec.outputHead && (c.head == ModelHead::CausalLM || c.head == ModelHead::MaskedLM) && w->lmHead.empty()) {
        // Tied decoder: untie it, so the embeddings stay as they are (σ below is the embeddings').
        w->lmHead = w->tokenEmbedding;
        w->config.tiedEmbeddings = false;
    }
    using detail::Group;
    for (const detail::TensorRef &t : detail::tensorsOf(*w)) {
        const bool chosenLayer = layers.count(t.layer) != 0;
        bool redraw = false, reset = false;
        switch (t.group) {
        case Group::Embedding: break;
        case Group::Block: redraw = chosenLayer && (t.part & spec.parts); break;
        case Group::BlockNorm: reset = chosenLayer && spec.resetLayerNorms; break;
        case Group::Head: redraw = spec.outputHead; break;
        case Group::HeadNorm: reset = spec.outputHead && spec.resetLayerNorms; break;
        case Group::FinalNorm: reset = spec.outputHead && spec.resetLayerNorms; break;
        }
        if (redraw) detail::redraw(*t.values, detail::stddev(*t.values), spec.seed, t.name);
        if (reset) {
            const bool gamma = t.name.size() > 6 && t.name.compare(t.name.size() - 6, 6, ".gamma") == 0;
            std::fill(t.values->begin(), t.values->end(), gamma ? 1.0f : 0.0f);
        }
    }
    return Model(std::move(w));
}

std::vector<std::string> Model::parameterNames() const
{
    std::vector<std::string> names;
    // tensorsOf needs mutable access only to hand out pointers; nothing is written here.
    for (const auto &t : detail::tensorsOf(const_cast<detail::ModelWeights &>(*m_w))) names.push_back(t.name);
    return names;
}

const std::vector<float> *Model::parameter(const std::string &name) const
{
    for (const auto &t : detail::tensorsOf(const_cast<detail::ModelWeights &>(*m_w)))
        if (t.name == name) return t.values;
    return nullptr;
}

} // namespace attn
