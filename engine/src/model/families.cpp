// SPDX-License-Identifier: GPL-3.0-or-later
// config.json mappings of the RoPE decoders: the LLaMA family (llama, mistral, qwen2, qwen3, gemma, gemma2,
// gemma3_text, phi3) and GPT-NeoX. Each family is a few lines of differences on one common reader, as
// transformers' modular_*.py files describe them (Qwen2 = Llama + q/k/v biases + layer types, Gemma = Llama +
// (1+w) norms + √H embedding scale + GeGLU, ...). RoPE parameters are read in both spellings: v4's rope_theta +
// rope_scaling and v5's rope_parameters (reference/models-and-tokenizers.md §1.1, §1.5).
#include "configfields.h"

#include <cmath>
#include <set>

namespace attn {

std::string ropeTypeName(RopeType t)
{
    switch (t) {
    case RopeType::Default: return "default";
    case RopeType::Linear: return "linear";
    case RopeType::Dynamic: return "dynamic";
    case RopeType::Yarn: return "yarn";
    case RopeType::LongRope: return "longrope";
    case RopeType::Llama3: return "llama3";
    }
    return "default";
}

namespace detail {

namespace {

using nlohmann::json;
const ConfigLimits &L = kConfigLimits;
constexpr double kMaxTheta = 1e12, kMaxFactor = 1e6;

struct FamilyTraits {
    const char *modelType, *family;
    std::int64_t maxPositions;          // max_position_embeddings default
    double eps;                         // rms_norm_eps default
    std::optional<std::int64_t> headDim;   // head_dim default (null: hidden / heads)
    const char *activationKey;          // hidden_act | hidden_activation
    const char *activation;             // its default
    bool tied;                          // tie_word_embeddings default
    enum Bias { Flag, QkvOnly, None } bias;   // attention_bias flag, Qwen2's fixed q/k/v biases, none
    enum Windows { NoWindows, AllLayers, LayerTypes } windows;
    bool gemma;                         // (1+w) norms, √H embedding scale
    bool sandwich, qkNorm, partialRotary;
};

constexpr FamilyTraits kTraits[] = {
    {"llama", "Llama", 2048, 1e-6, std::nullopt, "hidden_act", "silu", false, FamilyTraits::Flag, FamilyTraits::NoWindows, false, false, false, false},
    {"mistral", "Mistral", 131072, 1e-6, std::nullopt, "hidden_act", "silu", false, FamilyTraits::None, FamilyTraits::AllLayers, false, false, false, false},
    {"qwen2", "Qwen2", 32768, 1e-6, std::nullopt, "hidden_act", "silu", false, FamilyTraits::QkvOnly, FamilyTraits::LayerTypes, false, false, false, false},
    {"qwen3", "Qwen3", 32768, 1e-6, 128, "hidden_act", "silu", false, FamilyTraits::Flag, FamilyTraits::LayerTypes, false, false, true, false},
    {"gemma", "Gemma", 8192, 1e-6, 256, "hidden_act", "gelu_pytorch_tanh", true, FamilyTraits::Flag, FamilyTraits::NoWindows, true, false, false, false},
    {"gemma2", "Gemma 2", 8192, 1e-6, 256, "hidden_activation", "gelu_pytorch_tanh", true, FamilyTraits::Flag, FamilyTraits::LayerTypes, true, true, false, false},
    {"gemma3_text", "Gemma 3", 131072, 1e-6, 256, "hidden_activation", "gelu_pytorch_tanh", true, FamilyTraits::Flag, FamilyTraits::LayerTypes, true, true, true, false},
    {"phi3", "Phi-3", 4096, 1e-5, std::nullopt, "hidden_act", "silu", false, FamilyTraits::None, FamilyTraits::AllLayers, false, false, false, true},
};

Status bad(const Fields &f, const std::string &what) { return Status(ErrorCode::FormatError, f.label() + ": " + what); }

// One RoPE parameter dict (rope_scaling / rope_parameters / a nested entry) → RopeConfig. `where` names it.
Status readRopeDict(const Fields &f, const json &d, const std::string &where, RopeConfig &r, bool phi3)
{
    if (!d.is_object()) return bad(f, where + " must be an object, but is " + jsonTypeOf(d));
    Fields g(d, f.label() + ": " + where);
    std::string type = g.string({"rope_type", "type"}, std::string("default"));
    if (!g.ok()) return g.status();
    if (phi3 && (type == "su" || type == "yarn")) type = "longrope";   // Phi-3's old spellings
    static const std::pair<const char *, RopeType> kTypes[] = {
        {"default", RopeType::Default}, {"linear", RopeType::Linear}, {"dynamic", RopeType::Dynamic},
        {"yarn", RopeType::Yarn},       {"longrope", RopeType::LongRope}, {"llama3", RopeType::Llama3}};
    bool known = false;
    for (const auto &[name, t] : kTypes)
        if (type == name) r.type = t, known = true;
    if (!known)
        return bad(f, where + ": rope_type '" + type +
                          "' is not supported; supported: default, linear, dynamic, yarn, longrope, llama3");
    r.theta = g.number({"rope_theta"}, r.theta, true, kMaxTheta);
    const bool needsFactor = r.type == RopeType::Linear || r.type == RopeType::Dynamic || r.type == RopeType::Llama3;
    if (needsFactor && !g.find({"factor"})) return bad(f, where + ": rope_type '" + type + "' needs 'factor'");
    if (const auto v = g.optionalNumber("factor", true, kMaxFactor)) r.factor = *v;
    else r.factor = r.type == RopeType::Yarn || r.type == RopeType::LongRope ? 0.0 : 1.0;   // 0: derived below
    if (const auto v = g.optionalInteger("original_max_position_embeddings", 1, L.positions)) r.originalMaxPositions = *v;
    r.lowFreqFactor = g.number({"low_freq_factor"}, 1.0, true, kMaxFactor);
    r.highFreqFactor = g.number({"high_freq_factor"}, 4.0, true, kMaxFactor);
    if (r.type == RopeType::Llama3) {
        for (const char *key : {"low_freq_factor", "high_freq_factor"})
            if (!g.find({key})) return bad(f, where + ": rope_type 'llama3' needs '" + std::string(key) + "'");
        if (!(r.highFreqFactor > r.lowFreqFactor))
            return bad(f, where + ": high_freq_factor must be larger than low_freq_factor");
    }
    // `or 32` / `or 1` in transformers: 0 and null fall back too.
    r.betaFast = g.number({"beta_fast"}, 32.0, false, kMaxFactor);
    r.betaSlow = g.number({"beta_slow"}, 1.0, false, kMaxFactor);
    if (r.betaFast == 0.0) r.betaFast = 32.0;
    if (r.betaSlow == 0.0) r.betaSlow = 1.0;
    r.truncate = g.boolean("truncate", true);
    r.mscale = g.optionalNumber("mscale", false, kMaxFactor);
    r.mscaleAllDim = g.optionalNumber("mscale_all_dim", false, kMaxFactor);
    r.attentionFactor = g.optionalNumber("attention_factor", false, kMaxFactor);
    for (auto [key, dst] : {std::pair{"short_factor", &r.shortFactor}, std::pair{"long_factor", &r.longFactor}}) {
        const json *arr = g.find({key});
        if (!arr || arr->is_null()) continue;
        if (!arr->is_array() || static_cast<std::int64_t>(arr->size()) > L.headDim)
            return bad(f, where + ": '" + key + "' must be an array of at most " + std::to_string(L.headDim) + " numbers");
        for (const json &x : *arr) {
            if (!x.is_number() || !std::isfinite(x.get<double>()) || !(x.get<double>() > 0.0))
                return bad(f, where + ": '" + key + "' holds " + x.dump() + "; it must hold positive numbers");
            dst->push_back(x.get<double>());
        }
    }
    if (r.type == RopeType::LongRope && (r.shortFactor.empty() || r.longFactor.empty()))
        return bad(f, where + ": rope_type 'longrope' needs 'short_factor' and 'long_factor'");
    return g.status();
}

// The standardisation transformers does on load: original_max_position_embeddings and the derived factors.
Status completeRope(const Fields &f, const ModelConfig &c, std::optional<std::int64_t> topLevelOriginal,
                    RopeConfig &r, const std::string &where)
{
    const bool scaled = r.type == RopeType::Llama3 || r.type == RopeType::Yarn || r.type == RopeType::LongRope;
    if (scaled) {
        if (topLevelOriginal) r.originalMaxPositions = *topLevelOriginal;   // Phi-3's top-level field wins
        if (r.originalMaxPositions == 0) r.originalMaxPositions = c.maxPositions;
        if (r.factor == 0.0)
            r.factor = static_cast<double>(c.maxPositions) / static_cast<double>(r.originalMaxPositions);
    }
    if (r.type == RopeType::LongRope) {
        const auto half = static_cast<std::size_t>(c.rotaryDim / 2);
        if (r.shortFactor.size() != half || r.longFactor.size() != half)
            return bad(f, where + ": short_factor and long_factor have " + std::to_string(r.shortFactor.size()) +
                              " and " + std::to_string(r.longFactor.size()) + " entries; the rotary dimension " +
                              std::to_string(c.rotaryDim) + " needs " + std::to_string(half) + " each");
    }
    if (r.type == RopeType::Dynamic && c.rotaryDim <= 2)
        return bad(f, where + ": dynamic RoPE needs a rotary dimension above 2");
    return Status::ok();
}

// Which layers slide: explicit layer_types, else each family's rule (masks per layer, masking_utils.py).
Status readWindows(Fields &f, ModelConfig &c, const FamilyTraits &t)
{
    c.layerAttention.assign(static_cast<std::size_t>(c.layers), LayerAttention{});
    if (t.windows == FamilyTraits::NoWindows) return f.status();
    std::optional<std::int64_t> window = f.optionalInteger("sliding_window", 1, L.positions);
    const std::string modelType = c.modelType;
    if (!f.find({"sliding_window"}) && modelType != "phi3") window = 4096;   // the class defaults
    if ((modelType == "qwen2" || modelType == "qwen3") && !f.boolean("use_sliding_window", false)) window.reset();
    if (!f.ok()) return f.status();
    std::vector<bool> sliding(static_cast<std::size_t>(c.layers), false);
    const json *types = t.windows == FamilyTraits::LayerTypes ? f.find({"layer_types"}) : nullptr;
    if (types && !types->is_null()) {
        if (!types->is_array() || static_cast<std::int64_t>(types->size()) != c.layers)
            return bad(f, "field 'layer_types' must list one entry per layer (" + std::to_string(c.layers) + ")");
        for (std::size_t i = 0; i < types->size(); ++i) {
            const json &e = (*types)[i];
            const std::string name = e.is_string() ? e.get<std::string>() : e.dump();
            if (name == "sliding_attention") sliding[i] = true;
            else if (name != "full_attention")
                return bad(f, "layer_types[" + std::to_string(i) + "] is '" + name +
                                  "'; supported: 'full_attention', 'sliding_attention'");
        }
    } else if (t.windows == FamilyTraits::AllLayers) {
        sliding.assign(sliding.size(), window.has_value());
    } else if (modelType == "gemma2") {
        for (std::size_t i = 0; i < sliding.size(); ++i) sliding[i] = (i + 1) % 2 != 0;
    } else if (modelType == "gemma3_text") {
        const std::int64_t pattern = f.integer({"sliding_window_pattern"}, 6, 1, L.layers);
        for (std::size_t i = 0; i < sliding.size(); ++i) sliding[i] = (static_cast<std::int64_t>(i) + 1) % pattern != 0;
    } else {   // qwen2, qwen3
        const std::int64_t first = f.integer({"max_window_layers"}, 28, 0, L.layers);
        for (std::size_t i = 0; i < sliding.size(); ++i) sliding[i] = window && static_cast<std::int64_t>(i) >= first;
    }
    for (std::size_t i = 0; i < sliding.size(); ++i) {
        if (!sliding[i]) continue;
        if (!window)
            return bad(f, "layer " + std::to_string(i) + " is a sliding_attention layer, but there is no sliding_window" +
                              std::string(modelType.rfind("qwen", 0) == 0 ? " (use_sliding_window is false)" : ""));
        c.layerAttention[i].window = *window;
        c.layerAttention[i].localRope = modelType == "gemma3_text";
    }
    return f.status();
}

// rope_theta / rope_scaling (v4) or rope_parameters (v5, possibly nested per layer type for Gemma 3).
Status readRope(Fields &f, ModelConfig &c, bool phi3, std::optional<std::int64_t> topLevelOriginal)
{
    const bool gemma3 = c.modelType == "gemma3_text";
    const double defaultTheta = gemma3 ? 1e6 : 1e4;
    c.rope = RopeConfig{};
    // rotary_emb_base: GPT-NeoX's v4 name of rope_theta.
    c.rope.theta = f.number({"rope_theta", "rotary_emb_base"}, defaultTheta, true, kMaxTheta);
    c.ropeLocal = RopeConfig{};
    c.ropeLocal.theta = f.number({"rope_local_base_freq"}, 1e4, true, kMaxTheta);
    if (!f.ok()) return f.status();
    const json *params = f.find({"rope_parameters"});
    const json *scaling = f.find({"rope_scaling"});
    const json *dict = scaling && !scaling->is_null() ? scaling : (params && !params->is_null() ? params : nullptr);
    const std::string where = dict == scaling ? "rope_scaling" : "rope_parameters";
    if (dict && dict->is_object() && (dict->contains("full_attention") || dict->contains("sliding_attention"))) {
        if (!gemma3) return bad(f, where + " is nested per layer type, which only Gemma 3 uses");
        for (auto [key, dst] : {std::pair{"full_attention", &c.rope}, std::pair{"sliding_attention", &c.ropeLocal}}) {
            if (!dict->contains(key) || (*dict)[key].is_null()) continue;
            if (Status s = readRopeDict(f, (*dict)[key], where + "." + key, *dst, false); !s) return s;
        }
    } else if (dict) {
        if (Status s = readRopeDict(f, *dict, where, c.rope, phi3); !s) return s;
    }
    if (Status s = completeRope(f, c, topLevelOriginal, c.rope, where); !s) return s;
    return completeRope(f, c, std::nullopt, c.ropeLocal, where);
}

// rotaryDim = int(head_dim · partial_rotary_factor) (top level, or inside rope_parameters).
Status readPartialRotary(Fields &f, ModelConfig &c, bool allowed, const char *fallbackKey, double fallback)
{
    double partial = f.number({"partial_rotary_factor", fallbackKey}, fallback, true, 1.0);
    if (const json *p = f.find({"rope_parameters"}); p && p->is_object() && p->contains("partial_rotary_factor")) {
        Fields g(*p, f.label() + ": rope_parameters");
        partial = g.number({"partial_rotary_factor"}, partial, true, 1.0);
        if (!g.ok()) return g.status();
    }
    if (!f.ok()) return f.status();
    if (!allowed && partial != 1.0)
        return bad(f, "partial_rotary_factor " + std::to_string(partial) + " is not supported for model_type '" +
                          c.modelType + "' (transformers rotates the whole head there)");
    c.rotaryDim = static_cast<std::int64_t>(static_cast<double>(c.dHead) * partial);
    if (c.rotaryDim < 2 || c.rotaryDim % 2 != 0)
        return bad(f, "the rotary dimension int(head_dim " + std::to_string(c.dHead) + " x partial_rotary_factor " +
                          std::to_string(partial) + ") = " + std::to_string(c.rotaryDim) + " must be even and at least 2");
    return Status::ok();
}

} // namespace

Status mapLlamaFamily(Fields &f, ModelConfig &c)
{
    const FamilyTraits *t = nullptr;
    for (const FamilyTraits &x : kTraits)
        if (c.modelType == x.modelType) t = &x;
    c.family = t->family;
    c.causal = true;
    c.positions = PositionKind::RoPE;
    c.norm = NormKind::RMSNorm;
    c.gatedMlp = true;
    c.normPlusOne = t->gemma;
    c.sandwichNorms = t->sandwich;
    c.qkNorm = t->qkNorm;

    c.vocabSize = f.integer({"vocab_size"}, std::nullopt, 1, L.vocab);
    c.dModel = f.integer({"hidden_size"}, std::nullopt, 1, L.width);
    c.layers = f.integer({"num_hidden_layers"}, std::nullopt, 1, L.layers);
    c.heads = f.integer({"num_attention_heads"}, std::nullopt, 1, L.heads);
    c.kvHeads = f.integer({"num_key_value_heads"}, c.heads, 1, L.heads);
    c.intermediate = f.integer({"intermediate_size"}, std::nullopt, 1, L.intermediate);
    c.maxPositions = f.integer({"max_position_embeddings"}, t->maxPositions, 1, L.positions);
    if (!f.ok()) return f.status();
    const std::optional<std::int64_t> headDimDefault =
        t->headDim ? t->headDim : std::optional<std::int64_t>(c.dModel % c.heads == 0 ? c.dModel / c.heads : 0);
    c.dHead = f.integer({"head_dim"}, headDimDefault, 1, L.headDim);
    if (!f.ok()) return f.status();
    if (c.dHead == 0)
        return bad(f, "hidden_size " + std::to_string(c.dModel) + " is not a multiple of num_attention_heads " +
                          std::to_string(c.heads) + " and there is no head_dim");
    c.layerNormEps = f.epsilon({"rms_norm_eps"}, t->eps);
    std::string act = f.string({t->activationKey}, std::string(t->activation));
    if (c.modelType == "gemma" && act == "gelu") act = "gelu_pytorch_tanh";   // configuration_gemma.py (v5)
    if (!f.ok()) return f.status();
    if (const auto a = parseActivation(act)) c.activation = *a;
    else return bad(f, std::string(t->activationKey) + " '" + act + "' is not supported");
    c.tiedEmbeddings = f.boolean("tie_word_embeddings", t->tied);
    if (t->bias == FamilyTraits::Flag) c.attentionBias = c.outputBias = f.boolean("attention_bias", false);
    if (t->bias == FamilyTraits::QkvOnly) c.attentionBias = true;
    if (c.modelType == "llama") c.mlpBias = f.boolean("mlp_bias", false);
    if (t->gemma) c.embeddingScale = std::sqrt(static_cast<float>(c.dModel));   // rounded to the dtype at load
    if (c.modelType == "gemma2" || c.modelType == "gemma3_text")
        c.queryPreAttnScalar = f.number({"query_pre_attn_scalar"}, 256.0, true, 1e9);
    if (c.modelType == "gemma2") {
        c.attnSoftcap = static_cast<float>(f.number({"attn_logit_softcapping"}, 50.0, true, 1e9));
        c.finalSoftcap = static_cast<float>(f.number({"final_logit_softcapping"}, 30.0, true, 1e9));
        // Explicit nulls switch the caps off.
        if (const json *j = f.find({"attn_logit_softcapping"}); j && j->is_null()) c.attnSoftcap = 0.0f;
        if (const json *j = f.find({"final_logit_softcapping"}); j && j->is_null()) c.finalSoftcap = 0.0f;
    } else if (c.modelType == "gemma3_text") {
        // Gemma 3 configs may carry attn_logit_softcapping, but transformers never applies it to attention.
        c.finalSoftcap = static_cast<float>(f.optionalNumber("final_logit_softcapping", true, 1e9).value_or(0.0));
        if (f.boolean("use_bidirectional_attention", false))
            return bad(f, "use_bidirectional_attention (Gemma 3 embedding models) is not supported");
    }
    c.bosTokenId = f.optionalInteger("bos_token_id");
    c.eosTokenId = f.optionalInteger("eos_token_id");
    c.padTokenId = f.optionalInteger("pad_token_id");
    if (!f.ok()) return f.status();
    if (c.heads % c.kvHeads != 0)
        return bad(f, "num_attention_heads (" + std::to_string(c.heads) + ") is not a multiple of num_key_value_heads (" +
                          std::to_string(c.kvHeads) + ")");
    const bool phi3 = c.modelType == "phi3";
    if (Status s = readPartialRotary(f, c, t->partialRotary, "partial_rotary_factor", 1.0); !s) return s;
    std::optional<std::int64_t> original;
    if (phi3) original = f.integer({"original_max_position_embeddings"}, 4096, 1, L.positions);
    else original = f.optionalInteger("original_max_position_embeddings", 1, L.positions);
    if (!f.ok()) return f.status();
    if (Status s = readRope(f, c, phi3, original); !s) return s;
    return readWindows(f, c, *t);
}

Status mapGptNeoX(Fields &f, ModelConfig &c)
{
    c.family = "GPT-NeoX";
    c.causal = true;
    c.positions = PositionKind::RoPE;
    c.norm = NormKind::LayerNorm;
    c.vocabSize = f.integer({"vocab_size"}, std::nullopt, 1, L.vocab);
    c.dModel = f.integer({"hidden_size"}, std::nullopt, 1, L.width);
    c.layers = f.integer({"num_hidden_layers"}, std::nullopt, 1, L.layers);
    c.heads = f.integer({"num_attention_heads"}, std::nullopt, 1, L.heads);
    c.intermediate = f.integer({"intermediate_size"}, std::nullopt, 1, L.intermediate);
    c.maxPositions = f.integer({"max_position_embeddings"}, 2048, 1, L.positions);
    c.layerNormEps = f.epsilon({"layer_norm_eps"}, 1e-5);
    if (Status s = [&] {
            const std::string act = f.string({"hidden_act"}, std::string("gelu"));
            if (!f.ok()) return f.status();
            if (const auto a = parseActivation(act)) c.activation = *a;
            else return bad(f, "hidden_act '" + act + "' is not supported");
            return Status::ok();
        }();
        !s)
        return s;
    c.parallelResidual = f.boolean("use_parallel_residual", true);
    c.attentionBias = c.outputBias = f.boolean("attention_bias", true);
    c.mlpBias = true;
    c.tiedEmbeddings = f.boolean("tie_word_embeddings", false);
    c.bosTokenId = f.optionalInteger("bos_token_id");
    c.eosTokenId = f.optionalInteger("eos_token_id");
    c.padTokenId = f.optionalInteger("pad_token_id");
    if (!f.ok()) return f.status();
    if (c.dModel % c.heads != 0)
        return bad(f, "hidden_size " + std::to_string(c.dModel) + " is not a multiple of num_attention_heads " +
                          std::to_string(c.heads));
    c.dHead = c.dModel / c.heads;
    c.kvHeads = c.heads;
    if (Status s = readPartialRotary(f, c, true, "rotary_pct", 0.25); !s) return s;
    if (Status s = readRope(f, c, false, f.optionalInteger("original_max_position_embeddings", 1, L.positions)); !s)
        return s;
    c.layerAttention.assign(static_cast<std::size_t>(c.layers), LayerAttention{});
    return f.status();
}

} // namespace detail

} // namespace attn
