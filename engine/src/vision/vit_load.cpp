// SPDX-License-Identifier: GPL-3.0-or-later
// ViT checkpoint folders (vit.h): config.json → VitConfig, model.safetensors → VitWeights. Tensor names are the
// Hub's (transformers saves them so whatever it calls them inside); an optional "vit." prefix (classifiers) is
// stripped. Every tensor is checked against the shape config.json implies, and a tensor this loader does not use
// is an error (a checkpoint of another layout must not load half-read).
#include "vit_weights.h"

#include <attnscope/safetensors.h>

#include <nlohmann/json.hpp>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace attn {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

Status formatError(const std::string &what) { return {ErrorCode::FormatError, what}; }

Result<std::string> readText(const fs::path &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status(ErrorCode::IoError, path.string() + ": cannot open the file for reading");
    std::ostringstream s;
    s << in.rdbuf();
    if (in.bad()) return Status(ErrorCode::IoError, path.string() + ": read error");
    return s.str();
}

class Fields {
public:
    Fields(const json &root, const std::string &source) : m_root(root), m_source(source) {}
    const Status &status() const { return m_status; }
    const json *get(const char *name) const
    {
        const auto it = m_root.find(name);
        return it == m_root.end() || it->is_null() ? nullptr : &*it;
    }
    void fail(const std::string &field, const std::string &what)
    {
        if (m_status) m_status = formatError(m_source + ": field '" + field + "' " + what);
    }
    std::int64_t integer(const json &j, const std::string &field, std::int64_t lo, std::int64_t hi)
    {
        if (!j.is_number_integer() && !j.is_number_unsigned()) {
            fail(field, "is " + j.dump() + "; expected an integer");
            return lo;
        }
        const auto v = j.get<std::int64_t>();
        if (v < lo || v > hi) fail(field, "is " + std::to_string(v) + "; expected " + std::to_string(lo) + " … " +
                                              std::to_string(hi));
        return v < lo || v > hi ? lo : v;
    }
    std::int64_t integer(const char *name, std::int64_t fallback, std::int64_t lo, std::int64_t hi)
    {
        const json *j = get(name);
        return j ? integer(*j, name, lo, hi) : fallback;
    }
    // An integer or [height, width].
    void pair(const char *name, std::int64_t &h, std::int64_t &w, std::int64_t hi)
    {
        const json *j = get(name);
        if (!j) return;
        if (j->is_array()) {
            if (j->size() != 2) return fail(name, "has " + std::to_string(j->size()) + " entries; expected [height, width]");
            h = integer((*j)[0], std::string(name) + "[0]", 1, hi);
            w = integer((*j)[1], std::string(name) + "[1]", 1, hi);
        } else {
            h = w = integer(*j, name, 1, hi);
        }
    }
    std::string text(const char *name, const std::string &fallback)
    {
        const json *j = get(name);
        if (!j) return fallback;
        if (!j->is_string()) fail(name, "is " + j->dump() + "; expected a string");
        return j->is_string() ? j->get<std::string>() : fallback;
    }
    Activation activation(const char *name, Activation fallback)
    {
        const std::string s = text(name, activationName(fallback));
        const auto a = parseActivation(s);
        if (!a) fail(name, "'" + s + "' is not an activation this engine implements");
        return a.value_or(fallback);
    }

private:
    const json &m_root;
    std::string m_source;
    Status m_status;
};

