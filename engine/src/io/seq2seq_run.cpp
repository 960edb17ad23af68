// SPDX-License-Identifier: GPL-3.0-or-later
// Encoder–decoder runs (seq2seqrun.h): the decoder input from a target or greedy generation, one teacher-forced
// pass, and its document.
#include <attnscope/seq2seqrun.h>

#include <attnscope/dataset.h>
#include <attnscope/export.h>
#include <attnscope/textmodel.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <numeric>

namespace attn {

namespace {

using Json = nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, std::int64_t, std::uint64_t, float>;

std::string idLabel(const Tokenizer *tokenizer, std::int64_t id)
{
    std::string s = tokenizer && id >= 0 && id <= INT32_MAX ? tokenizer->idToToken(static_cast<std::int32_t>(id)) : std::string();
    return s.empty() ? "#" + std::to_string(id) : s;
}

Status checkIds(const std::vector<std::int64_t> &ids, std::int64_t vocab, const char *field)
{
    if (ids.empty()) return Status::invalid(std::string(field) + ": no tokens");
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] < 0 || ids[i] >= vocab)
            return Status::invalid(std::string(field) + ": id " + std::to_string(ids[i]) + " at position " +
                                   std::to_string(i) + " is outside the vocabulary [0, " + std::to_string(vocab) + ")");
    return Status::ok();
}

// The first maximum of row `row` of [rows, vocab] logits, as torch.argmax.
std::int64_t argmaxRow(const std::vector<float> &logits, std::int64_t vocab, std::int64_t row)
{
    const float *p = logits.data() + row * vocab;
    return std::max_element(p, p + vocab) - p;
}

// [layer][head][rows][cols]; heads not in `only` (when given) are null.
Json heads(const std::vector<std::vector<float>> &all, std::int64_t layers, std::int64_t nHeads, std::int64_t rows,
           std::int64_t cols, const std::vector<HeadRef> *only)
{
    Json out = Json::array();
    for (std::int64_t l = 0; l < layers; ++l) {
        Json layer = Json::array();
        for (std::int64_t h = 0; h < nHeads; ++h) {
            if (only && std::find(only->begin(), only->end(), HeadRef{l, h}) == only->end()) {
                layer.push_back(nullptr);
                continue;
            }
            const std::vector<float> &P = all[static_cast<std::size_t>(l * nHeads + h)];
            Json m = Json::array();
            for (std::int64_t i = 0; i < rows; ++i)
                m.push_back(Json(std::vector<float>(P.begin() + i * cols, P.begin() + (i + 1) * cols)));
            layer.push_back(std::move(m));
        }
        out.push_back(std::move(layer));
    }
    return out;
}

// What the run document's `model` and the `info` document share.
Json modelBlock(const Seq2SeqModel &model, const std::string &modelSpec)
{
    const Seq2SeqShape &c = model.shape();
    std::error_code ec;
    Json block{{"name", std::filesystem::path(model.source()).lexically_normal().filename().string()},
               {"source", modelSpec},
               {"path", std::filesystem::absolute(model.source(), ec).lexically_normal().string()},
               {"architecture", c.modelType},
               {"architecture_class", c.architectureClass},
               {"head", "seq2seq_lm"},
               {"layers", c.encoderLayers},
               {"heads", c.encoderHeads},
               {"decoder_layers", c.decoderLayers},
               {"decoder_heads", c.decoderHeads},
               {"d_model", c.dModel},
               {"d_head", c.encoderDHead},
               {"decoder_d_head", c.decoderDHead},
               {"vocab_size", c.vocabSize},
               {"decoder_vocab_size", c.decoderVocabSize},
               {"decoder_start_token_id", c.decoderStartTokenId},
               {"eos_token_id", c.eosTokenId}};
    return block;
}

Json headList(const std::vector<HeadRef> &list)
{
    Json out = Json::array();
    for (const HeadRef &h : list) out.push_back(Json::array({h.layer, h.head}));
    return out;
}

} // namespace

