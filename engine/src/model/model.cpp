// SPDX-License-Identifier: GPL-3.0-or-later
// Model: opening (folders and "random:" specs), input validation, and the synthetic model builder.
#include "forward.h"
#include "weights.h"

#include "rng.h"

#include <attnscope/limits.h>
#include <attnscope/mha.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace attn {

namespace detail {

Status checkMemoryBudget(std::uint64_t needed, const LoadOptions &options, const std::string &what)
{
    const std::uint64_t available = options.maxMemoryBytes > 0 ? options.maxMemoryBytes : memoryBudget().value_or(0);
    if (available == 0 || needed <= available) return Status::ok();   // unknown: no basis for a refusal
    const auto gib = [](std::uint64_t b) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(b) / double(1ull << 30));
        return std::string(buf);
    };
    return Status(ErrorCode::OutOfMemory,
                  what + " needs " + gib(needed) + " GiB for its float32 weights, " + gib(available) + " GiB available" +
                      (options.maxMemoryBytes > 0 ? " (the given memory limit)" : "") +
                      "; give a larger memory limit (--max-memory) to try anyway");
}

Result<ModelWeights> buildSynthetic(const ModelConfig &config)
{
    ModelWeights w;
    w.config = config;
    const std::int64_t D = config.dModel;
    // Unit-variance token embeddings: uniform on [-√3, √3].
    SplitMix64 rng(config.seed);
    w.tokenEmbedding.resize(static_cast<std::size_t>(config.vocabSize * D));
    for (float &v : w.tokenEmbedding) v = rng.uniform(-1.7320508f, 1.7320508f);
    const LayerNormWeights identity{std::vector<float>(static_cast<std::size_t>(D), 1.0f),
                                    std::vector<float>(static_cast<std::size_t>(D), 0.0f)};
    for (std::int64_t l = 0; l < config.layers; ++l) {
        const MhaWeights m = MhaWeights::random(D, config.heads, config.dHead,
                                                config.seed * 1000003ull + static_cast<std::uint64_t>(l) + 1);
        Block b;
        b.ln1 = identity;
        b.ln2 = identity;
        const std::int64_t inner = config.heads * config.dHead;
        b.q = {D, inner, m.wq, m.bq};
        b.k = {D, inner, m.wk, m.bk};
        b.v = {D, inner, m.wv, m.bv};
        b.o = {inner, D, m.wo, m.bo};
        w.blocks.push_back(std::move(b));
    }
    w.finalNorm = identity;
    return w;
}

} // namespace detail

namespace {

std::string positionsField(const ModelConfig &c)
{
    return c.architecture == Architecture::Gpt2 ? "n_positions" : "max_position_embeddings";
}

// fp32 bytes of a synthetic model: token embeddings, Q/K/V/O with biases, layer norms.
std::uint64_t syntheticBytes(const ModelConfig &c)
{
    const auto D = static_cast<std::uint64_t>(c.dModel), inner = static_cast<std::uint64_t>(c.heads * c.dHead);
    return 4 * (static_cast<std::uint64_t>(c.vocabSize) * D +
                static_cast<std::uint64_t>(c.layers) * (4 * D * inner + 3 * inner + 5 * D) + 2 * D);
}

Status invalid(const std::string &what) { return Status::invalid(what); }

Status checkHead(const ModelConfig &c, const HeadRef &r, const std::string &what)
{
    if (r.layer < 0 || r.layer >= c.layers || r.head < 0 || r.head >= c.heads)
        return invalid(what + " names layer " + std::to_string(r.layer) + " head " + std::to_string(r.head) +
                       ", outside layers [0, " + std::to_string(c.layers) + ") x heads [0, " + std::to_string(c.heads) + ")");
    return Status::ok();
}

} // namespace

Result<Model> Model::open(const std::string &source, const LoadOptions &options)
{
    if (source.rfind("random:", 0) == 0) return synthetic(source, options);
    return loadFolder(source, options);
}

