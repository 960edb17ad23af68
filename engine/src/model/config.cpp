// SPDX-License-Identifier: GPL-3.0-or-later
// config.json → ModelConfig: the family registry (model_type → mapping, accepted classes), the checked field
// reader, the GPT-2 and encoder (BERT, RoBERTa, DistilBERT) mappings, and the refusals that come before any
// mapping (quantized and multimodal checkpoints). The LLaMA family and GPT-NeoX are mapped in families.cpp.
// Defaults follow transformers' configuration_*.py (the pinned version, tools/requirements.txt); the fields that
// fix tensor shapes are required, since transformers always writes them.
#include "configfields.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>

namespace attn {

using nlohmann::json;

std::string architectureName(Architecture a)
{
    switch (a) {
    case Architecture::Gpt2: return "gpt2";
    case Architecture::Bert: return "bert";
    case Architecture::Synthetic: return "synthetic";
    case Architecture::Llama: return "llama";
    case Architecture::GptNeoX: return "gpt_neox";
    case Architecture::Roberta: return "roberta";
    case Architecture::DistilBert: return "distilbert";
    }
    return "unknown";
}

namespace {

struct ActivationName {
    Activation a;
    const char *name;
};
constexpr std::array<ActivationName, 10> kActivations{{
    {Activation::Gelu, "gelu"},
    {Activation::GeluNew, "gelu_new"},
    {Activation::GeluFast, "gelu_fast"},
    {Activation::QuickGelu, "quick_gelu"},
    {Activation::Relu, "relu"},
    {Activation::Silu, "silu"},
    {Activation::Tanh, "tanh"},
    // Aliases: numerically the same functions in transformers' ACT2FN.
    {Activation::GeluNew, "gelu_pytorch_tanh"},
    {Activation::Silu, "swish"},
    {Activation::Gelu, "gelu_python"},
}};

} // namespace

std::string activationName(Activation a)
{
    for (const auto &x : kActivations)
        if (x.a == a) return x.name;
    return "unknown";
}

std::optional<Activation> parseActivation(const std::string &name)
{
    for (const auto &x : kActivations)
        if (name == x.name) return x.a;
    return std::nullopt;
}

namespace detail {

std::string jsonTypeOf(const json &j)
{
    if (j.is_number_float()) return "a fractional number (" + j.dump() + ")";
    if (j.is_number_integer()) return "an integer";
    if (j.is_null()) return "null";
    return std::string("a ") + j.type_name();
}

namespace {

std::string aliasNote(std::initializer_list<const char *> names)
{
    if (names.size() < 2) return {};
    std::string s = " (or";
    for (auto it = names.begin() + 1; it != names.end(); ++it) s += std::string(" '") + *it + "'";
    return s + ")";
}

std::string numberText(double v)
{
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

} // namespace

const json *Fields::find(std::initializer_list<const char *> names, std::string *which) const
{
    for (const char *n : names) {
        const auto it = m_root.find(n);
        if (it != m_root.end()) {
            if (which) *which = n;
            return &*it;
        }
    }
    return nullptr;
}

void Fields::fail(const std::string &what)
{
    if (ok()) m_status = Status(ErrorCode::FormatError, m_label + ": " + what);
}

std::int64_t Fields::integer(std::initializer_list<const char *> names, std::optional<std::int64_t> fallback,
                             std::int64_t minimum, std::int64_t maximum)
{
    if (!ok()) return fallback.value_or(0);
    std::string which;
    const json *j = find(names, &which);
    if (!j || (j->is_null() && fallback)) {
        if (fallback) return *fallback;
        fail("missing required field '" + std::string(*names.begin()) + "'" + aliasNote(names));
        return 0;
    }
    // Integers beyond int64 arrive as unsigned (up to 2^64) or as floats; both are "too large".
    if (j->is_number_unsigned() && j->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
        fail("field '" + which + "' is " + j->dump() + "; the limit is " + std::to_string(maximum));
        return 0;
    }
    if (!j->is_number_integer()) {
        fail("field '" + which + "' must be an integer, but is " + jsonTypeOf(*j));
        return 0;
    }
    const auto v = j->get<std::int64_t>();
    if (v < minimum) {
        fail("field '" + which + "' is " + std::to_string(v) + "; it must be at least " + std::to_string(minimum));
        return 0;
    }
    if (v > maximum) {
        fail("field '" + which + "' is " + std::to_string(v) + "; the limit is " + std::to_string(maximum));
        return 0;
    }
    return v;
}

std::optional<std::int64_t> Fields::optionalInteger(const char *name, std::int64_t minimum, std::int64_t maximum)
{
    if (!ok()) return std::nullopt;
    const json *j = find({name});
    if (!j || j->is_null()) return std::nullopt;
    return integer({name}, std::nullopt, minimum, maximum);
}

float Fields::epsilon(std::initializer_list<const char *> names, double fallback)
{
    const double v = number(names, fallback, true, kConfigLimits.maxEps);
    if (ok() && v < kConfigLimits.minEps) {
        std::string which;
        find(names, &which);
        fail("field '" + which + "' is " + numberText(v) + "; it must be in [" + numberText(kConfigLimits.minEps) +
             ", " + numberText(kConfigLimits.maxEps) + "]");
    }
    return static_cast<float>(v);
}

double Fields::number(std::initializer_list<const char *> names, double fallback, bool positive, double maximum)
{
    if (!ok()) return fallback;
    std::string which;
    const json *j = find(names, &which);
    if (!j || j->is_null()) return fallback;
    if (!j->is_number()) {
        fail("field '" + which + "' must be a number, but is " + jsonTypeOf(*j));
        return fallback;
    }
    const double v = j->get<double>();
    // Values are used as float32 in the kernels: 1e300 would become infinity there.
    if (!std::isfinite(v) || !std::isfinite(static_cast<float>(v))) {
        fail("field '" + which + "' is " + numberText(v) + ", which is not a finite float32 number");
        return fallback;
    }
    if (positive && !(v > 0.0)) {
        fail("field '" + which + "' is " + numberText(v) + "; it must be positive");
        return fallback;
    }
    if (std::fabs(v) > maximum) {
        fail("field '" + which + "' is " + numberText(v) + "; the limit is " + numberText(maximum));
        return fallback;
    }
    return v;
}

std::optional<double> Fields::optionalNumber(const char *name, bool positive, double maximum)
{
    if (!ok()) return std::nullopt;
    const json *j = find({name});
    if (!j || j->is_null()) return std::nullopt;
    return number({name}, 0.0, positive, maximum);
}

bool Fields::boolean(const char *name, bool fallback)
{
    if (!ok()) return fallback;
    const json *j = find({name});
    if (!j || j->is_null()) return fallback;
    if (!j->is_boolean()) {
        fail("field '" + std::string(name) + "' must be true or false, but is " + jsonTypeOf(*j));
        return fallback;
    }
    return j->get<bool>();
}

std::string Fields::string(std::initializer_list<const char *> names, std::optional<std::string> fallback)
{
    if (!ok()) return {};
    std::string which;
    const json *j = find(names, &which);
    if (!j || (j->is_null() && fallback)) {
        if (fallback) return *fallback;
        fail("missing required field '" + std::string(*names.begin()) + "'" + aliasNote(names));
        return {};
    }
    if (!j->is_string()) {
        fail("field '" + which + "' must be a string, but is " + jsonTypeOf(*j));
        return {};
    }
    return j->get<std::string>();
}

namespace {

const ConfigLimits &L = kConfigLimits;

Status activationFrom(Fields &f, ModelConfig &c, std::initializer_list<const char *> names, const char *fallback)
{
    std::string which;
    f.find(names, &which);
    const std::string act = f.string(names, std::string(fallback));
    if (!f.ok()) return f.status();
    const auto a = parseActivation(act);
    if (!a)
        return Status(ErrorCode::FormatError, f.label() + ": " + (which.empty() ? *names.begin() : which) + " '" + act +
                                                  "' is not supported (gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, "
                                                  "quick_gelu, relu, silu, tanh)");
    c.activation = *a;
    return Status::ok();
}

// Labels: id2label decides num_labels in transformers; otherwise num_labels, default 2.
Status readLabels(Fields &f, ModelConfig &c)
{
    const std::string &label = f.label();
    if (const json *id2label = f.find({"id2label"}); id2label && !id2label->is_null()) {
        if (!id2label->is_object())
            return Status(ErrorCode::FormatError, label + ": field 'id2label' must be an object, but is " +
                                                      jsonTypeOf(*id2label));
        if (static_cast<std::int64_t>(id2label->size()) > L.labels)
            return Status(ErrorCode::FormatError, label + ": id2label has " + std::to_string(id2label->size()) +
                                                      " entries; the limit is " + std::to_string(L.labels));
        std::map<std::int64_t, std::string> byId;
        for (auto it = id2label->begin(); it != id2label->end(); ++it) {
            std::int64_t id = -1;
            const std::string &k = it.key();
            const auto [p, ec] = std::from_chars(k.data(), k.data() + k.size(), id);
            if (ec != std::errc() || p != k.data() + k.size() || id < 0 || !it.value().is_string())
                return Status(ErrorCode::FormatError, label + ": id2label entry '" + k + "' must map a label id to a string");
            byId[id] = it.value().get<std::string>();
        }
        std::int64_t expect = 0;
        for (const auto &[id, name] : byId) {
            if (id != expect)
                return Status(ErrorCode::FormatError, label + ": id2label is missing label id " + std::to_string(expect));
            c.labels.push_back(name);
            ++expect;
        }
        c.numLabels = static_cast<std::int64_t>(c.labels.size());
        return Status::ok();
    }
    // Checked before the names are built: 9e18 labels would otherwise grow memory until the OOM killer.
    c.numLabels = f.integer({"num_labels"}, 2, 1, L.labels);
    if (!f.ok()) return f.status();
    for (std::int64_t i = 0; i < c.numLabels; ++i) c.labels.push_back("LABEL_" + std::to_string(i));
    return Status::ok();
}

} // namespace

Status mapGpt2(Fields &f, ModelConfig &c)
{
    c.family = "GPT-2";
    c.vocabSize = f.integer({"vocab_size"}, std::nullopt, 1, L.vocab);
    c.dModel = f.integer({"n_embd", "hidden_size"}, std::nullopt, 1, L.width);
    c.layers = f.integer({"n_layer", "num_hidden_layers"}, std::nullopt, 1, L.layers);
    c.heads = f.integer({"n_head", "num_attention_heads"}, std::nullopt, 1, L.heads);
    c.maxPositions = f.integer({"n_positions", "max_position_embeddings"}, 1024, 1, L.positions);
    c.intermediate = f.integer({"n_inner"}, 4 * c.dModel, 1, L.intermediate);   // dModel ≤ 2^16: no overflow
    c.layerNormEps = f.epsilon({"layer_norm_epsilon"}, 1e-5);
    c.scaleAttnWeights = f.boolean("scale_attn_weights", true);
    c.scaleAttnByInverseLayerIdx = f.boolean("scale_attn_by_inverse_layer_idx", false);
    f.boolean("reorder_and_upcast_attn", false);   // numerically a no-op in fp32
    if (Status s = activationFrom(f, c, {"activation_function"}, "gelu_new"); !s) return s;
    c.positions = PositionKind::Learned;
    c.causal = true;
    c.attentionBias = c.outputBias = c.mlpBias = true;
    c.tiedEmbeddings = f.boolean("tie_word_embeddings", true);
    c.bosTokenId = f.optionalInteger("bos_token_id");
    c.eosTokenId = f.optionalInteger("eos_token_id");
    c.padTokenId = f.optionalInteger("pad_token_id");
    return f.status();
}

Status mapEncoder(Fields &f, ModelConfig &c)
{
    c.postNorm = true;
    c.positions = PositionKind::Learned;
    c.attentionBias = c.outputBias = c.mlpBias = true;
    if (c.architecture == Architecture::DistilBert) {
        c.family = "DistilBERT";
        c.vocabSize = f.integer({"vocab_size"}, std::nullopt, 1, L.vocab);
        c.dModel = f.integer({"dim"}, std::nullopt, 1, L.width);
        c.layers = f.integer({"n_layers"}, std::nullopt, 1, L.layers);
        c.heads = f.integer({"n_heads"}, std::nullopt, 1, L.heads);
        c.intermediate = f.integer({"hidden_dim"}, std::nullopt, 1, L.intermediate);
        c.maxPositions = f.integer({"max_position_embeddings"}, 512, 1, L.positions);
        c.layerNormEps = 1e-12f;   // hard-coded in modeling_distilbert.py
        f.boolean("sinusoidal_pos_embds", false);   // the table is in the checkpoint either way
        c.padTokenId = f.optionalInteger("pad_token_id");
        if (Status s = activationFrom(f, c, {"activation"}, "gelu"); !s) return s;
    } else {
        const bool roberta = c.architecture == Architecture::Roberta;
        c.family = roberta ? "RoBERTa" : "BERT";
        c.vocabSize = f.integer({"vocab_size"}, std::nullopt, 1, L.vocab);
        c.dModel = f.integer({"hidden_size"}, std::nullopt, 1, L.width);
        c.layers = f.integer({"num_hidden_layers"}, std::nullopt, 1, L.layers);
        c.heads = f.integer({"num_attention_heads"}, std::nullopt, 1, L.heads);
        c.intermediate = f.integer({"intermediate_size"}, std::nullopt, 1, L.intermediate);
        c.maxPositions = f.integer({"max_position_embeddings"}, 512, 1, L.positions);
        c.typeVocabSize = f.integer({"type_vocab_size"}, 2, 1, L.typeVocab);
        c.layerNormEps = f.epsilon({"layer_norm_eps"}, 1e-12);
        const std::string pet = f.string({"position_embedding_type"}, std::string("absolute"));
        c.causal = f.boolean("is_decoder", false);
        c.padTokenId = f.optionalInteger("pad_token_id", 0, L.vocab);
        if (Status s = activationFrom(f, c, {"hidden_act"}, "gelu"); !s) return s;
        if (pet != "absolute")
            return Status(ErrorCode::FormatError, f.label() + ": position_embedding_type '" + pet +
                                                      "' is not supported; only 'absolute' is");
        if (roberta) {
            // create_position_ids_from_input_ids: real tokens at padding_idx + 1, + 2, ...; padding at padding_idx.
            if (!c.padTokenId) c.padTokenId = 1;
            c.positionOffset = *c.padTokenId + 1;
            if (c.positionOffset >= c.maxPositions)
                return Status(ErrorCode::FormatError, f.label() + ": pad_token_id " + std::to_string(*c.padTokenId) +
                                                          " leaves no position below max_position_embeddings " +
                                                          std::to_string(c.maxPositions));
        }
    }
    if (!f.ok()) return f.status();
    return readLabels(f, c);
}

namespace {

struct KnownClass {
    const char *name;
    ModelHead head;
};

struct FamilyInfo {
    const char *modelType;
    Architecture arch;
    Status (*map)(Fields &, ModelConfig &);
    std::vector<KnownClass> classes;   // the first is the default when architectures is absent
};

const std::vector<FamilyInfo> &families()
{
    using H = ModelHead;
    static const std::vector<FamilyInfo> list{
        {"gpt2", Architecture::Gpt2, mapGpt2,
         // The tied LM head applies to the base model too.
         {{"GPT2LMHeadModel", H::CausalLM}, {"GPT2Model", H::CausalLM}}},
        {"bert", Architecture::Bert, mapEncoder,
         {{"BertModel", H::None}, {"BertForMaskedLM", H::MaskedLM}, {"BertForSequenceClassification", H::Classification}}},
        {"roberta", Architecture::Roberta, mapEncoder,
         {{"RobertaModel", H::None}, {"RobertaForMaskedLM", H::MaskedLM},
          {"RobertaForSequenceClassification", H::Classification}}},
        {"distilbert", Architecture::DistilBert, mapEncoder,
         {{"DistilBertModel", H::None}, {"DistilBertForMaskedLM", H::MaskedLM},
          {"DistilBertForSequenceClassification", H::Classification}}},
        {"llama", Architecture::Llama, mapLlamaFamily, {{"LlamaForCausalLM", H::CausalLM}, {"LlamaModel", H::None}}},
        {"mistral", Architecture::Llama, mapLlamaFamily, {{"MistralForCausalLM", H::CausalLM}, {"MistralModel", H::None}}},
        {"qwen2", Architecture::Llama, mapLlamaFamily, {{"Qwen2ForCausalLM", H::CausalLM}, {"Qwen2Model", H::None}}},
        {"qwen3", Architecture::Llama, mapLlamaFamily, {{"Qwen3ForCausalLM", H::CausalLM}, {"Qwen3Model", H::None}}},
        {"gemma", Architecture::Llama, mapLlamaFamily, {{"GemmaForCausalLM", H::CausalLM}, {"GemmaModel", H::None}}},
        {"gemma2", Architecture::Llama, mapLlamaFamily, {{"Gemma2ForCausalLM", H::CausalLM}, {"Gemma2Model", H::None}}},
        {"gemma3_text", Architecture::Llama, mapLlamaFamily,
         {{"Gemma3ForCausalLM", H::CausalLM}, {"Gemma3TextModel", H::None}}},
        {"phi3", Architecture::Llama, mapLlamaFamily, {{"Phi3ForCausalLM", H::CausalLM}, {"Phi3Model", H::None}}},
        {"gpt_neox", Architecture::GptNeoX, mapGptNeoX, {{"GPTNeoXForCausalLM", H::CausalLM}, {"GPTNeoXModel", H::None}}},
    };
    return list;
}

std::string supportedTypes()
{
    std::string s;
    for (const FamilyInfo &f : families()) s += (s.empty() ? "'" : ", '") + std::string(f.modelType) + "'";
    return s;
}

// Model types that are multimodal wrappers around a supported text model: named so the message can say so.
constexpr std::array<const char *, 8> kMultimodal{{"gemma3", "paligemma", "llava", "llava_next", "qwen2_vl",
                                                   "qwen2_5_vl", "mllama", "idefics3"}};

Status refuseUnsupported(const json &root, const std::string &label, const std::string &modelType)
{
    if (const auto q = root.find("quantization_config"); q != root.end() && !q->is_null()) {
        std::string method = "unknown";
        if (q->is_object() && q->contains("quant_method") && (*q)["quant_method"].is_string())
            method = (*q)["quant_method"].get<std::string>();
        return Status(ErrorCode::FormatError,
                      label + ": the checkpoint is quantized (quantization_config, quant_method '" + method +
                          "'); AttnScope computes in float32 and reads F32, F16 and BF16 weights only: open the "
                          "unquantized checkpoint");
    }
    const bool multimodalType = std::find(kMultimodal.begin(), kMultimodal.end(), modelType) != kMultimodal.end();
    for (const char *key : {"vision_config", "text_config", "audio_config"})
        if (multimodalType || (root.contains(key) && !root[key].is_null())) {
            std::string what = "model_type '" + modelType + "'";
            if (root.contains("vision_config")) what += " with a vision tower (vision_config)";
            if (root.contains("text_config")) what += ", its language model under text_config";
            std::string hint;
            if (modelType == "gemma3") hint = " (Gemma 3 1B is the text-only 'gemma3_text', which is supported)";
            return Status(ErrorCode::FormatError, label + ": multimodal checkpoints are not supported: " + what +
                                                      hint + "; supported text models: " + supportedTypes());
        }
    return Status::ok();
}

Status finish(Fields &f, ModelConfig &c)
{
    const std::string &label = f.label();
    if (c.dHead == 0) {
        if (c.dModel % c.heads != 0)
            return Status(ErrorCode::FormatError, label + ": the width (" + std::to_string(c.dModel) +
                                                      ") is not a multiple of the number of heads (" +
                                                      std::to_string(c.heads) + ")");
        c.dHead = c.dModel / c.heads;
    }
    if (c.kvHeads == 0) c.kvHeads = c.heads;
    if (c.heads % c.kvHeads != 0)
        return Status(ErrorCode::FormatError, label + ": num_attention_heads (" + std::to_string(c.heads) +
                                                  ") is not a multiple of num_key_value_heads (" +
                                                  std::to_string(c.kvHeads) + ")");
    if (!estimatedWeightBytes(c))
        return Status(ErrorCode::FormatError, label + ": the sizes imply more weights than 64 bits can count");
    return Status::ok();
}

} // namespace

} // namespace detail

Result<ModelConfig> parseModelConfig(const std::string &text, const std::string &label)
{
    json root;
    try {
        root = json::parse(text);
    } catch (const json::exception &e) {
        return Status(ErrorCode::FormatError, label + ": not valid JSON: " + e.what());
    }
    if (!root.is_object()) return Status(ErrorCode::FormatError, label + ": must be a JSON object");

    detail::Fields f(root, label);
    ModelConfig c;
    c.modelType = f.string({"model_type"}, std::nullopt);
    if (!f.ok()) return f.status();
    if (Status s = detail::refuseUnsupported(root, label, c.modelType); !s) return s;
    const detail::FamilyInfo *family = nullptr;
    for (const detail::FamilyInfo &fi : detail::families())
        if (c.modelType == fi.modelType) family = &fi;
    if (!family)
        return Status(ErrorCode::FormatError, label + ": model_type '" + c.modelType +
                                                  "' is not supported; supported: " + detail::supportedTypes());
    c.architecture = family->arch;

    // architectures: optional; when present its first entry must be a class this engine implements.
    if (const json *arch = f.find({"architectures"}); arch && !arch->is_null()) {
        if (!arch->is_array() || arch->empty() || !(*arch)[0].is_string())
            return Status(ErrorCode::FormatError,
                          label + ": field 'architectures' must be a non-empty array of strings, but is " + arch->dump());
        const std::string cls = (*arch)[0].get<std::string>();
        const detail::KnownClass *known = nullptr;
        for (const auto &k : family->classes)
            if (cls == k.name) known = &k;
        if (!known) {
            std::string list;
            for (const auto &k : family->classes) list += (list.empty() ? "" : ", ") + std::string(k.name);
            return Status(ErrorCode::FormatError, label + ": architectures[0] '" + cls + "' is not supported for model_type '" +
                                                      c.modelType + "'; supported: " + list);
        }
        c.architectureClass = cls;
        c.head = known->head;
    }
    if (Status s = family->map(f, c); !s) return s;
    if (!f.ok()) return f.status();
    // Decoders without "architectures": the causal-LM class. Encoders decide from their tensors (loader.cpp).
    if (c.architectureClass.empty() && c.causal && !c.postNorm) {
        c.architectureClass = family->classes.front().name;
        c.head = family->classes.front().head;
    }
    if (Status s = detail::finish(f, c); !s) return s;
    return c;
}

float attentionScale(const ModelConfig &c, std::int64_t layer)
{
    if (c.queryPreAttnScalar) return static_cast<float>(std::pow(*c.queryPreAttnScalar, -0.5));
    float scale = c.scaleAttnWeights ? 1.0f / std::sqrt(static_cast<float>(c.dHead)) : 1.0f;
    if (c.scaleAttnByInverseLayerIdx) scale /= static_cast<float>(layer + 1);
    return scale;
}

std::int64_t layerWindow(const ModelConfig &c, std::int64_t layer)
{
    if (layer < 0 || static_cast<std::size_t>(layer) >= c.layerAttention.size()) return 0;
    return c.layerAttention[static_cast<std::size_t>(layer)].window;
}

std::vector<std::vector<std::int64_t>> kvGroups(const ModelConfig &c)
{
    const std::int64_t kv = c.kvHeads > 0 ? c.kvHeads : c.heads;
    std::vector<std::vector<std::int64_t>> groups(static_cast<std::size_t>(kv));
    const std::int64_t per = kv > 0 ? c.heads / kv : 1;
    for (std::int64_t h = 0; h < c.heads; ++h) groups[static_cast<std::size_t>(h / per)].push_back(h);
    return groups;
}

std::optional<std::uint64_t> estimatedWeightBytes(const ModelConfig &c)
{
    using detail::addChecked;
    using detail::mulChecked;
    const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v < 0 ? 0 : v); };
    const std::uint64_t D = u(c.dModel), I = u(c.intermediate), V = u(c.vocabSize);
    const std::uint64_t q = u(c.heads) * u(c.dHead), kv = u(c.kvHeads > 0 ? c.kvHeads : c.heads) * u(c.dHead);
    std::uint64_t perLayer = 0, t = 0, total = 0;
    // q, k, v, o, plus the MLP (gated: three matrices) and a few norms.
    const std::uint64_t mlpMats = c.gatedMlp ? 3 : 2;
    if (!mulChecked(D, q + 2 * kv, t) || !addChecked(perLayer, t, perLayer)) return std::nullopt;
    if (!mulChecked(q, D, t) || !addChecked(perLayer, t, perLayer)) return std::nullopt;
    if (!mulChecked(D, I, t) || !mulChecked(t, mlpMats, t) || !addChecked(perLayer, t, perLayer)) return std::nullopt;
    if (!addChecked(perLayer, 8 * D + q + 2 * kv + 3 * I, perLayer)) return std::nullopt;
    if (!mulChecked(perLayer, u(c.layers), total)) return std::nullopt;
    std::uint64_t emb = 0;
    if (!mulChecked(V, D, emb) || !addChecked(total, emb, total)) return std::nullopt;
    if (!c.tiedEmbeddings && c.head == ModelHead::CausalLM && !addChecked(total, emb, total)) return std::nullopt;
    if (c.positions == PositionKind::Learned) {
        if (!mulChecked(u(c.maxPositions), D, t) || !addChecked(total, t, total)) return std::nullopt;
        if (!mulChecked(u(c.typeVocabSize), D, t) || !addChecked(total, t, total)) return std::nullopt;
    }
    if (!mulChecked(u(c.numLabels) + 2 * D, D, t) || !addChecked(total, t, total)) return std::nullopt;
    if (!mulChecked(total, 4, total)) return std::nullopt;
    return total;
}

} // namespace attn
