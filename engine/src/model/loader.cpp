// SPDX-License-Identifier: GPL-3.0-or-later
// Hugging Face checkpoint folders → ModelWeights. Tensor names and layouts: reference/formats-and-libraries.md §3.
// Names are canonicalised first (an optional `transformer.` / `bert.` prefix stripped, old LayerNorm.gamma/beta
// renamed), buffers that are not weights are skipped, and every tensor is checked against the shape config.json
// implies before it is used.
#include "weights.h"

#include <attnscope/limits.h>
#include <attnscope/safetensors.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace attn::detail {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

Status ioError(const std::string &what) { return {ErrorCode::IoError, what}; }
Status formatError(const std::string &what) { return {ErrorCode::FormatError, what}; }

std::string shapeText(const std::vector<std::int64_t> &shape)
{
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

Result<std::string> readText(const fs::path &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return ioError(path.string() + ": cannot open the file for reading");
    std::ostringstream s;
    s << in.rdbuf();
    if (in.bad()) return ioError(path.string() + ": read error");
    return s.str();
}

bool endsWith(const std::string &s, const std::string &suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// All tensors of a checkpoint (one file or several shards) under their canonical names.
class TensorStore {
public:
    struct Entry {
        const SafetensorsFile *file = nullptr;
        const SafetensorsTensor *tensor = nullptr;
    };

    Status add(SafetensorsFile file, Architecture arch)
    {
        m_files.push_back(std::make_unique<SafetensorsFile>(std::move(file)));
        const SafetensorsFile &f = *m_files.back();
        for (const SafetensorsTensor &t : f.tensors()) {
            const std::string name = canonical(t.name, arch);
            if (name.empty()) continue;   // a buffer, not a weight
            if (!m_entries.emplace(name, Entry{&f, &t}).second)
                return formatError(f.path() + ": tensor '" + t.name + "' duplicates '" + m_entries[name].tensor->name +
                                   "' (the same weight under two names)");
        }
        return Status::ok();
    }

    bool has(const std::string &name) const { return m_entries.count(name) != 0; }
    std::string fileLabel() const
    {
        return m_files.size() == 1 ? m_files.front()->path() : m_files.front()->path() + " (and other shards)";
    }

    // The tensor as fp32, checked against the shape config.json implies. `why` explains the expected shape.
    Result<std::vector<float>> take(const std::string &name, const std::vector<std::int64_t> &shape,
                                    const std::string &why) const
    {
        const auto it = m_entries.find(name);
        if (it == m_entries.end())
            return formatError(fileLabel() + ": missing tensor '" + name + "'" + (why.empty() ? "" : " (" + why + ")"));
        const SafetensorsTensor &t = *it->second.tensor;
        if (t.shape != shape)
            return formatError(it->second.file->path() + ": tensor '" + t.name + "' has shape " + t.shapeString() +
                               "; expected " + shapeText(shape) + (why.empty() ? "" : " (" + why + ")"));
        return it->second.file->readFloat32(t);
    }

private:
    static std::string canonical(std::string name, Architecture arch)
    {
        const std::string prefix = arch == Architecture::Gpt2 ? "transformer." : "bert.";
        if (name.rfind(prefix, 0) == 0) name.erase(0, prefix.size());
        if (arch == Architecture::Gpt2) {
            if (endsWith(name, ".attn.bias") || endsWith(name, ".attn.masked_bias")) return {};   // causal buffers
        } else {
            if (name == "embeddings.position_ids") return {};
            for (auto [from, to] : {std::pair{"LayerNorm.gamma", "LayerNorm.weight"},
                                    std::pair{"LayerNorm.beta", "LayerNorm.bias"}})
                if (endsWith(name, from)) name = name.substr(0, name.size() - std::string(from).size()) + to;
        }
        return name;
    }

    std::vector<std::unique_ptr<SafetensorsFile>> m_files;
    std::map<std::string, Entry> m_entries;
};

// Collects tensors into ModelWeights; the first error wins and later calls do nothing.
class Loader {
public:
    Loader(const TensorStore &store, const ModelConfig &config) : m_store(store), m_c(config) {}
    const Status &status() const { return m_status; }

    void vec(std::vector<float> &dst, const std::string &name, std::vector<std::int64_t> shape, const std::string &why = {})
    {
        if (!m_status) return;
        auto r = m_store.take(name, shape, why);
        if (!r) m_status = r.status();
        else dst = std::move(r).value();
    }
    void norm(LayerNormWeights &dst, const std::string &prefix)
    {
        vec(dst.gamma, prefix + ".weight", {m_c.dModel}, "hidden size");
        vec(dst.beta, prefix + ".bias", {m_c.dModel}, "hidden size");
    }
    // Conv1D: stored [in, out] already.
    void conv1d(Linear &dst, const std::string &prefix, std::int64_t in, std::int64_t out, const std::string &why)
    {
        dst.in = in;
        dst.out = out;
        vec(dst.w, prefix + ".weight", {in, out}, why);
        vec(dst.b, prefix + ".bias", {out}, why);
    }
    // nn.Linear: stored [out, in]; transposed to [in, out].
    void linear(Linear &dst, const std::string &prefix, std::int64_t in, std::int64_t out, const std::string &why)
    {
        std::vector<float> w;
        vec(w, prefix + ".weight", {out, in}, why);
        vec(dst.b, prefix + ".bias", {out}, why);
        if (!m_status) return;
        dst.in = in;
        dst.out = out;
        dst.w.resize(w.size());
        for (std::int64_t o = 0; o < out; ++o)
            for (std::int64_t i = 0; i < in; ++i) dst.w[static_cast<std::size_t>(i * out + o)] = w[static_cast<std::size_t>(o * in + i)];
    }

private:
    const TensorStore &m_store;
    const ModelConfig &m_c;
    Status m_status;
};

// c_attn [D, 3D] → q, k, v [D, D] each (column blocks).
void splitQkv(const Linear &qkv, Block &b)
{
    const std::int64_t D = qkv.in, W = qkv.out / 3;
    Linear *parts[3] = {&b.q, &b.k, &b.v};
    for (int p = 0; p < 3; ++p) {
        Linear &l = *parts[p];
        l.in = D;
        l.out = W;
        l.w.resize(static_cast<std::size_t>(D * W));
        for (std::int64_t r = 0; r < D; ++r)
            for (std::int64_t c = 0; c < W; ++c)
                l.w[static_cast<std::size_t>(r * W + c)] = qkv.w[static_cast<std::size_t>(r * qkv.out + p * W + c)];
        l.b.assign(qkv.b.begin() + p * W, qkv.b.begin() + (p + 1) * W);
    }
}

Status loadGpt2(const TensorStore &store, ModelWeights &w)
{
    const ModelConfig &c = w.config;
    const std::int64_t D = c.dModel, I = c.intermediate;
    Loader ld(store, c);
    ld.vec(w.tokenEmbedding, "wte.weight", {c.vocabSize, D}, "vocab_size x n_embd");
    ld.vec(w.positionEmbedding, "wpe.weight", {c.maxPositions, D}, "n_positions x n_embd");
    w.blocks.resize(static_cast<std::size_t>(c.layers));
    for (std::int64_t i = 0; i < c.layers; ++i) {
        Block &b = w.blocks[static_cast<std::size_t>(i)];
        const std::string p = "h." + std::to_string(i) + ".";
        ld.norm(b.ln1, p + "ln_1");
        Linear qkv;
        ld.conv1d(qkv, p + "attn.c_attn", D, 3 * D, "Conv1D [n_embd, 3 n_embd]");
        if (ld.status()) splitQkv(qkv, b);
        ld.conv1d(b.o, p + "attn.c_proj", D, D, "Conv1D [n_embd, n_embd]");
        ld.norm(b.ln2, p + "ln_2");
        ld.conv1d(b.fc1, p + "mlp.c_fc", D, I, "Conv1D [n_embd, n_inner]");
        ld.conv1d(b.fc2, p + "mlp.c_proj", I, D, "Conv1D [n_inner, n_embd]");
    }
    ld.norm(w.finalNorm, "ln_f");
    if (store.has("lm_head.weight")) ld.vec(w.lmHead, "lm_head.weight", {c.vocabSize, D}, "vocab_size x n_embd");
    return ld.status();
}

Status loadBert(const TensorStore &store, ModelWeights &w)
{
    ModelConfig &c = w.config;
    const std::int64_t D = c.dModel, I = c.intermediate;
    if (c.architectureClass.empty()) {
        // No "architectures" in config.json: the checkpoint's heads decide.
        if (store.has("classifier.weight")) {
            c.architectureClass = "BertForSequenceClassification";
            c.head = ModelHead::Classification;
        } else if (store.has("cls.predictions.transform.dense.weight")) {
            c.architectureClass = "BertForMaskedLM";
            c.head = ModelHead::MaskedLM;
        } else {
            c.architectureClass = "BertModel";
            c.head = ModelHead::None;
        }
    }
    Loader ld(store, c);
    ld.vec(w.tokenEmbedding, "embeddings.word_embeddings.weight", {c.vocabSize, D}, "vocab_size x hidden_size");
    ld.vec(w.positionEmbedding, "embeddings.position_embeddings.weight", {c.maxPositions, D},
           "max_position_embeddings x hidden_size");
    ld.vec(w.typeEmbedding, "embeddings.token_type_embeddings.weight", {c.typeVocabSize, D},
           "type_vocab_size x hidden_size");
    ld.norm(w.embeddingNorm, "embeddings.LayerNorm");
    w.blocks.resize(static_cast<std::size_t>(c.layers));
    for (std::int64_t i = 0; i < c.layers; ++i) {
        Block &b = w.blocks[static_cast<std::size_t>(i)];
        const std::string p = "encoder.layer." + std::to_string(i) + ".";
        ld.linear(b.q, p + "attention.self.query", D, D, "Linear [hidden_size, hidden_size]");
        ld.linear(b.k, p + "attention.self.key", D, D, "Linear [hidden_size, hidden_size]");
        ld.linear(b.v, p + "attention.self.value", D, D, "Linear [hidden_size, hidden_size]");
        ld.linear(b.o, p + "attention.output.dense", D, D, "Linear [hidden_size, hidden_size]");
        ld.norm(b.ln1, p + "attention.output.LayerNorm");
        ld.linear(b.fc1, p + "intermediate.dense", D, I, "Linear [intermediate_size, hidden_size]");
        ld.linear(b.fc2, p + "output.dense", I, D, "Linear [hidden_size, intermediate_size]");
        ld.norm(b.ln2, p + "output.LayerNorm");
    }
    const bool needPooler = c.head == ModelHead::Classification;
    if (needPooler || store.has("pooler.dense.weight"))
        ld.linear(w.pooler, "pooler.dense", D, D, "Linear [hidden_size, hidden_size]");
    if (c.head == ModelHead::MaskedLM) {
        ld.linear(w.mlmTransform, "cls.predictions.transform.dense", D, D, "Linear [hidden_size, hidden_size]");
        ld.norm(w.mlmNorm, "cls.predictions.transform.LayerNorm");
        // The decoder is tied to the word embeddings; a checkpoint may still carry it (and its bias twice).
        if (store.has("cls.predictions.decoder.weight"))
            ld.vec(w.lmHead, "cls.predictions.decoder.weight", {c.vocabSize, D}, "vocab_size x hidden_size");
        const std::string bias =
            store.has("cls.predictions.bias") ? "cls.predictions.bias" : "cls.predictions.decoder.bias";
        ld.vec(w.lmBias, bias, {c.vocabSize}, "vocab_size");
    }
    if (c.head == ModelHead::Classification)
        ld.linear(w.classifier, "classifier", D, c.numLabels, "Linear [num_labels, hidden_size]");
    return ld.status();
}

const char *kConvertHint =
    "AttnScope never loads pickle checkpoints (they can run code). Convert the folder to safetensors, e.g.:\n"
    "  python -c \"import torch; from safetensors.torch import save_file; "
    "sd = torch.load('pytorch_model.bin', map_location='cpu', weights_only=True); "
    "save_file({k: v.contiguous() for k, v in sd.items()}, 'model.safetensors', metadata={'format': 'pt'})\"\n"
    "or load it with transformers and call model.save_pretrained(folder, safe_serialization=True).";

} // namespace

Result<ModelWeights> loadCheckpointFolder(const std::string &folderText)
{
    const fs::path folder(folderText);
    std::error_code ec;
    if (!fs::exists(folder, ec)) return ioError(folderText + ": no such folder");
    if (!fs::is_directory(folder, ec))
        return ioError(folderText + ": not a folder (open the folder that holds config.json and model.safetensors)");

    const fs::path configPath = folder / "config.json";
    if (!fs::exists(configPath, ec)) return ioError(configPath.string() + ": not found (every model folder needs a config.json)");
    auto text = readText(configPath);
    if (!text) return text.status();
    auto config = parseModelConfig(*text, configPath.string());
    if (!config) return config.status();
    if (Status s = checkWeightMemory(*config, folderText); !s) return s;   // limits.h: before any tensor is read

    ModelWeights w;
    w.config = std::move(config).value();
    w.source = folderText;

    TensorStore store;
    const fs::path single = folder / "model.safetensors";
    const fs::path index = folder / "model.safetensors.index.json";
    if (fs::exists(single, ec)) {
        auto file = SafetensorsFile::open(single.string());
        if (!file) return file.status();
        if (Status s = store.add(std::move(file).value(), w.config.architecture); !s) return s;
    } else if (fs::exists(index, ec)) {
        auto indexText = readText(index);
        if (!indexText) return indexText.status();
        std::set<std::string> shards;
        try {
            const json j = json::parse(*indexText);
            const auto map = j.find("weight_map");
            if (!j.is_object() || map == j.end() || !map->is_object())
                return formatError(index.string() + ": missing the 'weight_map' object");
            for (auto it = map->begin(); it != map->end(); ++it) {
                if (!it.value().is_string())
                    return formatError(index.string() + ": weight_map entry '" + it.key() + "' must be a file name");
                const std::string shard = it.value().get<std::string>();
                if (shard.empty() || shard.find('/') != std::string::npos || shard.find('\\') != std::string::npos ||
                    shard == "." || shard == "..")
                    return formatError(index.string() + ": weight_map entry '" + it.key() + "' names '" + shard +
                                       "', which is not a file in this folder");
                shards.insert(shard);
            }
        } catch (const json::exception &e) {
            return formatError(index.string() + ": not valid JSON: " + e.what());
        }
        if (shards.empty()) return formatError(index.string() + ": weight_map is empty");
        for (const std::string &shard : shards) {
            auto file = SafetensorsFile::open((folder / shard).string());
            if (!file) return file.status();
            if (Status s = store.add(std::move(file).value(), w.config.architecture); !s) return s;
        }
    } else {
        std::vector<std::string> pickles;
        for (const auto &entry : fs::directory_iterator(folder, ec)) {
            const std::string ext = entry.path().extension().string();
            if (ext == ".bin" || ext == ".pt" || ext == ".pth" || ext == ".ckpt")
                pickles.push_back(entry.path().filename().string());
        }
        if (!pickles.empty()) {
            std::sort(pickles.begin(), pickles.end());
            return formatError(folderText + ": has only pickle weights (" + pickles.front() +
                               (pickles.size() > 1 ? ", ..." : "") + ") and no model.safetensors. " + kConvertHint);
        }
        return ioError(single.string() + ": not found (the folder has no model.safetensors)");
    }

    const Status s = w.config.architecture == Architecture::Gpt2 ? loadGpt2(store, w) : loadBert(store, w);
    if (!s) return s;
    return w;
}

} // namespace attn::detail
