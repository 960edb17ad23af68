// SPDX-License-Identifier: GPL-3.0-or-later
// ViT checkpoint folders (vit.h): config.json → VitConfig, model.safetensors → VitWeights. Tensor names are the
// Hub's (transformers saves them so whatever it calls them inside); an optional "vit." / "deit." prefix
// (classifiers) is stripped. Every tensor is checked against the shape config.json implies, and a tensor this
// loader does not use is an error (a checkpoint of another layout must not load half-read).
#include "model/hf_checkpoint.h"
#include "vit_weights.h"

#include <charconv>

namespace attn {

using namespace detail::hf;

namespace {

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

// Hub name → loader name: the "vit." / "deit." prefix of the classifiers dropped.
std::string canonical(const std::string &name)
{
    if (name.rfind("vit.", 0) == 0) return name.substr(4);
    if (name.rfind("deit.", 0) == 0) return name.substr(5);
    return name;
}

struct VitArchitecture {
    const char *type, *name;
    bool classifier, teacher;
};
constexpr VitArchitecture kArchitectures[] = {
    {"vit", "ViTModel", false, false},
    {"vit", "ViTForImageClassification", true, false},
    {"deit", "DeiTModel", false, false},
    {"deit", "DeiTForImageClassification", true, false},
    {"deit", "DeiTForImageClassificationWithTeacher", true, true},
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
    if (type != "vit" && type != "deit")
        return formatError(source + ": field 'model_type' is '" + type + "'; expected 'vit' or 'deit'");
    c.modelType = type;
    if (const json *a = f.get("architectures"); a && a->is_array() && !a->empty() && (*a)[0].is_string())
        c.architectureClass = (*a)[0].get<std::string>();
    else
        c.architectureClass = type == "vit" ? "ViTModel" : "DeiTModel";
    const VitArchitecture *arch = nullptr;
    for (const VitArchitecture &a : kArchitectures)
        if (type == a.type && c.architectureClass == a.name) arch = &a;
    if (!arch)
        return formatError(source + ": field 'architectures' names " + c.architectureClass + "; for model_type '" + type +
                           "' this engine runs " +
                           (type == "vit" ? "ViTModel and ViTForImageClassification"
                                          : "DeiTModel, DeiTForImageClassification and "
                                            "DeiTForImageClassificationWithTeacher"));
    c.classifier = arch->classifier;
    c.teacher = arch->teacher;
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

std::string vitTokenLabel(std::int64_t token, std::int64_t specialTokens, std::int64_t cols)
{
    if (token <= 0 || cols <= 0) return "[CLS]";
    if (token < specialTokens) return "[DIST]";
    const std::int64_t p = token - specialTokens;
    return "r" + std::to_string(p / cols) + "c" + std::to_string(p % cols);
}

std::string vitFamily(const VitConfig &config) { return config.modelType == "deit" ? "DeiT" : "ViT"; }

bool isVitFolder(const std::string &folder)
{
    const std::string type = folderModelType(folder);
    return type == "vit" || type == "deit";
}

namespace detail {

Result<VitWeights> loadVitFolder(const std::string &folder)
{
    auto folderConfig = readFolderConfig(folder);
    if (!folderConfig) return folderConfig.status();
    auto config = parseVitConfig(folderConfig->text, folderConfig->path);
    if (!config) return config.status();
    VitWeights w;
    w.config = *config;
    w.source = folder;
    std::error_code ec;
    const fs::path pre = folderConfig->dir / "preprocessor_config.json";
    if (fs::is_regular_file(pre, ec)) {
        auto p = loadPreprocessorConfig(pre.string());
        if (!p) return p.status();
        w.preprocessor = *p;
    }
    auto file = openModelSafetensors(folderConfig->dir);
    if (!file) return file.status();

    const VitConfig &c = w.config;
    const std::int64_t D = c.hiddenSize, HD = c.heads * c.dHead, I = c.intermediate, S = c.specialTokens();
    Tensors t(*file, canonical);
    w.clsToken = t.take("embeddings.cls_token", {1, 1, D}, "[1, 1, hidden_size]");
    if (c.modelType == "deit")
        w.distillationToken = t.take("embeddings.distillation_token", {1, 1, D}, "[1, 1, hidden_size]");
    w.positions = t.take("embeddings.position_embeddings", {1, S + c.patchRows() * c.patchCols(), D},
                         S == 1 ? "[1, 1 + patches of image_size, hidden_size]"
                                : "[1, 2 + patches of image_size, hidden_size]");
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
    if (c.teacher) {
        t.linear(w.classifier, "cls_classifier", D, c.numLabels, true, "[num_labels, hidden_size]");
        t.linear(w.distillationClassifier, "distillation_classifier", D, c.numLabels, true, "[num_labels, hidden_size]");
    } else if (c.classifier) {
        t.linear(w.classifier, "classifier", D, c.numLabels, true, "[num_labels, hidden_size]");
    }
    if (Status s = t.checkAllUsed("a " + c.architectureClass + " checkpoint with this config"); !s) return s;
    return w;
}

} // namespace detail

} // namespace attn
