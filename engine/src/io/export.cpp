// SPDX-License-Identifier: GPL-3.0-or-later
// The JSON documents of `info` and `run` (docs/json-format.md). Small parts go through nlohmann_json with float32
// numbers (its shortest round-trip printer); the attention tensor, which can hold millions of numbers, is written
// straight into the output text with std::to_chars rather than built as a JSON tree first.
#include <attnscope/export.h>
#include <attnscope/safetensors.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

namespace attn {

namespace {

namespace fs = std::filesystem;

// Ordered keys (the documented order) and float32 numbers, so probabilities print as they are stored.
using Json = nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, std::int64_t, std::uint64_t, float>;

void appendFloat(std::string &out, float x)
{
    if (!std::isfinite(x)) { out += "null"; return; }   // JSON has no inf/NaN; weights are always finite
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, x);
    out.append(buf, r.ptr);
}

Json nullableString(const std::optional<std::string> &s) { return s ? Json(*s) : Json(nullptr); }

// Parameters as stored: elements of every safetensors tensor of the folder (shards included). Synthetic models:
// token embeddings, Q/K/V/O (no biases) and the layer norms that are used.
std::optional<std::uint64_t> parameterCount(const OpenedModel &m)
{
    const ModelConfig &c = m.model.config();
    if (c.architecture == Architecture::Synthetic) {
        const auto D = static_cast<std::uint64_t>(c.dModel), inner = static_cast<std::uint64_t>(c.heads * c.dHead);
        return static_cast<std::uint64_t>(c.vocabSize) * D + static_cast<std::uint64_t>(c.layers) * (4 * D * inner + 2 * D) + 2 * D;
    }
    std::set<std::string> files;
    const fs::path folder(m.path);
    if (fs::exists(folder / "model.safetensors")) {
        files.insert("model.safetensors");
    } else {
        std::ifstream in(folder / "model.safetensors.index.json");
        const auto index = nlohmann::json::parse(in, nullptr, false);
        if (index.is_discarded() || !index.contains("weight_map") || !index["weight_map"].is_object()) return std::nullopt;
        for (const auto &shard : index["weight_map"])
            if (shard.is_string()) files.insert(shard.get<std::string>());
    }
    std::uint64_t total = 0;
    for (const std::string &file : files) {
        auto st = SafetensorsFile::open((folder / file).string());
        if (!st) return std::nullopt;
        for (const SafetensorsTensor &t : st->tensors()) total += static_cast<std::uint64_t>(t.numel());
    }
    return total;
}

// A model card's first line of prose: after YAML front matter, headings stripped of their '#'.
std::optional<std::string> readmeFirstLine(const std::string &folder)
{
    if (folder.empty()) return std::nullopt;
    std::ifstream in(fs::path(folder) / "README.md");
    if (!in) return std::nullopt;
    std::string line;
    bool inFrontMatter = false, first = true;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line == "---" && (first || inFrontMatter)) { inFrontMatter = !inFrontMatter; first = false; continue; }
        first = false;
        if (inFrontMatter) continue;
        const std::size_t start = line.find_first_not_of("# \t");
        if (start != std::string::npos) return line.substr(start);
    }
    return std::nullopt;
}

Json specialTokens(const OpenedModel &m)
{
    Json out = Json::object();
    const auto add = [&](const char *name, std::int64_t id) {
        if (id < 0) return;
        Json entry{{"id", id}};
        entry["token"] = m.tokenizer ? Json(m.tokenizer->idToToken(static_cast<std::int32_t>(id))) : Json(nullptr);
        out[name] = std::move(entry);
    };
    if (m.tokenizer) {
        const SpecialTokenIds &s = m.tokenizer->specialTokenIds();
        add("cls", s.cls), add("sep", s.sep), add("pad", s.pad), add("mask", s.mask), add("unk", s.unk);
        add("bos", s.bos), add("eos", s.eos);
    } else {
        const ModelConfig &c = m.model.config();
        add("pad", c.padTokenId.value_or(-1)), add("bos", c.bosTokenId.value_or(-1)), add("eos", c.eosTokenId.value_or(-1));
    }
    return out;
}