Result<std::optional<Seq2SeqHeads>> parseSeq2SeqHeads(const std::string &text, const Seq2SeqShape &shape)
{
    if (text.empty() || text == "all") return std::optional<Seq2SeqHeads>();
    Seq2SeqHeads out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        std::string item = text.substr(start, comma - start);
        start = comma + 1;
        std::string kind;
        if (const std::size_t colon = item.find(':'); colon != std::string::npos) {
            kind = item.substr(0, colon);
            item = item.substr(colon + 1);
            if (kind != "enc" && kind != "dec" && kind != "cross")
                return Status::invalid("'" + kind + ":' is not enc:, dec: or cross: (in '" + text + "')");
        }
        auto parsed = parseHeadList(item);
        if (!parsed || !*parsed || (*parsed)->size() != 1)
            return Status::invalid("'" + item + "' is not L.H (layers and heads counted from 0) in '" + text + "'");
        const HeadRef h = (*parsed)->front();
        const auto add = [&](std::vector<HeadRef> &to, std::int64_t layers, std::int64_t nHeads, const char *stack) -> Status {
            if (h.layer < 0 || h.layer >= layers || h.head < 0 || h.head >= nHeads)
                return Status::invalid(std::string(stack) + " head " + std::to_string(h.layer) + "." + std::to_string(h.head) +
                                       " is outside its " + std::to_string(layers) + " layers x " + std::to_string(nHeads) + " heads");
            if (std::find(to.begin(), to.end(), h) == to.end()) to.push_back(h);
            return Status::ok();
        };
        if (kind.empty() || kind == "enc")
            if (Status s = add(out.encoder, shape.encoderLayers, shape.encoderHeads, "encoder"); !s) return s;
        if (kind.empty() || kind == "dec")
            if (Status s = add(out.decoder, shape.decoderLayers, shape.decoderHeads, "decoder"); !s) return s;
        if (kind.empty() || kind == "cross")
            if (Status s = add(out.cross, shape.decoderLayers, shape.decoderHeads, "cross-attention"); !s) return s;
        if (comma == text.size()) break;
    }
    return std::optional<Seq2SeqHeads>(out);
}

Result<OpenedSeq2Seq> openSeq2Seq(const std::string &spec)
{
    const auto start = std::chrono::steady_clock::now();
    auto folder = resolveModelSpec(spec);
    if (!folder) return folder.status();
    auto model = Seq2SeqModel::loadFolder(*folder);
    if (!model) return model.status();
    OpenedSeq2Seq opened{std::move(model).value(), std::nullopt, std::nullopt, *folder, {}, 0.0};
    if (auto tok = Tokenizer::fromFolder(*folder)) {
        if (std::int64_t(tok->vocabSize()) > opened.model.shape().vocabSize)
            return Status::invalid(spec + ": the tokenizer has " + std::to_string(tok->vocabSize()) +
                                   " tokens but config.json vocab_size is " +
                                   std::to_string(opened.model.shape().vocabSize));
        opened.tokenizer = std::move(tok).value();
        if (opened.tokenizer->kind() == TokenizerKind::SentencePiece) {   // Marian: target.spm for target texts
            auto target = Tokenizer::fromFolder(*folder, TokenizerFormat::SentencePieceTarget);
            if (!target) return Status::invalid(spec + ": " + target.status().message());
            opened.targetTokenizer = std::move(target).value();
        }
    } else {
        opened.tokenizerError = tok.status().message();
    }
    opened.loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return opened;
}

bool isSeq2SeqSpec(const std::string &spec)
{
    if (spec.empty()) return false;
    auto folder = resolveModelSpec(spec);
    return folder && isSeq2SeqFolder(*folder);
}