Status readLabels(Fields &f, const json &root, const std::string &source, VitConfig &c)
{
    const auto it = root.find("id2label");
    if (it != root.end() && !it->is_null()) {
        if (!it->is_object()) return formatError(source + ": field 'id2label' must be an object");
        std::map<std::int64_t, std::string> byId;
        for (auto e = it->begin(); e != it->end(); ++e) {
            std::int64_t id = -1;
            const std::string &k = e.key();
            const auto [p, ec] = std::from_chars(k.data(), k.data() + k.size(), id);
            if (ec != std::errc() || p != k.data() + k.size() || id < 0 || !e.value().is_string())
                return formatError(source + ": id2label entry '" + k + "' must map a label id to a string");
            byId[id] = e.value().get<std::string>();
        }
        for (const auto &[id, name] : byId) {
            if (id != static_cast<std::int64_t>(c.labels.size()))
                return formatError(source + ": id2label is missing label id " + std::to_string(c.labels.size()));
            c.labels.push_back(name);
        }
        c.numLabels = static_cast<std::int64_t>(c.labels.size());
        if (c.numLabels == 0) return formatError(source + ": field 'id2label' is empty");
        return Status::ok();
    }
    c.numLabels = f.integer("num_labels", 2, 1, 1 << 20);
    for (std::int64_t i = 0; i < c.numLabels; ++i) c.labels.push_back("LABEL_" + std::to_string(i));
    return f.status();
}

// Hub name → loader name: the "vit." prefix of ViTForImageClassification dropped.
std::string canonical(const std::string &name)
{
    return name.rfind("vit.", 0) == 0 ? name.substr(4) : name;
}

// dst.w [in, out] from an nn.Linear-style [out, in] matrix.
void setTransposed(detail::Linear &dst, const std::vector<float> &w, std::int64_t in, std::int64_t out)
{
    dst.in = in;
    dst.out = out;
    dst.w.resize(w.size());
    for (std::int64_t o = 0; o < out; ++o)
        for (std::int64_t i = 0; i < in; ++i) dst.w[static_cast<std::size_t>(i * out + o)] = w[static_cast<std::size_t>(o * in + i)];
}

class Tensors {
public:
    explicit Tensors(const SafetensorsFile &file) : m_file(file)
    {
        for (const SafetensorsTensor &t : file.tensors()) m_names[canonical(t.name)] = &t;
    }
    const Status &status() const { return m_status; }
    bool has(const std::string &name) const { return m_names.count(name) != 0; }

    std::vector<float> take(const std::string &name, const std::vector<std::int64_t> &shape, const char *why)
    {
        if (!m_status) return {};
        m_used.insert(name);
        const auto it = m_names.find(name);
        if (it == m_names.end()) {
            m_status = formatError(m_file.path() + ": missing tensor '" + name + "' (" + why + ")");
            return {};
        }
        if (it->second->shape != shape) {
            SafetensorsTensor want;
            want.shape = shape;
            m_status = formatError(m_file.path() + ": tensor '" + it->second->name + "' has shape " +
                                   it->second->shapeString() + "; expected " + want.shapeString() + " (" + why + ")");
            return {};
        }
        auto r = m_file.readFloat32(*it->second);
        if (!r) {
            m_status = r.status();
            return {};
        }
        return std::move(r).value();
    }
    void norm(detail::LayerNormWeights &dst, const std::string &prefix, std::int64_t D)
    {
        dst.gamma = take(prefix + ".weight", {D}, "hidden_size");
        dst.beta = take(prefix + ".bias", {D}, "hidden_size");
    }
    // nn.Linear [out, in] (+ [out]) → [in, out].
    void linear(detail::Linear &dst, const std::string &prefix, std::int64_t in, std::int64_t out, bool bias,
                const char *why)
    {
        const std::vector<float> w = take(prefix + ".weight", {out, in}, why);
        if (bias) dst.b = take(prefix + ".bias", {out}, why);
        if (m_status) setTransposed(dst, w, in, out);
    }
    void ignore(const std::string &name) { m_used.insert(name); }
    Status checkAllUsed() const
    {
        if (!m_status) return m_status;
        for (const auto &[name, t] : m_names)
            if (!m_used.count(name))
                return formatError(m_file.path() + ": unexpected tensor '" + t->name +
                                   "' (not part of a ViTModel / ViTForImageClassification checkpoint with this config)");
        return Status::ok();
    }

private:
    const SafetensorsFile &m_file;
    std::map<std::string, const SafetensorsTensor *> m_names;
    std::set<std::string> m_used;
    Status m_status;
};

} // namespace