Json modelSummary(const OpenedModel &m)
{
    const ModelConfig &c = m.model.config();
    return Json{{"name", m.name},
                {"source", m.spec},
                {"path", m.path.empty() ? Json(nullptr) : Json(m.path)},
                {"architecture", architectureName(c.architecture)},
                {"architecture_class", c.architectureClass},
                {"family", c.family},
                {"head", headKindName(c.head)},
                {"layers", c.layers},
                {"heads", c.heads},
                {"d_model", c.dModel},
                {"d_head", c.dHead}};
}

Json ropeJson(const ModelConfig &c, const RopeConfig &r, std::int64_t layer)
{
    float factor = 1.0f;
    ropeInverseFrequencies(c, layer, 1, &factor);
    Json j{{"type", ropeTypeName(r.type)}, {"theta", r.theta}};
    if (r.type != RopeType::Default) j["factor"] = r.factor;
    if (r.originalMaxPositions > 0) j["original_max_positions"] = r.originalMaxPositions;
    if (r.type == RopeType::Llama3) {
        j["low_freq_factor"] = r.lowFreqFactor;
        j["high_freq_factor"] = r.highFreqFactor;
    }
    if (r.type == RopeType::Yarn) {
        j["beta_fast"] = r.betaFast;
        j["beta_slow"] = r.betaSlow;
    }
    if (r.type == RopeType::Yarn || r.type == RopeType::LongRope) j["attention_factor"] = factor;
    return j;
}

// RoPE of the model: null without; "local" is Gemma 3's sliding-layer RoPE (null when every layer shares one).
Json ropeSummary(const ModelConfig &c)
{
    if (c.positions != PositionKind::RoPE || c.architecture == Architecture::Synthetic) return nullptr;
    std::int64_t global = 0, local = -1;
    for (std::int64_t l = 0; l < c.layers; ++l) {
        const bool isLocal = static_cast<std::size_t>(l) < c.layerAttention.size() && c.layerAttention[static_cast<std::size_t>(l)].localRope;
        if (isLocal && local < 0) local = l;
        if (!isLocal) global = l;
    }
    Json j = ropeJson(c, c.rope, global);
    j["rotary_dim"] = c.rotaryDim;
    j["local"] = local >= 0 ? ropeJson(c, c.ropeLocal, local) : Json(nullptr);
    return j;
}

// Each layer's attention as the model defines it: full or sliding (window in Hugging Face's convention: W keys,
// the query included), which RoPE, and the score scale.
Json attentionLayers(const ModelConfig &c)
{
    Json layers = Json::array();
    for (std::int64_t l = 0; l < c.layers; ++l) {
        const std::int64_t w = layerWindow(c, l);
        const bool local = static_cast<std::size_t>(l) < c.layerAttention.size() && c.layerAttention[static_cast<std::size_t>(l)].localRope;
        layers.push_back(Json{{"layer", l},
                              {"attention", w > 0 ? "sliding" : "full"},
                              {"window", w > 0 ? Json(w) : Json(nullptr)},
                              {"rope", c.positions != PositionKind::RoPE ? Json(nullptr) : Json(local ? "local" : "global")},
                              {"scale", attentionScale(c, l)}});
    }
    return layers;
}

// One vocabulary entry of a prediction.
Json tokenEntry(const OpenedModel &m, std::int64_t id, float probability)
{
    Json e{{"id", id}};
    if (m.tokenizer) {
        const auto id32 = static_cast<std::int32_t>(id);
        e["token"] = m.tokenizer->idToToken(id32);
        e["text"] = m.tokenizer->decode({id32}, false);
    } else {
        e["token"] = "#" + std::to_string(id);
        e["text"] = nullptr;
    }
    e["probability"] = probability;
    return e;
}

