// SPDX-License-Identifier: GPL-3.0-or-later
#include <attnscope/textmodel.h>

#include <attnscope/seq2seq.h>
#include <attnscope/vit.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

namespace attn {

std::vector<std::string> sampleModelDirs()
{
    std::vector<std::string> dirs;
    if (const char *env = std::getenv("ATTNSCOPE_SAMPLE_MODELS"); env && *env) dirs.emplace_back(env);
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) dirs.push_back((exe.parent_path() / ".." / "share" / "attnscope" / "sample_models").lexically_normal().string());
#ifdef ATTNSCOPE_SOURCE_SAMPLE_MODELS
    dirs.emplace_back(ATTNSCOPE_SOURCE_SAMPLE_MODELS);
#endif
    return dirs;
}

std::vector<SampleModelInfo> listSampleModels()
{
    std::vector<SampleModelInfo> found;
    for (const std::string &dir : sampleModelDirs()) {
        std::error_code ec;
        for (const auto &entry : fs::directory_iterator(dir, ec)) {
            if (!entry.is_directory() || !fs::exists(entry.path() / "config.json")) continue;
            const std::string name = entry.path().filename().string();
            if (std::none_of(found.begin(), found.end(), [&](const auto &s) { return s.name == name; }))
                found.push_back({name, fs::absolute(entry.path()).lexically_normal().string(),
                                 isSeq2SeqFolder(entry.path().string()), isVitFolder(entry.path().string())});
        }
    }
    std::sort(found.begin(), found.end(), [](const auto &a, const auto &b) { return a.name < b.name; });
    return found;
}

Result<std::string> resolveModelSpec(const std::string &spec)
{
    constexpr std::string_view prefix = "sample:";
    if (spec.rfind("random:", 0) == 0) return spec;
    if (spec.rfind(prefix, 0) != 0) {
        std::error_code ec;
        if (fs::exists(spec, ec)) return isHubRepoFolder(spec) ? resolveHubRepoFolder(spec) : Result<std::string>(spec);
        // Not a path: a repo id in the local hub cache, if it looks like one.
        auto hub = resolveHubRepoId(spec);
        if (hub || hub.status().code() == ErrorCode::IoError) return hub;
        return spec;   // the loader says "no such folder"
    }
    const std::string name = spec.substr(prefix.size());
    for (const SampleModelInfo &s : listSampleModels())
        if (s.name == name) return s.folder;
    std::string known, searched;
    for (const SampleModelInfo &s : listSampleModels()) known += (known.empty() ? "" : ", ") + s.name;
    for (const std::string &d : sampleModelDirs()) searched += (searched.empty() ? "" : ", ") + d;
    return Status(ErrorCode::InvalidArgument, "unknown sample model '" + name + "' (known: " +
                                                  (known.empty() ? "none found" : known) + "; searched " + searched + ")");
}

Result<TextModel> TextModel::open(const std::string &spec, const LoadOptions &options)
{
    auto source = resolveModelSpec(spec);
    if (!source) return source.status();
    auto model = Model::open(*source, options);
    if (!model) return model.status();
    if (model->config().architecture == Architecture::Synthetic)
        return TextModel(std::move(model).value(), std::nullopt, spec);
    auto tokenizer = Tokenizer::fromFolder(*source);
    if (!tokenizer) return tokenizer.status();
    if (static_cast<std::int64_t>(tokenizer->vocabSize()) > model->config().vocabSize)
        return Status(ErrorCode::FormatError,
                      *source + ": the tokenizer has " + std::to_string(tokenizer->vocabSize()) +
                          " tokens but config.json vocab_size is " + std::to_string(model->config().vocabSize));
    return TextModel(std::move(model).value(), std::move(tokenizer).value(), spec);
}

std::string TextModel::displayName() const
{
    return m_displayName;
}

std::string TextModel::nameOf(const std::string &spec, const Model &model)
{
    if (spec.rfind("sample:", 0) == 0 || spec.rfind("random:", 0) == 0) return spec;
    // A hub cache entry shows its repo id, not the snapshot's commit hash: "Org/Name" as given, or from the
    // models--Org--Name folder of a path into the cache.
    std::error_code ec;
    if (!fs::exists(spec, ec) && spec.find('/') != std::string::npos) return spec;
    for (fs::path p = fs::path(model.source()).lexically_normal(); !p.empty() && p != p.root_path(); p = p.parent_path()) {
        const std::string name = p.filename().string();
        if (name.rfind("models--", 0) != 0) continue;
        std::string id = name.substr(8);
        if (const std::size_t sep = id.find("--"); sep != std::string::npos) id.replace(sep, 2, "/");
        return id;
    }
    return model.name();
}

Result<TokenizedText> TextModel::tokenize(const std::string &text) const
{
    return tokenize(text, TokenizeOptions{});
}

std::int64_t TextModel::maxTokens() const
{
    const ModelConfig &c = m_model.config();
    return c.maxPositions > 0 ? c.maxPositions - c.positionOffset : 0;
}

