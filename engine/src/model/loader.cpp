// SPDX-License-Identifier: GPL-3.0-or-later
// Hugging Face checkpoint folders → ModelWeights, for every family through its tensor-name table
// (tensornames.h). Names are canonicalised first (prefixes stripped, old names renamed), buffers that are not
// weights are skipped, the memory the fp32 weights will take is checked against the budget before any tensor
// is read, and every tensor is checked against the shape config.json implies before it is used. Tensors are
// converted one at a time from the memory-mapped file(s), which release each tensor's pages once converted.
#include "configfields.h"
#include "tensornames.h"
#include "weights.h"

#include <attnscope/attention.h>
#include <attnscope/limits.h>
#include <attnscope/safetensors.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
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

// All tensors of a checkpoint (one file or several shards) under their canonical names.
class TensorStore {
public:
    struct Entry {
        const SafetensorsFile *file = nullptr;
        const SafetensorsTensor *tensor = nullptr;
    };

    explicit TensorStore(const TensorNames &names) : m_names(names) {}

    Status add(SafetensorsFile file)
    {
        m_files.push_back(std::make_unique<SafetensorsFile>(std::move(file)));
        const SafetensorsFile &f = *m_files.back();
        for (const SafetensorsTensor &t : f.tensors()) {
            const std::string name = canonicalTensorName(m_names, t.name);
            if (name.empty()) continue;   // a buffer, not a weight
            if (!m_entries.emplace(name, Entry{&f, &t}).second)
                return formatError(f.path() + ": tensor '" + t.name + "' duplicates '" + m_entries[name].tensor->name +
                                   "' (the same weight under two names)");
        }
        return Status::ok();
    }

    bool has(const std::string &name) const { return m_entries.count(name) != 0; }
    const Entry *find(const std::string &name) const
    {
        const auto it = m_entries.find(name);
        return it == m_entries.end() ? nullptr : &it->second;
    }
    const std::map<std::string, Entry> &entries() const { return m_entries; }
    std::string fileLabel() const
    {
        return m_files.size() == 1 ? m_files.front()->path() : m_files.front()->path() + " (and other shards)";
    }

private:
    const TensorNames &m_names;
    std::vector<std::unique_ptr<SafetensorsFile>> m_files;
    std::map<std::string, Entry> m_entries;
};

// Collects tensors into ModelWeights; the first error wins and later calls do nothing.
class Loader {
public:
    Loader(const TensorStore &store, const ModelConfig &config, const LoadOptions &options, std::uint64_t totalBytes)
        : m_store(store), m_c(config), m_opt(options), m_total(totalBytes)
    {
    }
    const Status &status() const { return m_status; }

    // The tensor as fp32 in its own layout, checked against the shape config.json implies.
    void vec(std::vector<float> &dst, const std::string &name, std::vector<std::int64_t> shape, const std::string &why)
    {
        if (!m_status) return;
        if (m_opt.cancel && m_opt.cancel()) {
            m_status = Status::cancelled();
            return;
        }
        const TensorStore::Entry *e = m_store.find(name);
        if (!e) {
            m_status = formatError(m_store.fileLabel() + ": missing tensor '" + name + "'" + (why.empty() ? "" : " (" + why + ")"));
            return;
        }
        const SafetensorsTensor &t = *e->tensor;
        if (t.shape != shape) {
            m_status = formatError(e->file->path() + ": tensor '" + t.name + "' has shape " + t.shapeString() +
                                   "; expected " + shapeText(shape) + (why.empty() ? "" : " (" + why + ")"));
            return;
        }
        dst.assign(static_cast<std::size_t>(t.numel()), 0.0f);
        if (Status s = e->file->readFloat32Into(t, dst.data()); !s) {
            m_status = s;
            return;
        }
        m_done += t.end - t.begin;
        if (m_opt.progress && m_total > 0) m_opt.progress(std::min(1.0, static_cast<double>(m_done) / static_cast<double>(m_total)));
    }

    void norm(LayerNormWeights &dst, const std::string &prefix, std::int64_t size, const std::string &why)
    {
        vec(dst.gamma, prefix + ".weight", {size}, why);
        if (m_c.norm == NormKind::LayerNorm) vec(dst.beta, prefix + ".bias", {size}, why);
        if (m_c.normPlusOne)
            for (float &g : dst.gamma) g += 1.0f;   // Gemma stores γ − 1 (GemmaRMSNorm: x̂ · (1 + w) in fp32)
    }