// softmax(row) in double, then the k most probable ids (ties: the lower id first).
std::vector<std::pair<std::int64_t, float>> topK(const float *logits, std::int64_t n, int k)
{
    const float maxLogit = *std::max_element(logits, logits + n);
    double sum = 0.0;
    for (std::int64_t i = 0; i < n; ++i) sum += std::exp(static_cast<double>(logits[i]) - maxLogit);
    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
    const auto count = static_cast<std::size_t>(std::min<std::int64_t>(k, n));
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count), order.end(),
                      [&](std::int64_t a, std::int64_t b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); });
    std::vector<std::pair<std::int64_t, float>> out;
    for (std::size_t i = 0; i < count; ++i)
        out.emplace_back(order[i], static_cast<float>(std::exp(static_cast<double>(logits[order[i]]) - maxLogit) / sum));
    return out;
}

Json predictions(const OpenedModel &m, const float *logits, std::int64_t vocab, int k)
{
    Json list = Json::array();
    for (const auto &[id, p] : topK(logits, vocab, k)) list.push_back(tokenEntry(m, id, p));
    return list;
}

Json outputs(const OpenedModel &m, const RunRequest &request, const RunData &data)
{
    const ModelConfig &c = m.model.config();
    const ForwardResult &r = data.result;
    Json out{{"kind", headKindName(c.head)}};
    if (c.head == ModelHead::Classification) {
        Json labels = Json::array(), logits = Json::array(), probs = Json::array();
        const auto n = static_cast<std::int64_t>(r.logits.size());
        const auto all = topK(r.logits.data(), n, static_cast<int>(n));
        std::vector<float> p(r.logits.size());
        for (const auto &[id, prob] : all) p[static_cast<std::size_t>(id)] = prob;
        for (std::int64_t i = 0; i < n; ++i) {
            const auto u = static_cast<std::size_t>(i);
            labels.push_back(u < c.labels.size() ? c.labels[u] : "LABEL_" + std::to_string(i));
            logits.push_back(r.logits[u]);
            probs.push_back(p[u]);
        }
        out["labels"] = labels;
        out["logits"] = logits;
        out["probabilities"] = probs;
        out["predicted"] = Json{{"index", all.front().first}, {"label", labels[static_cast<std::size_t>(all.front().first)]}};
        return out;
    }
    if (c.head != ModelHead::CausalLM && c.head != ModelHead::MaskedLM) return out;
    const std::int64_t V = c.vocabSize, L = r.length;
    const auto row = [&](std::int64_t i) { return r.logits.data() + i * V; };
    Json argmax = Json::array();
    for (std::int64_t i = 0; i < L; ++i) argmax.push_back(predictions(m, row(i), V, 1).front());
    if (c.head == ModelHead::CausalLM) {
        // The next token follows the last real token, not the padding after it.
        std::int64_t last = L - 1;
        while (last > 0 && !data.attentionMask[static_cast<std::size_t>(last)]) --last;
        out["position"] = last;
        out["top_k"] = predictions(m, row(last), V, request.topK);
    } else {
        const std::int64_t maskId = m.tokenizer ? m.tokenizer->specialTokenIds().mask : -1;
        out["mask_token_id"] = maskId >= 0 ? Json(maskId) : Json(nullptr);
        Json masked = Json::array();
        for (std::int64_t i = 0; i < L && maskId >= 0; ++i)
            if (data.tokens.ids[static_cast<std::size_t>(i)] == maskId)
                masked.push_back(Json{{"position", i}, {"top_k", predictions(m, row(i), V, request.topK)}});
        out["masked"] = masked;
    }
    out["argmax"] = argmax;
    return out;
}