Result<Model> Model::loadFolder(const std::string &folder, const LoadOptions &options)
{
    auto w = detail::loadCheckpointFolder(folder, options);
    if (!w) return w.status();
    return Model(std::make_shared<const detail::ModelWeights>(std::move(w).value()));
}

Result<Model> Model::synthetic(const std::string &spec, const LoadOptions &options)
{
    auto config = parseSyntheticSpec(spec);
    if (!config) return config.status();
    // Checked before anything is allocated: random:layers=64,heads=256,d_model=8192 would take 64 GiB.
    if (options.maxMemoryBytes == 0) {
        if (Status s = checkWeightMemory(*config, spec); !s) return s;   // limits.h: before any allocation
    } else if (Status s = detail::checkMemoryBudget(syntheticBytes(*config), options, "synthetic model '" + spec + "'"); !s)
        return s;
    auto w = detail::buildSynthetic(*config);
    if (!w) return w.status();
    w->source = spec;
    return Model(std::make_shared<const detail::ModelWeights>(std::move(w).value()));
}

const ModelConfig &Model::config() const { return m_w->config; }
const std::string &Model::source() const { return m_w->source; }

std::string Model::name() const
{
    if (m_w->config.architecture == Architecture::Synthetic) return m_w->source;
    std::filesystem::path p(m_w->source);
    if (!p.has_filename()) p = p.parent_path();
    return p.filename().string();
}