    // A projection [in → out] with or without bias: Conv1D [in, out] as stored, nn.Linear [out, in] transposed.
    void linear(Linear &dst, const std::string &prefix, std::int64_t in, std::int64_t out, bool bias,
                const std::string &why)
    {
        dst.in = in;
        dst.out = out;
        if (tensorNames(m_c).conv1d) {
            vec(dst.w, prefix + ".weight", {in, out}, why);
        } else {
            vec(m_scratch, prefix + ".weight", {out, in}, why);
            if (m_status) transpose(m_scratch, out, in, dst.w);
        }
        if (bias) vec(dst.b, prefix + ".bias", {out}, why);
    }

    static void transpose(const std::vector<float> &src, std::int64_t rows, std::int64_t cols, std::vector<float> &dst)
    {
        dst.resize(src.size());
        for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t c = 0; c < cols; ++c)
                dst[static_cast<std::size_t>(c * rows + r)] = src[static_cast<std::size_t>(r * cols + c)];
    }

private:
    const TensorStore &m_store;
    const ModelConfig &m_c;
    const LoadOptions &m_opt;
    std::uint64_t m_total = 0, m_done = 0;
    std::vector<float> m_scratch;   // one [out, in] tensor before its transpose
    Status m_status;
};

// Columns [c0, c0 + n) of a row-major [rows, cols] matrix.
std::vector<float> columns(const std::vector<float> &m, std::int64_t rows, std::int64_t cols, std::int64_t c0, std::int64_t n)
{
    std::vector<float> out(static_cast<std::size_t>(rows * n));
    for (std::int64_t r = 0; r < rows; ++r)
        std::copy_n(m.begin() + r * cols + c0, n, out.begin() + r * n);
    return out;
}

// A fused projection (already [D, total] with its bias) split into q, k, v by the family's layout.
void splitQkv(const Linear &fused, QkvFusion fusion, const ModelConfig &c, Block &b)
{
    const std::int64_t D = fused.in, total = fused.out, dh = c.dHead, H = c.heads, Hkv = c.kvHeads;
    Linear *parts[3] = {&b.q, &b.k, &b.v};
    std::vector<std::int64_t> widths{H * dh, Hkv * dh, Hkv * dh};
    for (int p = 0; p < 3; ++p) {
        Linear &l = *parts[p];
        l.in = D;
        l.out = widths[static_cast<std::size_t>(p)];
        l.w.assign(static_cast<std::size_t>(D * l.out), 0.0f);
        if (!fused.b.empty()) l.b.assign(static_cast<std::size_t>(l.out), 0.0f);
    }
    if (fusion == QkvFusion::PerHeadRows) {
        // Output column (head h, part p, dim d) sits at h·3·dh + p·dh + d (view(T, H, 3·dh).chunk(3)).
        for (std::int64_t h = 0; h < H; ++h)
            for (int p = 0; p < 3; ++p) {
                Linear &l = *parts[p];
                for (std::int64_t r = 0; r < D; ++r)
                    std::copy_n(fused.w.begin() + r * total + h * 3 * dh + p * dh, dh, l.w.begin() + r * l.out + h * dh);
                if (!fused.b.empty()) std::copy_n(fused.b.begin() + h * 3 * dh + p * dh, dh, l.b.begin() + h * dh);
            }
        return;
    }
    // Conv1D columns and Phi-3 row blocks are both [q | k | v] blocks once in [in, out] layout.
    std::int64_t start = 0;
    for (int p = 0; p < 3; ++p) {
        Linear &l = *parts[p];
        l.w = columns(fused.w, D, total, start, l.out);
        if (!fused.b.empty()) std::copy_n(fused.b.begin() + start, l.out, l.b.begin());
        start += l.out;
    }
}