Result<VitConfig> parseVitConfig(std::string_view jsonText, const std::string &source)
{
    json root = json::parse(jsonText, nullptr, false);
    if (root.is_discarded() || !root.is_object()) return formatError(source + ": not a JSON object");
    Fields f(root, source);
    VitConfig c;
    const std::string type = f.text("model_type", "");
    if (!f.status()) return f.status();
    if (type != "vit") return formatError(source + ": field 'model_type' is '" + type + "'; expected 'vit'");
    if (const json *a = f.get("architectures"); a && a->is_array() && !a->empty() && (*a)[0].is_string())
        c.architectureClass = (*a)[0].get<std::string>();
    else
        c.architectureClass = "ViTModel";
    if (c.architectureClass != "ViTModel" && c.architectureClass != "ViTForImageClassification")
        return formatError(source + ": field 'architectures' names " + c.architectureClass +
                           "; this engine runs ViTModel and ViTForImageClassification");
    c.classifier = c.architectureClass == "ViTForImageClassification";
    c.hiddenSize = f.integer("hidden_size", c.hiddenSize, 1, 1 << 16);
    c.layers = f.integer("num_hidden_layers", c.layers, 1, 1024);
    c.heads = f.integer("num_attention_heads", c.heads, 1, 1024);
    c.intermediate = f.integer("intermediate_size", c.intermediate, 1, 1 << 18);
    f.pair("image_size", c.imageHeight, c.imageWidth, kMaxTargetSide);
    f.pair("patch_size", c.patchHeight, c.patchWidth, kMaxTargetSide);
    c.channels = f.integer("num_channels", 3, 3, 3);
    c.activation = f.activation("hidden_act", c.activation);
    c.poolerActivation = f.activation("pooler_act", c.poolerActivation);
    if (const json *e = f.get("layer_norm_eps")) {
        if (!e->is_number() || !(e->get<double>() > 0.0)) f.fail("layer_norm_eps", "must be a positive number");
        else c.layerNormEps = static_cast<float>(e->get<double>());
    }
    if (const json *b = f.get("qkv_bias")) {
        if (!b->is_boolean()) f.fail("qkv_bias", "must be true or false");
        else c.qkvBias = b->get<bool>();
    }
    if (!f.status()) return f.status();
    if (const json *hd = f.get("head_dim")) {
        c.dHead = f.integer(*hd, "head_dim", 1, 1 << 16);
    } else {
        if (c.hiddenSize % c.heads != 0)
            return formatError(source + ": field 'hidden_size' " + std::to_string(c.hiddenSize) +
                               " is not a multiple of num_attention_heads " + std::to_string(c.heads));
        c.dHead = c.hiddenSize / c.heads;
    }
    if (const std::int64_t p = f.integer("pooler_output_size", c.hiddenSize, 1, 1 << 16); p != c.hiddenSize)
        f.fail("pooler_output_size", "is " + std::to_string(p) + "; this engine needs it equal to hidden_size");
    if (c.patchRows() < 1 || c.patchCols() < 1)
        f.fail("patch_size", "is larger than image_size");
    if (c.classifier)
        if (Status s = readLabels(f, root, source, c); !s) return s;
    if (!f.status()) return f.status();
    return c;
}

bool isVitFolder(const std::string &folder)
{
    std::error_code ec;
    const fs::path path = fs::path(folder) / "config.json";
    if (!fs::is_regular_file(path, ec)) return false;
    auto text = readText(path);
    if (!text) return false;
    const json root = json::parse(*text, nullptr, false);
    return root.is_object() && root.contains("model_type") && root["model_type"] == "vit";
}