Status Model::validate(const ForwardInput &in, const ForwardOptions &opt) const
{
    const ModelConfig &c = m_w->config;
    const bool embeddings = !in.inputEmbeddings.empty();
    if (embeddings && !in.tokenIds.empty()) return invalid("give either token ids or input embeddings, not both");
    if (embeddings && in.inputEmbeddings.size() % static_cast<std::size_t>(c.dModel) != 0)
        return invalid("input embeddings have " + std::to_string(in.inputEmbeddings.size()) +
                       " values, not a multiple of d_model " + std::to_string(c.dModel));
    const auto L = static_cast<std::int64_t>(embeddings ? in.inputEmbeddings.size() / static_cast<std::size_t>(c.dModel)
                                                        : in.tokenIds.size());
    if (L == 0) return invalid("the input has no tokens");
    // RoPE models run past max_position_embeddings as transformers does; learned tables end there (RoBERTa's
    // first positionOffset rows are padding positions).
    const std::int64_t usable = c.maxPositions - c.positionOffset;
    if (c.maxPositions > 0 && L > usable && c.positions == PositionKind::Learned)
        return invalid("the input has " + std::to_string(L) + " tokens, but model '" + name() + "' has only " +
                       std::to_string(usable) + " positions (" + positionsField(c) + " in config.json" +
                       (c.positionOffset > 0 ? " minus " + std::to_string(c.positionOffset) + " reserved" : std::string()) +
                       "); shorten the text");
    for (std::size_t p = 0; p < in.tokenIds.size(); ++p)
        if (in.tokenIds[p] < 0 || in.tokenIds[p] >= c.vocabSize)
            return invalid("token id " + std::to_string(in.tokenIds[p]) + " at position " + std::to_string(p) +
                           " is outside the vocabulary [0, " + std::to_string(c.vocabSize) + ") (vocab_size)");
    if (!in.tokenTypeIds.empty()) {
        if (c.typeVocabSize == 0) return invalid("token type ids are given, but model '" + name() + "' has no token types");
        if (static_cast<std::int64_t>(in.tokenTypeIds.size()) != L)
            return invalid("token type ids have " + std::to_string(in.tokenTypeIds.size()) + " entries for " +
                           std::to_string(L) + " tokens");
        for (std::size_t p = 0; p < in.tokenTypeIds.size(); ++p)
            if (in.tokenTypeIds[p] < 0 || in.tokenTypeIds[p] >= c.typeVocabSize)
                return invalid("token type id " + std::to_string(in.tokenTypeIds[p]) + " at position " +
                               std::to_string(p) + " is outside [0, " + std::to_string(c.typeVocabSize) +
                               ") (type_vocab_size)");
    }
    if (!in.attentionMask.empty() && static_cast<std::int64_t>(in.attentionMask.size()) != L)
        return invalid("the attention mask has " + std::to_string(in.attentionMask.size()) + " entries for " +
                       std::to_string(L) + " tokens");

    if (opt.weightsMode == WeightsRequest::Mode::Heads)
        for (const HeadRef &r : opt.weightHeads)
            if (Status s = checkHead(c, r, "a weights request"); !s) return s;
    for (const HeadAblation &a : opt.ablations) {
        if (Status s = checkHead(c, a.head, "an ablation"); !s) return s;
        if (!a.mean.empty() && static_cast<std::int64_t>(a.mean.size()) != c.dHead)
            return invalid("the mean for ablating layer " + std::to_string(a.head.layer) + " head " +
                           std::to_string(a.head.head) + " has " + std::to_string(a.mean.size()) +
                           " values; the head size is " + std::to_string(c.dHead));
    }
    for (const HeadOverride &o : opt.overrides)
        if (Status s = checkHead(c, o.head, "a weights override"); !s) return s;
    for (const KeyKnockout &k : opt.knockouts) {
        if (k.position < 0 || k.position >= L)
            return invalid("a key knockout names position " + std::to_string(k.position) + ", outside the " +
                           std::to_string(L) + " tokens");
        if (k.layer >= c.layers)
            return invalid("a key knockout names layer " + std::to_string(k.layer) + "; the model has " +
                           std::to_string(c.layers) + " layers");
    }
    for (std::int64_t p : opt.zeroEmbeddings)
        if (p < 0 || p >= L)
            return invalid("a zero-embedding position is " + std::to_string(p) + ", outside the " +
                           std::to_string(L) + " tokens");
    if (opt.maskOverride && !opt.maskOverride->keyValid.empty() &&
        static_cast<std::int64_t>(opt.maskOverride->keyValid.size()) != L)
        return invalid("the mask override's keyValid has " + std::to_string(opt.maskOverride->keyValid.size()) +
                       " entries for " + std::to_string(L) + " tokens");
    if (opt.maskOverride)
        if (Status s = validateMask(*opt.maskOverride, 1, c.heads, L, L); !s) return s;
    if (opt.threads < 0) return invalid("threads is " + std::to_string(opt.threads) + "; use 0 for all cores");
    if (opt.stopAtLayer != -1) {
        const std::int64_t stop = opt.stopAtLayer;
        if (stop < 0 || stop >= c.layers)
            return invalid("the forward is to stop at layer " + std::to_string(stop) + "; the model has " +
                           std::to_string(c.layers) + " layers (0-based)");
        const auto after = [&](const HeadRef &r, const char *what) {
            return r.layer >= stop ? invalid(std::string(what) + " names layer " + std::to_string(r.layer) +
                                             ", which a forward stopped at layer " + std::to_string(stop) + " does not run")
                                   : Status::ok();
        };
        if (opt.weightsMode == WeightsRequest::Mode::All || opt.captureQKV)
            return invalid("a forward stopped at layer " + std::to_string(stop) +
                           " cannot capture every layer's weights or Q, K, V");
        if (opt.weightsMode == WeightsRequest::Mode::Heads)
            for (const HeadRef &r : opt.weightHeads)
                if (Status st = after(r, "a weights request"); !st) return st;
        for (const HeadAblation &a : opt.ablations)
            if (Status st = after(a.head, "an ablation"); !st) return st;
        for (const HeadOverride &o : opt.overrides)
            if (Status st = after(o.head, "a weights override"); !st) return st;
    }
    return Status::ok();
}

Result<ForwardResult> Model::forward(const ForwardInput &input, const ForwardOptions &options) const
{
    if (Status s = validate(input, options); !s) return s;
    return detail::runForward(*m_w, input, options);
}

} // namespace attn
