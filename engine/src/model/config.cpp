// SPDX-License-Identifier: GPL-3.0-or-later
// config.json (GPT-2 and BERT families) and synthetic "random:" specs → ModelConfig.
// Defaults follow transformers' configuration_gpt2.py / configuration_bert.py; the fields that fix tensor shapes
// (vocabulary, width, layers, heads) are required, since transformers always writes them.
#include <attnscope/model.h>

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <map>
#include <set>

namespace attn {

using nlohmann::json;

std::string architectureName(Architecture a)
{
    switch (a) {
    case Architecture::Gpt2: return "gpt2";
    case Architecture::Bert: return "bert";
    case Architecture::Synthetic: return "synthetic";
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

std::string typeOf(const json &j)
{
    if (j.is_number_float()) return "a fractional number";
    if (j.is_number_integer()) return "an integer";
    if (j.is_null()) return "null";
    return std::string("a ") + j.type_name();
}

// Reads typed fields from the config object; the first error is kept and every message names the field.
class Fields {
public:
    Fields(const json &root, std::string label) : m_root(root), m_label(std::move(label)) {}

    const Status &status() const { return m_status; }
    bool ok() const { return m_status.isOk(); }

    // The first of `names` present (aliases), or nullptr.
    const json *find(std::initializer_list<const char *> names, std::string *which = nullptr) const
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

    std::int64_t integer(std::initializer_list<const char *> names, std::optional<std::int64_t> fallback,
                         std::int64_t minimum, std::int64_t maximum)
    {
        if (!ok()) return 0;
        std::string which;
        const json *j = find(names, &which);
        if (!j || (j->is_null() && fallback)) {
            if (fallback) return *fallback;
            fail("missing required field '" + std::string(*names.begin()) + "'" + aliasNote(names));
            return 0;
        }
        if (!j->is_number_integer()) {
            fail("field '" + which + "' must be an integer, but is " + typeOf(*j));
            return 0;
        }
        const auto v = j->get<std::int64_t>();
        if (v < minimum || v > maximum) {
            fail("field '" + which + "' is " + std::to_string(v) + "; it must be in [" + std::to_string(minimum) + ", " +
                 std::to_string(maximum) + "]");
            return 0;
        }
        return v;
    }

    std::optional<std::int64_t> optionalInteger(const char *name)
    {
        if (!ok()) return std::nullopt;
        const json *j = find({name});
        if (!j || j->is_null()) return std::nullopt;
        if (!j->is_number_integer()) {
            fail("field '" + std::string(name) + "' must be an integer or null, but is " + typeOf(*j));
            return std::nullopt;
        }
        return j->get<std::int64_t>();
    }

    double number(std::initializer_list<const char *> names, double fallback, bool positive)
    {
        if (!ok()) return 0;
        std::string which;
        const json *j = find(names, &which);
        if (!j) return fallback;
        if (!j->is_number()) {
            fail("field '" + which + "' must be a number, but is " + typeOf(*j));
            return 0;
        }
        const double v = j->get<double>();
        if (positive && !(v > 0.0)) {
            fail("field '" + which + "' is " + j->dump() + "; it must be positive");
            return 0;
        }
        return v;
    }

    // A layer-norm epsilon, stored as float: it must stay a finite, normal float (1e300 would become infinity,
    // 1e-50 zero) and be at most 1.
    float epsilon(std::initializer_list<const char *> names, double fallback)
    {
        const double v = number(names, fallback, true);
        if (!ok()) return 0;
        if (!(v >= kMinEpsilon && v <= 1.0)) {
            fail("field '" + std::string(*names.begin()) + "' is " + dumpNumber(v) + "; it must be in [1e-30, 1]");
            return 0;
        }
        return static_cast<float>(v);
    }

    bool boolean(const char *name, bool fallback)
    {
        if (!ok()) return fallback;
        const json *j = find({name});
        if (!j) return fallback;
        if (!j->is_boolean()) {
            fail("field '" + std::string(name) + "' must be true or false, but is " + typeOf(*j));
            return fallback;
        }
        return j->get<bool>();
    }

    std::string string(std::initializer_list<const char *> names, std::optional<std::string> fallback)
    {
        if (!ok()) return {};
        std::string which;
        const json *j = find(names, &which);
        if (!j) {
            if (fallback) return *fallback;
            fail("missing required field '" + std::string(*names.begin()) + "'" + aliasNote(names));
            return {};
        }
        if (!j->is_string()) {
            fail("field '" + which + "' must be a string, but is " + typeOf(*j));
            return {};
        }
        return j->get<std::string>();
    }

    void fail(const std::string &what)
    {
        if (ok()) m_status = Status(ErrorCode::FormatError, m_label + ": " + what);
    }

private:
    static constexpr double kMinEpsilon = 1e-30;

    static std::string dumpNumber(double v) { return json(v).dump(); }

    static std::string aliasNote(std::initializer_list<const char *> names)
    {
        if (names.size() < 2) return {};
        std::string s = " (or";
        for (auto it = names.begin() + 1; it != names.end(); ++it) s += std::string(" '") + *it + "'";
        return s + ")";
    }

    const json &m_root;
    std::string m_label;
    Status m_status;
};

// The largest sizes a config.json may state. Every real checkpoint lies far inside them (the widest models have
// d_model 2^14-2^15, vocabularies up to ~2^18, at most a few hundred layers); they exist so that no product of sizes
// overflows int64 (4 * n_embd, vocab * d_model * 4 bytes) and nothing is allocated for an absurd count before the
// tensors are checked against the file (docs/reliability.md, limits).
constexpr std::int64_t kMaxVocab = std::int64_t(1) << 24;
constexpr std::int64_t kMaxWidth = std::int64_t(1) << 16;
constexpr std::int64_t kMaxLayers = 1024;
constexpr std::int64_t kMaxHeads = 4096;
constexpr std::int64_t kMaxIntermediate = std::int64_t(1) << 20;
constexpr std::int64_t kMaxPositions = std::int64_t(1) << 24;
constexpr std::int64_t kMaxTypeVocab = std::int64_t(1) << 16;
constexpr std::int64_t kMaxLabels = std::int64_t(1) << 20;

struct KnownClass {
    const char *name;
    Architecture arch;
    ModelHead head;
};
constexpr std::array<KnownClass, 5> kClasses{{
    {"GPT2LMHeadModel", Architecture::Gpt2, ModelHead::CausalLM},
    {"GPT2Model", Architecture::Gpt2, ModelHead::CausalLM},   // the tied LM head applies to the base model too
    {"BertModel", Architecture::Bert, ModelHead::None},
    {"BertForMaskedLM", Architecture::Bert, ModelHead::MaskedLM},
    {"BertForSequenceClassification", Architecture::Bert, ModelHead::Classification},
}};

std::string knownClassList()
{
    std::string s;
    for (const auto &c : kClasses) s += (s.empty() ? "" : ", ") + std::string(c.name);
    return s;
}

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

Result<ModelConfig> parseModelConfig(const std::string &text, const std::string &label)
{
    json root;
    try {
        root = json::parse(text);
    } catch (const json::exception &e) {
        return Status(ErrorCode::FormatError, label + ": not valid JSON: " + e.what());
    }
    if (!root.is_object()) return Status(ErrorCode::FormatError, label + ": must be a JSON object");

    Fields f(root, label);
    ModelConfig c;
    c.modelType = f.string({"model_type"}, std::nullopt);
    if (!f.ok()) return f.status();
    if (c.modelType == "gpt2") {
        c.architecture = Architecture::Gpt2;
    } else if (c.modelType == "bert") {
        c.architecture = Architecture::Bert;
    } else {
        return Status(ErrorCode::FormatError, label + ": model_type '" + c.modelType +
                                                  "' is not supported; supported: 'gpt2', 'bert'");
    }

    // architectures: optional; when present its first entry must be a class this engine implements.
    if (const json *arch = f.find({"architectures"}); arch && !arch->is_null()) {
        if (!arch->is_array() || arch->empty() || !(*arch)[0].is_string())
            return Status(ErrorCode::FormatError,
                          label + ": field 'architectures' must be a non-empty array of strings, but is " + arch->dump());
        const std::string cls = (*arch)[0].get<std::string>();
        const KnownClass *known = nullptr;
        for (const auto &k : kClasses)
            if (cls == k.name) known = &k;
        if (!known)
            return Status(ErrorCode::FormatError, label + ": architectures[0] '" + cls +
                                                      "' is not supported; supported: " + knownClassList());
        if (known->arch != c.architecture)
            return Status(ErrorCode::FormatError, label + ": architectures[0] '" + cls + "' does not match model_type '" +
                                                      c.modelType + "'");
        c.architectureClass = cls;
        c.head = known->head;
    }

    if (c.architecture == Architecture::Gpt2) {
        c.vocabSize = f.integer({"vocab_size"}, std::nullopt, 1, kMaxVocab);
        c.dModel = f.integer({"n_embd", "hidden_size"}, std::nullopt, 1, kMaxWidth);
        c.layers = f.integer({"n_layer", "num_hidden_layers"}, std::nullopt, 1, kMaxLayers);
        c.heads = f.integer({"n_head", "num_attention_heads"}, std::nullopt, 1, kMaxHeads);
        c.maxPositions = f.integer({"n_positions", "max_position_embeddings"}, 1024, 1, kMaxPositions);
        c.intermediate = f.integer({"n_inner"}, 4 * c.dModel, 1, kMaxIntermediate);   // dModel <= 2^16: no overflow
        const std::string act = f.string({"activation_function"}, std::string("gelu_new"));
        c.layerNormEps = f.epsilon({"layer_norm_epsilon"}, 1e-5);
        c.scaleAttnWeights = f.boolean("scale_attn_weights", true);
        c.scaleAttnByInverseLayerIdx = f.boolean("scale_attn_by_inverse_layer_idx", false);
        f.boolean("reorder_and_upcast_attn", false);   // numerically a no-op in fp32
        if (!f.ok()) return f.status();
        if (auto a = parseActivation(act)) c.activation = *a;
        else return Status(ErrorCode::FormatError, label + ": activation_function '" + act + "' is not supported");
        c.positions = PositionKind::Learned;
        c.causal = true;
        if (c.architectureClass.empty()) {
            c.architectureClass = "GPT2LMHeadModel";
            c.head = ModelHead::CausalLM;
        }
        c.bosTokenId = f.optionalInteger("bos_token_id");
        c.eosTokenId = f.optionalInteger("eos_token_id");
        c.padTokenId = f.optionalInteger("pad_token_id");
    } else {
        c.vocabSize = f.integer({"vocab_size"}, std::nullopt, 1, kMaxVocab);
        c.dModel = f.integer({"hidden_size"}, std::nullopt, 1, kMaxWidth);
        c.layers = f.integer({"num_hidden_layers"}, std::nullopt, 1, kMaxLayers);
        c.heads = f.integer({"num_attention_heads"}, std::nullopt, 1, kMaxHeads);
        c.intermediate = f.integer({"intermediate_size"}, std::nullopt, 1, kMaxIntermediate);
        c.maxPositions = f.integer({"max_position_embeddings"}, 512, 1, kMaxPositions);
        c.typeVocabSize = f.integer({"type_vocab_size"}, 2, 1, kMaxTypeVocab);
        const std::string act = f.string({"hidden_act"}, std::string("gelu"));
        c.layerNormEps = f.epsilon({"layer_norm_eps"}, 1e-12);
        const std::string pet = f.string({"position_embedding_type"}, std::string("absolute"));
        c.causal = f.boolean("is_decoder", false);
        c.padTokenId = f.optionalInteger("pad_token_id");
        if (!f.ok()) return f.status();
        if (auto a = parseActivation(act)) c.activation = *a;
        else return Status(ErrorCode::FormatError, label + ": hidden_act '" + act + "' is not supported");
        if (pet != "absolute")
            return Status(ErrorCode::FormatError, label + ": position_embedding_type '" + pet +
                                                      "' is not supported; only 'absolute' is");
        c.positions = PositionKind::Learned;

        // Labels: id2label decides num_labels in transformers; otherwise num_labels, default 2.
        if (const json *id2label = f.find({"id2label"}); id2label && !id2label->is_null()) {
            if (!id2label->is_object())
                return Status(ErrorCode::FormatError, label + ": field 'id2label' must be an object, but is " +
                                                          typeOf(*id2label));
            if (static_cast<std::int64_t>(id2label->size()) > kMaxLabels)
                return Status(ErrorCode::FormatError, label + ": field 'id2label' has " +
                                                          std::to_string(id2label->size()) + " entries; at most " +
                                                          std::to_string(kMaxLabels) + " are allowed");
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
        } else {
            c.numLabels = f.integer({"num_labels"}, 2, 1, kMaxLabels);
            if (!f.ok()) return f.status();
            for (std::int64_t i = 0; i < c.numLabels; ++i) c.labels.push_back("LABEL_" + std::to_string(i));
        }
    }
    if (!f.ok()) return f.status();
    if (c.dModel % c.heads != 0)
        return Status(ErrorCode::FormatError, label + ": the width (" + std::to_string(c.dModel) +
                                                  ") is not a multiple of the number of heads (" +
                                                  std::to_string(c.heads) + ")");
    c.dHead = c.dModel / c.heads;
    return c;
}

Result<ModelConfig> parseSyntheticSpec(const std::string &spec)
{
    const std::string prefix = "random:";
    const auto bad = [&](const std::string &what) {
        return Status(ErrorCode::InvalidArgument, "synthetic model spec '" + spec + "': " + what);
    };
    if (spec.rfind(prefix, 0) != 0) return bad("must start with 'random:'");

    ModelConfig c;
    c.architecture = Architecture::Synthetic;
    c.modelType = "synthetic";
    c.architectureClass = "SyntheticAttention";
    c.head = ModelHead::None;
    c.layers = 1;
    c.heads = 4;
    c.dModel = 64;
    c.vocabSize = 256;
    c.maxPositions = 0;
    c.positions = PositionKind::None;
    c.activation = Activation::Gelu;
    c.layerNormEps = 1e-5f;

    struct Range {
        std::int64_t lo, hi;
    };
    const std::map<std::string, Range> numeric{{"layers", {1, 64}},      {"heads", {1, 256}},
                                               {"d_model", {1, 8192}},   {"seed", {0, INT64_MAX}},
                                               {"vocab", {1, 1 << 20}},  {"causal", {0, 1}}};
    std::set<std::string> seen;
    std::string body = spec.substr(prefix.size());
    std::size_t pos = 0;
    while (pos <= body.size() && !body.empty()) {
        const std::size_t comma = body.find(',', pos);
        const std::string item = body.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        pos = comma == std::string::npos ? body.size() + 1 : comma + 1;
        const std::size_t eq = item.find('=');
        if (item.empty() || eq == std::string::npos || eq == 0 || eq + 1 == item.size())
            return bad("'" + item + "' is not a key=value pair");
        const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
        if (!seen.insert(key).second) return bad("key '" + key + "' is given twice");
        if (key == "pe") {
            if (value == "none") c.positions = PositionKind::None;
            else if (value == "sinusoidal") c.positions = PositionKind::Sinusoidal;
            else if (value == "rope") c.positions = PositionKind::RoPE;
            else if (value == "alibi") c.positions = PositionKind::ALiBi;
            else return bad("pe '" + value + "' is unknown; use none, sinusoidal, rope or alibi");
            continue;
        }
        const auto range = numeric.find(key);
        if (range == numeric.end())
            return bad("unknown key '" + key + "'; known: layers, heads, d_model, seed, pe, vocab, causal");
        std::int64_t v = 0;
        const auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (ec != std::errc() || p != value.data() + value.size())
            return bad(key + " '" + value + "' is not an integer");
        if (v < range->second.lo || v > range->second.hi)
            return bad(key + " is " + value + "; it must be in [" + std::to_string(range->second.lo) + ", " +
                       std::to_string(range->second.hi) + "]");
        if (key == "layers") c.layers = v;
        else if (key == "heads") c.heads = v;
        else if (key == "d_model") c.dModel = v;
        else if (key == "seed") c.seed = static_cast<std::uint64_t>(v);
        else if (key == "vocab") c.vocabSize = v;
        else if (key == "causal") c.causal = v != 0;
    }
    if (c.dModel % c.heads != 0)
        return bad("d_model (" + std::to_string(c.dModel) + ") is not a multiple of heads (" + std::to_string(c.heads) + ")");
    c.dHead = c.dModel / c.heads;
    if (c.positions == PositionKind::RoPE && c.dHead % 2 != 0)
        return bad("pe=rope needs an even head size, but d_model / heads = " + std::to_string(c.dHead));
    return c;
}

} // namespace attn