Result<Seq2SeqRunData> runSeq2Seq(const Seq2SeqModel &model, const Tokenizer *tokenizer, const std::string &modelSpec,
                                  const Seq2SeqRunRequest &request, const CancelFn &cancel)
{
    const Seq2SeqShape &c = model.shape();
    Seq2SeqRunData d;
    if (request.text) {
        if (!tokenizer) return Status::invalid("text: " + model.source() + " has no tokenizer files (tokenizer.json); give --ids");
        auto enc = tokenizer->encode(*request.text);
        if (!enc) return Status::invalid("text: " + enc.status().message());
        for (std::size_t i = 0; i < enc->ids.size(); ++i) {
            d.sourceIds.push_back(enc->ids[i]);
            const std::size_t b = enc->begins[i], e = enc->ends[i];
            d.sourceTokens.push_back(enc->special[i] || e <= b ? enc->tokens[i] : request.text->substr(b, e - b));
            d.sourceSpecial.push_back(enc->special[i]);
        }
    } else {
        d.sourceIds = request.ids;
        for (std::int64_t id : d.sourceIds) {
            d.sourceTokens.push_back(idLabel(tokenizer, id));
            d.sourceSpecial.push_back(tokenizer && id >= 0 && id <= INT32_MAX && tokenizer->isSpecialId(static_cast<std::int32_t>(id)) ? 1 : 0);
        }
    }
    if (Status s = checkIds(d.sourceIds, c.vocabSize, request.text ? "text" : "ids"); !s) return s;
    if (request.targetText && request.targetIds) return Status::invalid("target: give a target text or target ids, not both");
    if (request.maxNewTokens < 1 || request.maxNewTokens > 4096)
        return Status::invalid("max new tokens: " + std::to_string(request.maxNewTokens) + " is outside 1..4096");

    Seq2SeqOptions o;
    o.backend = request.backend;
    o.threads = request.threads;
    o.cancel = cancel;
    if (request.targetText) {
        const Tokenizer *targetSide = request.targetTokenizer ? request.targetTokenizer : tokenizer;
        if (!targetSide) return Status::invalid("target text: " + model.source() + " has no tokenizer files; give --target-ids");
        auto enc = targetSide->encode(*request.targetText);
        if (!enc) return Status::invalid("target text: " + enc.status().message());
        d.labels.assign(enc->ids.begin(), enc->ids.end());
        if (d.labels.empty()) return Status::invalid("target text: no tokens");
        d.decoderInput.push_back(c.decoderStartTokenId);   // shift_tokens_right
        d.decoderInput.insert(d.decoderInput.end(), d.labels.begin(), d.labels.end() - 1);
    } else if (request.targetIds) {
        d.decoderInput = *request.targetIds;
    } else {
        // Greedy, one full pass per step (the encoder again each time: the models here are small).
        Seq2SeqOptions step = o;
        step.captureAttentions = false;
        std::vector<std::int64_t> dec{c.decoderStartTokenId};
        std::vector<std::int64_t> made;
        for (int k = 0; k < request.maxNewTokens; ++k) {
            auto r = model.forward(d.sourceIds, dec, step);
            if (!r) return r.status();
            const std::int64_t next = argmaxRow(r->logits, c.decoderVocabSize, r->targetLength - 1);
            made.push_back(next);
            if (next == c.eosTokenId) {
                d.stoppedAtEos = true;
                break;
            }
            dec.push_back(next);
        }
        d.generated = made;
        d.decoderInput.assign(dec.begin(), dec.begin() + static_cast<std::ptrdiff_t>(made.size()));   // start + made[:-1]
    }
    if (Status s = checkIds(d.decoderInput, c.decoderVocabSize, request.targetIds ? "target ids" : "target"); !s) return s;
    for (std::int64_t id : d.decoderInput) d.targetTokens.push_back(idLabel(tokenizer, id));
    auto r = model.forward(d.sourceIds, d.decoderInput, o);
    if (!r) return r.status();
    d.result = std::move(r).value();
    d.provenance = makeProvenance(modelSpec, d.result.backend, request.threads);
    return d;
}