// The head of an encoder, decided from the tensors when config.json has no "architectures".
void decideEncoderHead(ModelConfig &c, const TensorStore &store, const TensorNames &n)
{
    if (!c.architectureClass.empty()) return;
    static const std::map<Architecture, std::string> prefix{
        {Architecture::Bert, "Bert"}, {Architecture::Roberta, "Roberta"}, {Architecture::DistilBert, "DistilBert"}};
    const std::string p = prefix.at(c.architecture);
    if (!n.classifierMarker.empty() && store.has(n.classifierMarker)) {
        c.architectureClass = p + "ForSequenceClassification";
        c.head = ModelHead::Classification;
    } else if (!n.mlmMarker.empty() && store.has(n.mlmMarker)) {
        c.architectureClass = p + "ForMaskedLM";
        c.head = ModelHead::MaskedLM;
    } else {
        c.architectureClass = p + "Model";
        c.head = ModelHead::None;
    }
}

Status loadTensors(const TensorStore &store, ModelWeights &w, const LoadOptions &opt, std::uint64_t totalBytes)
{
    ModelConfig &c = w.config;
    const TensorNames &n = tensorNames(c);
    const std::int64_t D = c.dModel, I = c.intermediate, dh = c.dHead, H = c.heads, Hkv = c.kvHeads;
    const std::string linearWhy = n.conv1d ? "Conv1D [in, out]" : "Linear [out, in]";
    Loader ld(store, c, opt, totalBytes);

    ld.vec(w.tokenEmbedding, n.tokenEmbedding + ".weight", {c.vocabSize, D}, "vocab_size x hidden size");
    if (c.positions == PositionKind::Learned)
        ld.vec(w.positionEmbedding, n.positionEmbedding + ".weight", {c.maxPositions, D},
               std::string(c.architecture == Architecture::Gpt2 ? "n_positions" : "max_position_embeddings") +
                   " x hidden size");
    if (c.typeVocabSize > 0)
        ld.vec(w.typeEmbedding, n.typeEmbedding + ".weight", {c.typeVocabSize, D}, "type_vocab_size x hidden size");
    if (!n.embeddingNorm.empty()) ld.norm(w.embeddingNorm, n.embeddingNorm, D, "hidden size");

    w.blocks.resize(static_cast<std::size_t>(c.layers));
    for (std::int64_t i = 0; i < c.layers; ++i) {
        Block &b = w.blocks[static_cast<std::size_t>(i)];
        const auto name = [&](const std::string &module) { return layerName(n, i, module); };
        ld.norm(b.ln1, name(n.ln1), D, "hidden size");
        if (n.qkvFusion == QkvFusion::Separate) {
            ld.linear(b.q, name(n.q), D, H * dh, c.attentionBias, linearWhy + ", heads x head_dim");
            ld.linear(b.k, name(n.k), D, Hkv * dh, c.attentionBias, linearWhy + ", key/value heads x head_dim");
            ld.linear(b.v, name(n.v), D, Hkv * dh, c.attentionBias, linearWhy + ", key/value heads x head_dim");
        } else {
            Linear fused;
            ld.linear(fused, name(n.qkv), D, (H + 2 * Hkv) * dh, c.attentionBias, linearWhy + ", fused q, k, v");
            if (ld.status()) splitQkv(fused, n.qkvFusion, c, b);
        }
        if (c.qkNorm) {
            ld.norm(b.qNorm, name(n.qNorm), dh, "head_dim");
            ld.norm(b.kNorm, name(n.kNorm), dh, "head_dim");
        }
        ld.linear(b.o, name(n.o), H * dh, D, c.outputBias, linearWhy + ", hidden size x heads·head_dim");
        if (c.sandwichNorms) ld.norm(b.postAttn, name(n.postAttn), D, "hidden size");
        ld.norm(b.ln2, name(n.ln2), D, "hidden size");
        if (!n.gateUp.empty()) {
            Linear fused;
            ld.linear(fused, name(n.gateUp), D, 2 * I, c.mlpBias, linearWhy + ", fused gate and up");
            if (ld.status()) {
                b.gate = {D, I, columns(fused.w, D, 2 * I, 0, I), {}};
                b.fc1 = {D, I, columns(fused.w, D, 2 * I, I, I), {}};
            }
        } else {
            if (c.gatedMlp) ld.linear(b.gate, name(n.gate), D, I, c.mlpBias, linearWhy + ", intermediate_size");
            ld.linear(b.fc1, name(n.up), D, I, c.mlpBias, linearWhy + ", intermediate_size");
        }
        ld.linear(b.fc2, name(n.down), I, D, c.mlpBias, linearWhy + ", hidden size x intermediate_size");
        if (c.sandwichNorms) ld.norm(b.postMlp, name(n.postMlp), D, "hidden size");
    }
    if (!n.finalNorm.empty()) ld.norm(w.finalNorm, n.finalNorm, D, "hidden size");

    // Heads.
    if (c.head == ModelHead::CausalLM) {
        const auto untied = std::find_if(n.lmHead.begin(), n.lmHead.end(), [&](const std::string &s) { return store.has(s); });
        // GPT-2 checkpoints may carry lm_head.weight whatever tie_word_embeddings says; it is what they compute.
        if (untied != n.lmHead.end() && (!c.tiedEmbeddings || c.architecture == Architecture::Gpt2)) {
            ld.vec(w.lmHead, *untied, {c.vocabSize, D}, "vocab_size x hidden size");
            c.tiedEmbeddings = false;
        } else if (!c.tiedEmbeddings && c.architecture != Architecture::Gpt2) {
            if (!ld.status()) return ld.status();
            return formatError(store.fileLabel() + ": missing tensor '" + n.lmHead.front() +
                               "' (tie_word_embeddings is false, so the LM head has its own weights)");
        }
    }
    if (c.head == ModelHead::CausalLM) c.tiedEmbeddings = w.lmHead.empty();
    if (c.postNorm) {
        // Encoders: pooler, masked-LM head, sequence classifier.
        if (c.head == ModelHead::Classification) {
            ld.linear(w.pooler, n.classifierPooler, D, D, true, "Linear [hidden size, hidden size]");
            ld.linear(w.classifier, n.classifier, D, c.numLabels, true, "Linear [num_labels, hidden size]");
            if (c.architecture == Architecture::DistilBert) w.poolerActivation = Activation::Relu;
        } else if (!n.pooler.empty() && store.has(n.pooler + ".weight")) {
            ld.linear(w.pooler, n.pooler, D, D, true, "Linear [hidden size, hidden size]");
        }
        if (c.head == ModelHead::MaskedLM) {
            // RobertaLMHead calls gelu() itself; BERT and DistilBERT use the configured activation.
            w.mlmActivation = c.architecture == Architecture::Roberta ? Activation::Gelu : c.activation;
            ld.linear(w.mlmTransform, n.mlmTransform, D, D, true, "Linear [hidden size, hidden size]");
            ld.norm(w.mlmNorm, n.mlmNorm, D, "hidden size");
            // The decoder is tied to the word embeddings; a checkpoint may still carry it (and its bias twice).
            if (store.has(n.mlmDecoder)) ld.vec(w.lmHead, n.mlmDecoder, {c.vocabSize, D}, "vocab_size x hidden size");
            const auto bias = std::find_if(n.mlmBias.begin(), n.mlmBias.end(), [&](const std::string &s) { return store.has(s); });
            ld.vec(w.lmBias, bias == n.mlmBias.end() ? n.mlmBias.front() : *bias, {c.vocabSize}, "vocab_size");
        }
    }
    return ld.status();
}