namespace {

// The tokenizer's encoding as the model's tokens: labels are the text each token covers in its own sequence.
TokenizedText fromEncoding(const Encoding &enc, const std::string &text, const std::optional<std::string> &pair)
{
    TokenizedText t;
    t.text = text;
    t.textPair = pair;
    for (std::size_t i = 0; i < enc.ids.size(); ++i) {
        t.ids.push_back(enc.ids[i]);
        const bool special = enc.special[i] != 0;
        const std::size_t b = enc.begins[i], e = enc.ends[i];
        const std::int8_t seq = i < enc.sequence.size() ? enc.sequence[i] : std::int8_t(special ? -1 : 0);
        const std::string &source = pair && seq == 1 ? *pair : text;
        t.labels.push_back(special || e <= b || e > source.size() ? enc.tokens[i] : source.substr(b, e - b));
        t.begins.push_back(b);
        t.ends.push_back(e);
        t.special.push_back(enc.special[i]);
        t.sequence.push_back(seq);
        t.typeIds.push_back(i < enc.typeIds.size() ? enc.typeIds[i] : 0);
    }
    t.untruncatedLength = t.ids.size();
    return t;
}

} // namespace

Result<TokenizedText> TextModel::tokenize(const std::string &text, const TokenizeOptions &options) const
{
    const ModelConfig &c = m_model.config();
    const std::int64_t limit = maxTokens();
    const bool learned = c.positions == PositionKind::Learned && limit > 0;
    TokenizedText t;
    if (!m_tokenizer) {
        if (options.pair)
            return Status::invalid("text pair: " + displayName() + " has no tokenizer and so no pair template (its "
                                   "tokens are the text's bytes); join the texts into one");
        // Synthetic models: one token per UTF-8 byte; a multi-byte character's label sits on its first byte.
        t.text = text;
        for (std::size_t i = 0; i < text.size(); ++i) {
            const unsigned char ch = static_cast<unsigned char>(text[i]);
            std::size_t len = 1;
            if ((ch & 0xE0) == 0xC0) len = 2; else if ((ch & 0xF0) == 0xE0) len = 3; else if ((ch & 0xF8) == 0xF0) len = 4;
            for (std::size_t k = 0; k < len && i + k < text.size(); ++k) {
                t.ids.push_back(static_cast<unsigned char>(text[i + k]));
                t.labels.push_back(k == 0 ? text.substr(i, len) : std::string());
                t.begins.push_back(i + k);
                t.ends.push_back(i + k + 1);
                t.special.push_back(0);
                t.sequence.push_back(0);
                t.typeIds.push_back(0);
            }
            i += len - 1;
        }
        t.untruncatedLength = t.ids.size();
        if (options.truncate && limit > 0 && static_cast<std::int64_t>(t.ids.size()) > limit) {
            const auto keep = static_cast<std::size_t>(limit);
            for (auto *v : {&t.begins, &t.ends}) v->resize(keep);
            t.ids.resize(keep), t.labels.resize(keep), t.special.resize(keep), t.sequence.resize(keep), t.typeIds.resize(keep);
            t.truncated = true;
        }
    } else {
        auto enc = options.pair ? m_tokenizer->encodePair(text, *options.pair) : m_tokenizer->encode(text);
        if (!enc) return enc.status();
        t = fromEncoding(*enc, text, options.pair);
        if (options.truncate && limit > 0 && static_cast<std::int64_t>(enc->ids.size()) > limit) {
            EncodeOptions cut;
            cut.maxLength = static_cast<std::size_t>(limit);
            auto shorter = options.pair ? m_tokenizer->encodePair(text, *options.pair, cut) : m_tokenizer->encode(text, cut);
            if (!shorter) return Status::invalid("truncation to " + displayName() + "'s " + std::to_string(limit) +
                                                 " positions: " + shorter.status().message());
            const std::size_t untruncated = t.ids.size();
            t = fromEncoding(*shorter, text, options.pair);
            t.truncated = true;
            t.untruncatedLength = untruncated;
        }
    }
    if (t.ids.empty()) return Status::invalid("the text has no tokens");
    if (learned && static_cast<std::int64_t>(t.ids.size()) > limit)
        return Status::invalid(std::string(options.pair ? "the text and its pair are " : "the text is ") +
                               std::to_string(t.ids.size()) + " tokens long, but " + displayName() + " has only " +
                               std::to_string(limit) + " positions (config.json " +
                               (c.architecture == Architecture::Gpt2 ? "n_positions" : "max_position_embeddings") +
                               "); truncation keeps the first " + std::to_string(limit));
    return t;
}

ForwardInput TextModel::forwardInput(const TokenizedText &tokens) const
{
    ForwardInput in;
    in.tokenIds = tokens.ids;
    const bool typed = m_model.config().typeVocabSize > 1 &&
                       std::any_of(tokens.typeIds.begin(), tokens.typeIds.end(), [](std::int64_t t) { return t != 0; });
    if (typed) in.tokenTypeIds = tokens.typeIds;
    return in;
}

} // namespace attn