std::vector<Seq2SeqNpyFile> seq2seqNpyFiles(const Seq2SeqModel &model, const Seq2SeqRunRequest &request,
                                            const Seq2SeqRunData &d, const std::string &jsonPath)
{
    const Seq2SeqShape &c = model.shape();
    const Seq2SeqResult &r = d.result;
    const std::int64_t S = r.sourceLength, T = r.targetLength;
    std::string base = npySideFileName(jsonPath);                    // F.attention.npy
    base.resize(base.size() - std::string(".attention.npy").size());   // F
    struct Kind {
        const char *field;
        const std::vector<std::vector<float>> &all;
        std::int64_t layers, heads, rows, cols;
        const std::vector<HeadRef> *only;
    };
    const Seq2SeqHeads *chosen = request.heads ? &*request.heads : nullptr;
    const Kind kinds[] = {{"attention", r.encoderAttentions, c.encoderLayers, c.encoderHeads, S, S, chosen ? &chosen->encoder : nullptr},
                          {"decoder_attention", r.decoderAttentions, c.decoderLayers, c.decoderHeads, T, T, chosen ? &chosen->decoder : nullptr},
                          {"cross_attention", r.crossAttentions, c.decoderLayers, c.decoderHeads, T, S, chosen ? &chosen->cross : nullptr}};
    std::vector<Seq2SeqNpyFile> files;
    for (const Kind &k : kinds) {
        Seq2SeqNpyFile f;
        f.kind = k.field;
        f.name = base + "." + k.field + ".npy";
        std::vector<const float *> blocks;
        if (k.only) {
            for (const HeadRef &h : *k.only) blocks.push_back(k.all[static_cast<std::size_t>(h.layer * k.heads + h.head)].data());
            f.shape = {static_cast<std::int64_t>(k.only->size()), k.rows, k.cols};
            f.heads = *k.only;
        } else {
            for (const std::vector<float> &P : k.all) blocks.push_back(P.data());
            f.shape = {k.layers, k.heads, k.rows, k.cols};
        }
        f.bytes = npyFloat32(f.shape, blocks, static_cast<std::size_t>(k.rows * k.cols));
        f.sha256 = sha256Hex(f.bytes);
        files.push_back(std::move(f));
    }
    return files;
}