namespace detail {

Result<VitWeights> loadVitFolder(const std::string &folder)
{
    const fs::path dir(folder);
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return Status(ErrorCode::IoError, folder + ": not a folder");
    auto text = readText(dir / "config.json");
    if (!text) return text.status();
    auto config = parseVitConfig(*text, (dir / "config.json").string());
    if (!config) return config.status();
    VitWeights w;
    w.config = *config;
    w.source = folder;
    const fs::path pre = dir / "preprocessor_config.json";
    if (fs::is_regular_file(pre, ec)) {
        auto p = loadPreprocessorConfig(pre.string());
        if (!p) return p.status();
        w.preprocessor = *p;
    }
    const fs::path st = dir / "model.safetensors";
    if (!fs::is_regular_file(st, ec))
        return Status(ErrorCode::IoError, folder + ": no model.safetensors (ViT checkpoints are read from safetensors "
                                                   "only; convert a pytorch_model.bin with transformers' save_pretrained)");
    auto file = SafetensorsFile::open(st.string());
    if (!file) return file.status();

    const VitConfig &c = w.config;
    const std::int64_t D = c.hiddenSize, HD = c.heads * c.dHead, I = c.intermediate;
    Tensors t(*file);
    w.clsToken = t.take("embeddings.cls_token", {1, 1, D}, "[1, 1, hidden_size]");
    w.positions = t.take("embeddings.position_embeddings", {1, 1 + c.patchRows() * c.patchCols(), D},
                         "[1, 1 + patches of image_size, hidden_size]");
    {
        // Conv2d [D, C, P_h, P_w] with kernel = stride: its rows are already the (channel, y, x)-ordered patch map.
        const std::int64_t in = c.channels * c.patchHeight * c.patchWidth;
        const std::vector<float> conv = t.take("embeddings.patch_embeddings.projection.weight",
                                               {D, c.channels, c.patchHeight, c.patchWidth},
                                               "Conv2d [hidden_size, num_channels, patch_size, patch_size]");
        w.patch.b = t.take("embeddings.patch_embeddings.projection.bias", {D}, "hidden_size");
        if (!t.status()) return t.status();
        setTransposed(w.patch, conv, in, D);
    }
    t.ignore("embeddings.mask_token");   // ViTForMaskedImageModeling's; unused for classification
    w.blocks.resize(static_cast<std::size_t>(c.layers));
    for (std::int64_t l = 0; l < c.layers; ++l) {
        VitBlock &b = w.blocks[static_cast<std::size_t>(l)];
        const std::string p = "encoder.layer." + std::to_string(l) + ".";
        t.norm(b.lnBefore, p + "layernorm_before", D);
        t.linear(b.q, p + "attention.attention.query", D, HD, c.qkvBias, "[heads·head_dim, hidden_size]");
        t.linear(b.k, p + "attention.attention.key", D, HD, c.qkvBias, "[heads·head_dim, hidden_size]");
        t.linear(b.v, p + "attention.attention.value", D, HD, c.qkvBias, "[heads·head_dim, hidden_size]");
        t.linear(b.o, p + "attention.output.dense", HD, D, true, "[hidden_size, heads·head_dim]");
        t.norm(b.lnAfter, p + "layernorm_after", D);
        t.linear(b.fc1, p + "intermediate.dense", D, I, true, "[intermediate_size, hidden_size]");
        t.linear(b.fc2, p + "output.dense", I, D, true, "[hidden_size, intermediate_size]");
    }
    t.norm(w.finalNorm, "layernorm", D);
    if (!c.classifier && t.has("pooler.dense.weight")) t.linear(w.pooler, "pooler.dense", D, D, true, "[hidden_size, hidden_size]");
    if (c.classifier) t.linear(w.classifier, "classifier", D, c.numLabels, true, "[num_labels, hidden_size]");
    if (Status s = t.checkAllUsed(); !s) return s;
    return w;
}

} // namespace detail

} // namespace attn