Json settings(const OpenedModel &m, const RunRequest &request, const RunData &data)
{
    const ModelConfig &c = m.model.config();
    MaskSpec structure = data.options.maskOverride ? *data.options.maskOverride
                                                   : (c.causal ? MaskSpec::causalMask() : MaskSpec::bidirectional());
    std::string kind = request.mask.kindName();
    if (request.mask.kind == MaskChoice::Kind::Model) kind = c.causal ? "causal" : "bidirectional";
    Json mask{{"kind", kind},
              {"window", structure.window >= 0 ? Json(structure.window) : Json(nullptr)},
              {"overridden", request.mask.kind != MaskChoice::Kind::Model},
              {"padding_keys", request.padding}};
    if (request.padding > 0) structure.keyValid = data.attentionMask;
    mask["description"] = structure.describe();
    // Per layer as it ran: the model's own (sliding layers with their Hugging Face window: W keys, the query
    // included) or the override on every layer.
    Json layers = Json::array();
    for (std::int64_t l = 0; l < c.layers; ++l) {
        std::string layerKind = kind;
        Json window = mask["window"];
        if (request.mask.kind == MaskChoice::Kind::Model && layerWindow(c, l) > 0) {
            layerKind = "sliding";
            window = layerWindow(c, l);
        } else if (request.mask.kind == MaskChoice::Kind::CausalWindow) {
            window = request.mask.window + 1;
        }
        layers.push_back(Json{{"layer", l}, {"kind", layerKind}, {"window", window}});
    }
    mask["layers"] = layers;

    Json heads = Json::array();
    for (const CapturedHead &h : data.result.heads) heads.push_back(Json::array({h.head.layer, h.head.head}));
    return Json{{"mask", mask},
                {"positional", positionKindName(c.positions)},
                {"backend", Json{{"requested", backendName(request.backend)}, {"used", backendName(data.backendUsed)}}},
                {"dtype", "float32"},
                {"threads", request.threads},
                {"top_k", request.topK},
                {"all_heads", !request.heads.has_value()},
                {"heads", heads}};
}

Json input(const RunRequest &request, const RunData &data)
{
    const TokenizedText &t = data.tokens;
    Json offsets = Json::array();
    for (std::size_t i = 0; i < t.ids.size(); ++i) offsets.push_back(Json::array({t.begins[i], t.ends[i]}));
    Json in{{"text", nullableString(request.text)},
            {"text_pair", nullableString(request.textPair)},
            {"tokens", t.labels},
            {"token_ids", t.ids},
            {"token_type_ids", t.typeIds},
            {"special", t.special},
            {"attention_mask", data.attentionMask},
            {"offsets", offsets},
            {"length", data.result.length},
            {"padding", request.padding},
            {"truncated", t.truncated}};
    // Which text each token's offsets point into: 0 the text, 1 the pair, -1 none (framing, padding).
    if (request.textPair) in["sequence_ids"] = t.sequence;
    if (t.truncated) in["untruncated_length"] = t.untruncatedLength;
    return in;
}

// [layer][head][query][key]; null for heads not captured. One query row per line.
void appendAttention(std::string &out, const ModelConfig &c, const ForwardResult &r)
{
    const std::int64_t L = r.length;
    out += '[';
    for (std::int64_t layer = 0; layer < c.layers; ++layer) {
        out += layer ? ",\n[" : "\n[";
        for (std::int64_t head = 0; head < c.heads; ++head) {
            if (head) out += ',';
            const auto it = std::find_if(r.heads.begin(), r.heads.end(),
                                         [&](const CapturedHead &h) { return h.head == HeadRef{layer, head}; });
            if (it == r.heads.end()) { out += "null"; continue; }
            out += '[';
            for (std::int64_t i = 0; i < L; ++i) {
                out += i ? ",\n[" : "\n[";
                for (std::int64_t j = 0; j < L; ++j) {
                    if (j) out += ',';
                    appendFloat(out, it->weights[static_cast<std::size_t>(i * L + j)]);
                }
                out += ']';
            }
            out += ']';
        }
        out += ']';
    }
    out += ']';
}

// Numbers are float32 here (the document's Json type): the statistics and aggregations are computed in float64
// and written rounded to float32; undefined statistics (NaN) are null.
Json matrixJson(const std::vector<double> &m, std::int64_t n)
{
    Json rows = Json::array();
    for (std::int64_t i = 0; i < n; ++i) {
        Json row = Json::array();
        for (std::int64_t j = 0; j < n; ++j) row.push_back(m[static_cast<std::size_t>(i * n + j)]);
        rows.push_back(std::move(row));
    }
    return rows;
}