std::string seq2seqExportJson(const Seq2SeqModel &model, const Tokenizer *tokenizer, const std::string &modelSpec,
                              const Seq2SeqRunRequest &request, const Seq2SeqRunData &d,
                              const std::vector<Seq2SeqNpyFile> *npy)
{
    const Seq2SeqShape &c = model.shape();
    const Seq2SeqResult &r = d.result;
    const std::int64_t S = r.sourceLength, T = r.targetLength;
    Json doc{{"format", "attnscope"}, {"version", 1}, {"kind", "seq2seq"}};
    doc["model"] = modelBlock(model, modelSpec);
    const char *targetFrom = request.targetText ? "text" : request.targetIds ? "ids" : "generated";
    doc["input"] = Json{{"text", request.text ? Json(*request.text) : Json(nullptr)},
                        {"tokens", d.sourceTokens},
                        {"token_ids", d.sourceIds},
                        {"special", d.sourceSpecial},
                        {"length", S},
                        {"target_text", request.targetText ? Json(*request.targetText) : Json(nullptr)},
                        {"target_from", targetFrom},
                        {"labels", request.targetText ? Json(d.labels) : Json(nullptr)},
                        {"target_ids", d.decoderInput},
                        {"target_tokens", d.targetTokens},
                        {"target_length", T}};
    doc["settings"] = Json{{"backend", Json{{"requested", backendName(request.backend)}, {"used", backendName(r.backend)}}},
                           {"threads", request.threads},
                           {"dtype", "float32"},
                           {"decoding", request.targetText || request.targetIds ? "teacher_forced" : "greedy"},
                           {"max_new_tokens", request.targetText || request.targetIds ? Json(nullptr) : Json(request.maxNewTokens)},
                           {"top_k", request.topK}};
    const Seq2SeqHeads *only = request.heads ? &*request.heads : nullptr;
    doc["settings"]["all_heads"] = only == nullptr;
    doc["settings"]["heads"] = only ? Json{{"encoder", headList(only->encoder)}, {"decoder", headList(only->decoder)},
                                           {"cross", headList(only->cross)}}
                                    : Json(nullptr);
    if (!npy) {
        doc["attention"] = heads(r.encoderAttentions, c.encoderLayers, c.encoderHeads, S, S, only ? &only->encoder : nullptr);
        doc["decoder_attention"] = heads(r.decoderAttentions, c.decoderLayers, c.decoderHeads, T, T, only ? &only->decoder : nullptr);
        doc["cross_attention"] = heads(r.crossAttentions, c.decoderLayers, c.decoderHeads, T, S, only ? &only->cross : nullptr);
    } else {
        for (const Seq2SeqNpyFile &f : *npy) {
            Json ref{{"npy", f.name}, {"shape", f.shape}, {"dtype", "float32"}, {"sha256", f.sha256}};
            if (f.heads) ref["heads"] = headList(*f.heads);
            doc[f.kind] = std::move(ref);
        }
    }

    // Outputs: each target row's next-token distribution (softmax in double over the float32 logits).
    Json argmax = Json::array(), topK = Json::array();
    for (std::int64_t t = 0; t < T; ++t) {
        const std::int64_t V = c.decoderVocabSize;
        const float *row = r.logits.data() + t * V;
        const double top = *std::max_element(row, row + V);
        std::vector<double> p(static_cast<std::size_t>(V));
        double sum = 0;
        for (std::int64_t v = 0; v < V; ++v) sum += p[static_cast<std::size_t>(v)] = std::exp(double(row[v]) - top);
        std::vector<std::int64_t> order(p.size());
        std::iota(order.begin(), order.end(), std::int64_t(0));
        const std::size_t k = std::min<std::size_t>(order.size(), static_cast<std::size_t>(std::max(request.topK, 1)));
        std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                          [&](std::int64_t a, std::int64_t b) { return p[std::size_t(a)] > p[std::size_t(b)] || (p[std::size_t(a)] == p[std::size_t(b)] && a < b); });
        argmax.push_back(order.front());
        Json list = Json::array();
        for (std::size_t j = 0; j < k; ++j)
            list.push_back(Json{{"id", order[j]}, {"token", idLabel(tokenizer, order[j])},
                                {"probability", static_cast<float>(p[std::size_t(order[j])] / sum)}});
        topK.push_back(std::move(list));
    }
    Json outputs{{"kind", "seq2seq_lm"}, {"argmax", argmax}, {"top_k", topK}};
    if (d.generated) {
        std::vector<std::string> tokens;
        for (std::int64_t id : *d.generated) tokens.push_back(idLabel(tokenizer, id));
        std::vector<std::int32_t> ids32(d.generated->begin(), d.generated->end());
        outputs["generated"] = Json{{"ids", *d.generated},
                                    {"tokens", tokens},
                                    {"text", tokenizer ? Json(tokenizer->decode(ids32)) : Json(nullptr)},
                                    {"stopped_at_eos", d.stoppedAtEos}};
    } else {
        outputs["generated"] = nullptr;
    }
    doc["outputs"] = std::move(outputs);
    doc["analyses"] = Json::object();
    doc["provenance"] = Json::parse(provenanceJson(d.provenance));
    return doc.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string seq2seqInfoJson(const Seq2SeqModel &model, const Tokenizer *tokenizer, const std::string &modelSpec,
                            double loadSeconds)
{
    const Seq2SeqShape &shape = model.shape();
    Json info{{"format", "attnscope-info"}, {"version", 1}};
    const Json block = modelBlock(model, modelSpec);   // items() refers into it: keep it alive
    for (const auto &[key, value] : block.items()) info[key] = value;
    if (const T5Config *c = model.t5Config()) {
        info["family"] = "T5";
        info["intermediate_size"] = c->dFf;
        info["positional"] = "relative_bias";
        info["relative_attention"] = Json{{"buckets", c->buckets}, {"max_distance", c->maxDistance}};
        info["feed_forward"] = std::string(c->gated ? "gated-" : "") + activationName(c->activation);
        info["scale_decoder_outputs"] = c->scaleDecoderOutputs;
    } else if (const BartConfig *b = model.bartConfig()) {
        info["family"] = b->marian ? "Marian" : "BART";
        info["intermediate_size"] = b->encoderFfn;
        info["decoder_intermediate_size"] = b->decoderFfn;
        info["positional"] = b->marian ? "sinusoidal" : "learned";
        info["max_positions"] = b->maxPositions;
        info["feed_forward"] = activationName(b->activation);
        info["scale_embedding"] = b->scaleEmbedding;
        info["norm"] = "post";
        info["pad_token_id"] = b->padTokenId;
    }
    info["decoder_start_token_id"] = shape.decoderStartTokenId;
    info["eos_token_id"] = shape.eosTokenId;
    info["tokenizer"] = tokenizer ? Json{{"kind", tokenizerKindName(tokenizer->kind())}, {"source", tokenizer->source()},
                                         {"vocab_size", tokenizer->vocabSize()}}
                                  : Json(nullptr);
    info["load_seconds"] = std::round(loadSeconds * 1000.0) / 1000.0;
    return info.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

} // namespace attn