// Gemma's √H in the embedding's storage dtype (GemmaTextScaledWordEmbedding: embed_scale.to(weight.dtype)).
void roundEmbeddingScale(ModelConfig &c, const TensorStore &store)
{
    if (c.embeddingScale == 1.0f) return;
    const TensorStore::Entry *e = store.find(tensorNames(c).tokenEmbedding + ".weight");
    if (!e) return;
    if (e->tensor->dtype == SafetensorsDType::BF16) c.embeddingScale = roundToDtype(c.embeddingScale, ComputeDtype::BF16);
    if (e->tensor->dtype == SafetensorsDType::F16) c.embeddingScale = roundToDtype(c.embeddingScale, ComputeDtype::F16);
}

const char *kConvertHint =
    "AttnScope never loads pickle checkpoints (they can run code). Convert the folder to safetensors, e.g.:\n"
    "  python -c \"import torch; from safetensors.torch import save_file; "
    "sd = torch.load('pytorch_model.bin', map_location='cpu', weights_only=True); "
    "save_file({k: v.contiguous() for k, v in sd.items()}, 'model.safetensors', metadata={'format': 'pt'})\"\n"
    "or load it with transformers and call model.save_pretrained(folder, safe_serialization=True).";

Result<std::set<std::string>> shardsOf(const fs::path &index)
{
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
    return shards;
}