Json analyses(const RunRequest &request, const RunData &data)
{
    Json out = Json::object();
    const RunAnalyses &a = request.analyses;
    if (a.stats) {
        Json list = Json::array();
        for (std::size_t k = 0; k < data.headStats.size() && k < data.result.heads.size(); ++k) {
            const HeadStatistics &h = data.headStats[k];
            const auto num = [](double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); };
            list.push_back(Json{{"layer", data.result.heads[k].head.layer},
                                {"head", data.result.heads[k].head.head},
                                {"entropy", num(h.entropy)},
                                {"mean_distance", num(h.meanDistance)},
                                {"first_token", num(h.firstToken)},
                                {"self", num(h.self)},
                                {"previous_token", num(h.previousToken)},
                                {"duplicate_token", num(h.duplicateToken)},
                                {"induction", num(h.induction)}});
        }
        out["head_statistics"] = std::move(list);
    }
    const std::int64_t n = data.result.length;
    if (a.rollout)
        out["rollout"] = Json{{"head_fusion", "mean"}, {"residual", true}, {"matrix", matrixJson(data.rollout, n)}};
    if (a.flow) out["flow"] = Json{{"head_fusion", "mean"}, {"residual", true}, {"matrix", matrixJson(data.flow, n)}};
    return out;
}

} // namespace