// No safetensors: say why (pickle, GGUF) or that there are no weights.
Status noWeights(const fs::path &folder, const std::string &folderText)
{
    std::vector<std::string> pickles, gguf;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(folder, ec)) {
        const std::string ext = entry.path().extension().string();
        if (ext == ".bin" || ext == ".pt" || ext == ".pth" || ext == ".ckpt") pickles.push_back(entry.path().filename().string());
        if (ext == ".gguf") gguf.push_back(entry.path().filename().string());
    }
    std::sort(pickles.begin(), pickles.end());
    std::sort(gguf.begin(), gguf.end());
    if (!gguf.empty())
        return formatError(folderText + ": has only GGUF weights (" + gguf.front() + (gguf.size() > 1 ? ", ..." : "") +
                           "), which are quantized llama.cpp files; AttnScope reads safetensors (F32, F16, BF16): "
                           "open the original Hugging Face checkpoint");
    if (!pickles.empty())
        return formatError(folderText + ": has only pickle weights (" + pickles.front() +
                           (pickles.size() > 1 ? ", ..." : "") + ") and no model.safetensors. " + kConvertHint);
    return ioError((folder / "model.safetensors").string() + ": not found (the folder has no model.safetensors)");
}

} // namespace

Result<ModelWeights> loadCheckpointFolder(const std::string &folderText, const LoadOptions &options)
{
    const fs::path folder(folderText);
    std::error_code ec;
    if (!fs::exists(folder, ec)) return ioError(folderText + ": no such folder");
    if (!fs::is_directory(folder, ec)) {
        if (folder.extension() == ".gguf")
            return formatError(folderText + ": GGUF files (quantized llama.cpp checkpoints) are not supported; "
                                            "open the Hugging Face checkpoint folder (config.json + model.safetensors)");
        return ioError(folderText + ": not a folder (open the folder that holds config.json and model.safetensors)");
    }

    const fs::path configPath = folder / "config.json";
    if (!fs::exists(configPath, ec)) return ioError(configPath.string() + ": not found (every model folder needs a config.json)");
    auto text = readText(configPath);
    if (!text) return text.status();
    auto config = parseModelConfig(*text, configPath.string());
    if (!config) return config.status();
    // limits.h, from config.json alone before any tensor is read (a caller's own limit is checked below instead).
    if (options.maxMemoryBytes == 0)
        if (Status s = checkWeightMemory(*config, folderText); !s) return s;

    ModelWeights w;
    w.config = std::move(config).value();
    w.source = folderText;

    TensorStore store(tensorNames(w.config));
    const fs::path single = folder / "model.safetensors";
    const fs::path index = folder / "model.safetensors.index.json";
    std::vector<fs::path> files;
    if (fs::exists(single, ec)) {
        files.push_back(single);
    } else if (fs::exists(index, ec)) {
        auto shards = shardsOf(index);
        if (!shards) return shards.status();
        for (const std::string &shard : *shards) files.push_back(folder / shard);
    } else {
        return noWeights(folder, folderText);
    }
    for (const fs::path &p : files) {
        auto file = SafetensorsFile::open(p.string());
        if (!file) return file.status();
        if (Status s = store.add(std::move(file).value()); !s) return s;
    }

    // The budget, from the headers alone: every weight tensor widened to fp32, plus one [out, in] scratch copy.
    std::uint64_t needed = 0, largest = 0, onDisk = 0;
    for (const auto &[name, e] : store.entries()) {
        const auto bytes = static_cast<std::uint64_t>(e.tensor->numel()) * 4;
        if (!addChecked(needed, bytes, needed)) return formatError(store.fileLabel() + ": the tensor sizes overflow 64 bits");
        largest = std::max(largest, bytes);
        onDisk += e.tensor->end - e.tensor->begin;
    }
    if (Status s = checkMemoryBudget(needed + largest, options, "model '" + folderText + "'"); !s) return s;

    if (w.config.postNorm) decideEncoderHead(w.config, store, tensorNames(w.config));
    roundEmbeddingScale(w.config, store);
    if (Status s = loadTensors(store, w, options, onDisk); !s) return s;
    if (options.progress) options.progress(1.0);
    return w;
}

} // namespace attn::detail