// Documents are dumped with invalid UTF-8 replaced by U+FFFD: token strings from vocab.txt and error messages that
// quote a broken file are not validated, and a throwing dump() would end the program (found by fuzz_model).
std::string modelInfoJson(const OpenedModel &m)
{
    const ModelConfig &c = m.model.config();
    Json info{{"format", "attnscope-info"}, {"version", 1}};
    const Json summary = modelSummary(m);
    for (const auto &[key, value] : summary.items()) info[key] = value;
    info["model_type"] = c.modelType;
    info["intermediate_size"] = c.intermediate;
    info["vocab_size"] = c.vocabSize;
    info["max_positions"] = c.maxPositions;
    info["positional"] = positionKindName(c.positions);
    info["causal"] = c.causal;
    info["activation"] = c.architecture == Architecture::Synthetic ? Json(nullptr) : Json(activationName(c.activation));
    info["labels"] = c.head == ModelHead::Classification ? Json(c.labels) : Json(nullptr);
    info["kv_heads"] = c.kvHeads;
    info["kv_groups"] = kvGroups(c);
    info["norm"] = c.norm == NormKind::RMSNorm ? (c.normPlusOne ? "rms_norm_plus_one" : "rms_norm") : "layer_norm";
    info["tied_embeddings"] = c.head == ModelHead::None ? Json(nullptr) : Json(c.tiedEmbeddings);
    info["embedding_scale"] = c.embeddingScale;
    info["rope"] = ropeSummary(c);
    info["attention_layers"] = attentionLayers(c);
    info["softcap"] = Json{{"attention", c.attnSoftcap > 0 ? Json(c.attnSoftcap) : Json(nullptr)},
                           {"final", c.finalSoftcap > 0 ? Json(c.finalSoftcap) : Json(nullptr)}};
    if (m.tokenizer) {
        info["tokenizer"] = Json{{"kind", tokenizerKindName(m.tokenizer->kind())},
                                 {"source", m.tokenizer->source()},
                                 {"vocab_size", m.tokenizer->vocabSize()}};
    } else if (c.architecture == Architecture::Synthetic) {
        info["tokenizer"] = Json{{"kind", "bytes"}, {"source", nullptr}, {"vocab_size", 256}};
    } else {
        info["tokenizer"] = nullptr;
        info["tokenizer_error"] = m.tokenizerError;
    }
    info["special_tokens"] = specialTokens(m);
    const auto params = parameterCount(m);
    info["parameter_count"] = params ? Json(*params) : Json(nullptr);
    info["load_seconds"] = std::round(m.loadSeconds * 1000.0) / 1000.0;
    info["description"] = nullableString(readmeFirstLine(m.path));
    return info.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

bool npyHoldsEveryHead(const ModelConfig &c, const ForwardResult &r)
{
    for (std::int64_t layer = 0; layer < c.layers; ++layer)
        for (std::int64_t head = 0; head < c.heads; ++head)
            if (std::none_of(r.heads.begin(), r.heads.end(), [&](const CapturedHead &h) { return h.head == HeadRef{layer, head}; }))
                return false;
    return true;
}

std::string npyFloat32(const std::vector<std::int64_t> &shape, const std::vector<const float *> &blocks, std::size_t perBlock)
{
    std::string dims;
    for (std::size_t d = 0; d < shape.size(); ++d) dims += (d ? ", " : "") + std::to_string(shape[d]);
    if (shape.size() == 1) dims += ',';
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
    // Magic (6) + version (2) + header length (2) + header, padded with spaces to a multiple of 64, '\n' last.
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    std::string out("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>((header.size() >> 8) & 0xff);
    out += header;
    const std::size_t dataStart = out.size();
    out.resize(dataStart + blocks.size() * perBlock * 4);
    char *p = out.data() + dataStart;
    const auto put = [&p](float x) {
        const auto bits = std::bit_cast<std::uint32_t>(x);
        for (int b = 0; b < 4; ++b) *p++ = static_cast<char>((bits >> (8 * b)) & 0xff);   // little-endian on any host
    };
    for (const float *block : blocks)
        for (std::size_t k = 0; k < perBlock; ++k) put(block[k]);
    return out;
}

std::string attentionNpy(const ModelConfig &c, const ForwardResult &r)
{
    const std::int64_t L = r.length;
    const bool every = npyHoldsEveryHead(c, r);
    // The blocks in file order: every head in layer/head order, or the captured ones as captured.
    std::vector<const float *> blocks;
    if (every) {
        for (std::int64_t layer = 0; layer < c.layers; ++layer)
            for (std::int64_t head = 0; head < c.heads; ++head)
                blocks.push_back(std::find_if(r.heads.begin(), r.heads.end(),
                                              [&](const CapturedHead &h) { return h.head == HeadRef{layer, head}; })->weights.data());
    } else {
        for (const CapturedHead &h : r.heads) blocks.push_back(h.weights.data());
    }
    const std::vector<std::int64_t> shape = every ? std::vector<std::int64_t>{c.layers, c.heads, L, L}
                                                  : std::vector<std::int64_t>{static_cast<std::int64_t>(blocks.size()), L, L};
    return npyFloat32(shape, blocks, static_cast<std::size_t>(L * L));
}

std::string npySideFileName(const std::string &jsonPath)
{
    std::string name = fs::path(jsonPath).filename().string();
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) name.resize(name.size() - 5);
    return name + ".attention.npy";
}

std::string runExportJson(const OpenedModel &m, const RunRequest &request, const RunData &data,
                          const std::optional<std::string> &npyFile, const std::string &npySha256)
{
    Json model = modelSummary(m);
    const auto field = [](const char *key, const Json &value) {
        return "\"" + std::string(key) + "\":" + value.dump(-1, ' ', false, Json::error_handler_t::replace) + ",\n";
    };
    std::string out = "{\"format\":\"attnscope\",\n\"version\":1,\n";
    out += field("model", model);
    out += field("input", input(request, data));
    out += field("settings", settings(m, request, data));
    if (npyFile) {
        const ModelConfig &c = m.model.config();
        const std::int64_t L = data.result.length;
        Json ref{{"npy", *npyFile}, {"dtype", "float32"}, {"missing", "nan"}};
        if (!npySha256.empty()) ref["sha256"] = npySha256;
        if (npyHoldsEveryHead(c, data.result)) {
            ref["shape"] = Json::array({c.layers, c.heads, L, L});
        } else {
            ref["shape"] = Json::array({static_cast<std::int64_t>(data.result.heads.size()), L, L});
            Json heads = Json::array();
            for (const CapturedHead &h : data.result.heads) heads.push_back(Json::array({h.head.layer, h.head.head}));
            ref["heads"] = std::move(heads);
        }
        out += field("attention", ref);
    } else {
        out += "\"attention\":";
        appendAttention(out, m.model.config(), data.result);
        out += ",\n";
    }
    out += field("outputs", outputs(m, request, data));
    out += field("analyses", analyses(request, data));
    out += "\"provenance\":" + provenanceJson(data.provenance) + "}\n";
    return out;
}

} // namespace attn
