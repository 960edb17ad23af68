// SPDX-License-Identifier: GPL-3.0-or-later
// The legacy tokenizer files — vocab.txt (BERT WordPiece), vocab.json + merges.txt (GPT-2 byte-level BPE) — with
// the options transformers keeps in tokenizer_config.json / special_tokens_map.json; special token ids; and the
// public entry points that choose between them and tokenizer.json.

#include "loader.h"

namespace attn::tokenizer {

namespace {

// The special-token keys of tokenizer_config.json / special_tokens_map.json, and the conventional token names
// tried when a file names none.
struct SpecialKey {
    const char *key;
    std::int32_t SpecialTokenIds::*field;
    std::vector<const char *> conventional;
};
const std::vector<SpecialKey> &specialKeys()
{
    static const std::vector<SpecialKey> keys = {
        {"cls_token", &SpecialTokenIds::cls, {"[CLS]", "<s>"}},
        {"sep_token", &SpecialTokenIds::sep, {"[SEP]", "</s>"}},
        {"pad_token", &SpecialTokenIds::pad, {"[PAD]", "<pad>"}},
        {"mask_token", &SpecialTokenIds::mask, {"[MASK]", "<mask>"}},
        {"unk_token", &SpecialTokenIds::unk, {"[UNK]", "<unk>", "<|endoftext|>"}},
        {"bos_token", &SpecialTokenIds::bos, {"<s>", "<|endoftext|>"}},
        {"eos_token", &SpecialTokenIds::eos, {"</s>", "<|endoftext|>"}},
    };
    return keys;
}

// A special token in a config file: "[CLS]" or {"content": "[CLS]", ...}.
std::optional<std::string> tokenContent(const Json &j)
{
    if (j.is_string()) return j.get<std::string>();
    if (j.is_object() && j.contains("content") && j["content"].is_string()) return j["content"].get<std::string>();
    return std::nullopt;
}

Status readConfigFileUnguarded(const std::string &path, TokenizerConfig &config, bool tokenizerConfig)
{
    auto parsed = parseJsonFile(path);
    if (!parsed) return parsed.status();
    const Json &j = *parsed;
    if (!j.is_object()) return {ErrorCode::FormatError, path + ": expected a JSON object at the top level"};
    auto optBool = [&](const char *key, std::optional<bool> &out) -> Status {
        const auto it = j.find(key);
        if (it == j.end() || it->is_null()) return Status::ok();
        if (!it->is_boolean()) return {ErrorCode::FormatError, path + ": " + key + ": expected true, false or null"};
        out = it->get<bool>();
        return Status::ok();
    };
    if (tokenizerConfig) {
        for (auto [key, out] : {std::pair{"do_lower_case", &config.doLowerCase},
                                {"tokenize_chinese_chars", &config.tokenizeChineseChars},
                                {"add_prefix_space", &config.addPrefixSpace}, {"strip_accents", &config.stripAccents}})
            if (Status s = optBool(key, *out); !s) return s;
        if (const auto it = j.find("added_tokens_decoder"); it != j.end() && it->is_object()) {
            for (const auto &[key, value] : it->items()) {
                AddedToken t;
                std::size_t used = 0;
                try {
                    t.id = std::stoi(key, &used);
                } catch (const std::exception &) {
                    used = 0;
                }
                const auto content = tokenContent(value);
                if (used != key.size() || t.id < 0 || !content)
                    return {ErrorCode::FormatError, path + ": added_tokens_decoder[\"" + key +
                                                        "\"]: expected an id key and an object with \"content\""};
                t.content = *content;
                t.special = value.value("special", false);
                t.lstrip = value.value("lstrip", false);
                t.rstrip = value.value("rstrip", false);
                t.singleWord = value.value("single_word", false);
                t.normalized = value.value("normalized", !t.special);
                config.addedTokensDecoder.push_back(std::move(t));
            }
        }
    }
    for (const SpecialKey &k : specialKeys())
        if (const auto it = j.find(k.key); it != j.end())
            if (const auto content = tokenContent(*it)) config.specialTokens[k.key] = *content;
    return Status::ok();
}

Status readConfigFile(const std::string &path, TokenizerConfig &config, bool tokenizerConfig)
{
    try {
        return readConfigFileUnguarded(path, config, tokenizerConfig);
    } catch (const Json::exception &e) { // a field of an unexpected type
        return {ErrorCode::FormatError, path + ": " + e.what()};
    }
}

void addSpecialAddedToken(Tokenizer::Impl &impl, const std::string &content)
{
    for (const AddedToken &t : impl.addedTokens)
        if (t.content == content) return;
    const auto id = impl.modelTokenToId(content);
    if (!id) return;
    AddedToken t;
    t.id = *id;
    t.content = content;
    t.special = true;
    t.normalized = false;
    impl.addedTokens.push_back(std::move(t));
}

Status readVocabTxt(const std::string &path, Vocab &vocab)
{
    auto text = readTextFile(path);
    if (!text) return text.status();
    std::size_t line = 0;
    for (std::size_t at = 0; at < text->size(); ++line) {
        std::size_t end = text->find('\n', at);
        if (end == std::string::npos) end = text->size();
        std::string token = text->substr(at, end - at);
        while (!token.empty() && (token.back() == '\r' || token.back() == ' ' || token.back() == '\t')) token.pop_back();
        Text check;
        if (decodeUtf8(token, check) != std::string_view::npos)
            return {ErrorCode::FormatError, path + ": line " + std::to_string(line + 1) + ": not valid UTF-8"};
        if (token.find('\0') != std::string::npos)
            return {ErrorCode::FormatError, path + ": line " + std::to_string(line + 1) + ": contains a NUL byte"};
        vocab.insert_or_assign(std::move(token), static_cast<std::int32_t>(line));
        at = end + 1;
    }
    if (vocab.empty()) return {ErrorCode::FormatError, path + ": empty vocabulary"};
    return Status::ok();
}

Status readVocabJson(const std::string &path, Vocab &vocab)
{
    auto parsed = parseJsonFile(path);
    if (!parsed) return parsed.status();
    if (!parsed->is_object())
        return {ErrorCode::FormatError,
                path + ": expected a JSON object mapping tokens to ids, found " + std::string(parsed->type_name())};
    for (const auto &[token, value] : parsed->items()) {
        if (!value.is_number_integer() || value.get<std::int64_t>() < 0 || value.get<std::int64_t>() > INT32_MAX)
            return {ErrorCode::FormatError, path + ": \"" + token + "\": the id must be a non-negative integer"};
        vocab.insert_or_assign(token, static_cast<std::int32_t>(value.get<std::int64_t>()));
    }
    if (vocab.empty()) return {ErrorCode::FormatError, path + ": empty vocabulary"};
    return Status::ok();
}

Status readMergesTxt(const std::string &path, BpeModel &bpe)
{
    auto text = readTextFile(path);
    if (!text) return text.status();
    std::size_t line = 0;
    for (std::size_t at = 0; at < text->size(); at = text->find('\n', at) == std::string::npos ? text->size()
                                                                                               : text->find('\n', at) + 1) {
        ++line;
        std::size_t end = text->find('\n', at);
        if (end == std::string::npos) end = text->size();
        std::string s = text->substr(at, end - at);
        if (!s.empty() && s.back() == '\r') s.pop_back();
        if (s.rfind("#version", 0) == 0) continue;
        const std::string where = path + ": line " + std::to_string(line);
        const auto space = s.find(' ');
        if (space == std::string::npos || space == 0 || space + 1 == s.size() || s.find(' ', space + 1) != std::string::npos)
            return {ErrorCode::FormatError, where + ": expected two tokens separated by one space, found \"" + s + "\""};
        if (Status st = bpe.addMerge(s.substr(0, space), s.substr(space + 1), where); !st) return st;
    }
    return Status::ok();
}

} // namespace

Result<TokenizerConfig> readTokenizerConfig(const std::string &folder)
{
    TokenizerConfig config;
    // special_tokens_map.json first: tokenizer_config.json, read second, wins where both name a token.
    for (const auto &[name, isConfig] : {std::pair{"special_tokens_map.json", false}, {"tokenizer_config.json", true}}) {
        const std::string path = joinPath(folder, name);
        if (fileExists(path))
            if (Status s = readConfigFile(path, config, isConfig); !s) return s;
    }
    return config;
}

void resolveSpecialIds(Tokenizer::Impl &impl, const TokenizerConfig &config)
{
    auto lookup = [&](const std::string &token) -> std::int32_t {
        const auto it = impl.tokenToId.find(token);
        return it == impl.tokenToId.end() ? -1 : it->second;
    };
    for (const SpecialKey &k : specialKeys()) {
        std::int32_t id = -1;
        if (const auto it = config.specialTokens.find(k.key); it != config.specialTokens.end()) id = lookup(it->second);
        for (std::size_t c = 0; id < 0 && c < k.conventional.size(); ++c) id = lookup(k.conventional[c]);
        impl.specialIds.*k.field = id;
    }
    if (const auto *wp = std::get_if<WordPieceModel>(&impl.model)) impl.specialIds.unk = wp->unkId;
}

Result<std::shared_ptr<Tokenizer::Impl>> loadLegacy(const std::string &folder, const TokenizerConfig &config)
{
    auto impl = std::make_shared<Tokenizer::Impl>();
    auto special = [&](const char *key, const char *fallback) {
        const auto it = config.specialTokens.find(key);
        return it != config.specialTokens.end() ? it->second : std::string(fallback);
    };
    const std::string vocabTxt = joinPath(folder, "vocab.txt");
    if (fileExists(vocabTxt)) {
        impl->kind = TokenizerKind::WordPiece;
        impl->source = vocabTxt;
        auto &wp = impl->model.emplace<WordPieceModel>();
        if (Status s = readVocabTxt(vocabTxt, wp.vocab); !s) return s;
        wp.unkToken = special("unk_token", "[UNK]");
        const auto unk = wp.vocab.find(wp.unkToken);
        if (unk == wp.vocab.end())
            return Status{ErrorCode::FormatError, vocabTxt + ": the unknown token '" + wp.unkToken + "' is not in the vocabulary"};
        wp.unkId = unk->second;
        // BertTokenizer's defaults: lower-case, accents follow lower-casing, CJK characters split.
        NormalizerStep n{NormalizerStep::Kind::Bert};
        n.lowercase = config.doLowerCase.value_or(true);
        n.stripAccents = config.stripAccents.value_or(n.lowercase);
        n.chineseChars = config.tokenizeChineseChars.value_or(true);
        impl->normalizer = {n};
        impl->preTokenizer = {{PreTokenizerStep::Kind::Bert}};
        const std::string cls = special("cls_token", "[CLS]"), sep = special("sep_token", "[SEP]");
        const auto icls = wp.vocab.find(cls), isep = wp.vocab.find(sep);
        if (icls == wp.vocab.end() || isep == wp.vocab.end())
            return Status{ErrorCode::FormatError,
                          vocabTxt + ": the framing token '" + (icls == wp.vocab.end() ? cls : sep) + "' is not in the vocabulary"};
        // BertTokenizer's framing is BertProcessing's: [CLS] A [SEP] (B [SEP], type 1).
        PostStep framing{PostStep::Kind::Bert};
        framing.cls.ids = {icls->second};
        framing.cls.tokens = {cls};
        framing.sep.ids = {isep->second};
        framing.sep.tokens = {sep};
        impl->post.steps = {framing};
        impl->post.present = true;
        impl->decoder = {DecoderStep{DecoderStep::Kind::WordPiece}};
        impl->hasDecoder = true;
        impl->addedTokens = config.addedTokensDecoder;
        for (const auto &[key, fallback] : {std::pair{"unk_token", "[UNK]"}, {"sep_token", "[SEP]"},
                                            {"pad_token", "[PAD]"}, {"cls_token", "[CLS]"}, {"mask_token", "[MASK]"}})
            addSpecialAddedToken(*impl, special(key, fallback));
    } else {
        const std::string vocabJson = joinPath(folder, "vocab.json"), mergesTxt = joinPath(folder, "merges.txt");
        if (!fileExists(vocabJson))
            return Status{ErrorCode::IoError, folder + ": no tokenizer files (tokenizer.json, vocab.txt, or vocab.json "
                                              "with merges.txt)"};
        if (!fileExists(mergesTxt)) return Status{ErrorCode::IoError, mergesTxt + ": missing (vocab.json needs it)"};
        impl->kind = TokenizerKind::ByteLevelBpe;
        impl->source = vocabJson;
        auto &bpe = impl->model.emplace<BpeModel>();
        if (Status s = readVocabJson(vocabJson, bpe.vocab); !s) return s;
        if (Status s = readMergesTxt(mergesTxt, bpe); !s) return s;
        if (Status s = finalizeBpe(bpe); !s) return s;
        PreTokenizerStep pre{PreTokenizerStep::Kind::ByteLevel};
        pre.addPrefixSpace = config.addPrefixSpace.value_or(false);
        impl->preTokenizer = {pre};
        impl->decoder = {DecoderStep{DecoderStep::Kind::ByteLevel}}; // GPT-2's post-processor trims no offsets
        impl->hasDecoder = true;
        impl->addedTokens = config.addedTokensDecoder;
        addSpecialAddedToken(*impl, "<|endoftext|>");
        for (const auto &[key, token] : config.specialTokens) addSpecialAddedToken(*impl, token);
    }
    impl->keepAddedIds = true; // transformers' slow tokenizers use the ids the config gives
    if (Status s = impl->finalize(); !s) return s;
    return impl;
}

} // namespace attn::tokenizer

namespace attn {

namespace {
// The loaders return errors as values; this keeps anything unforeseen (a JSON type error deep in a field,
// std::bad_alloc on an absurd file) from escaping the API as an exception.
template <typename F>
Result<Tokenizer> guarded(const std::string &what, F &&load)
{
    try {
        return load();
    } catch (const std::exception &e) {
        return Status{ErrorCode::FormatError, what + ": " + e.what()};
    }
}
} // namespace

Result<Tokenizer> Tokenizer::fromTokenizerJson(const std::string &path)
{
    return guarded(path, [&] { return loadFromTokenizerJson(path); });
}

Result<Tokenizer> Tokenizer::fromTokenizerJsonText(std::string_view json, const std::string &name)
{
    return guarded(name, [&]() -> Result<Tokenizer> {
        auto impl = tokenizer::loadTokenizerJsonText(json, name);
        if (!impl) return impl.status();
        tokenizer::resolveSpecialIds(**impl, tokenizer::TokenizerConfig{});
        return Tokenizer(std::move(*impl));
    });
}

Result<Tokenizer> Tokenizer::fromFolder(const std::string &folder, TokenizerFormat format)
{
    return guarded(folder, [&] { return loadFromFolder(folder, format); });
}

Result<Tokenizer> Tokenizer::loadFromTokenizerJson(const std::string &path)
{
    auto impl = tokenizer::loadTokenizerJson(path);
    if (!impl) return impl.status();
    const auto slash = path.find_last_of('/');
    auto config = tokenizer::readTokenizerConfig(slash == std::string::npos ? "." : path.substr(0, slash));
    if (!config) return config.status();
    tokenizer::resolveSpecialIds(**impl, *config);
    return Tokenizer(std::move(*impl));
}

Result<Tokenizer> Tokenizer::loadFromFolder(const std::string &folder, TokenizerFormat format)
{
    const std::string json = tokenizer::joinPath(folder, "tokenizer.json");
    if (format == TokenizerFormat::TokenizerJson || (format == TokenizerFormat::Auto && tokenizer::fileExists(json))) {
        if (!tokenizer::fileExists(json)) return Status{ErrorCode::IoError, json + ": missing"};
        return loadFromTokenizerJson(json);
    }
    auto config = tokenizer::readTokenizerConfig(folder);
    if (!config) return config.status();
    if (format == TokenizerFormat::SentencePieceSource || format == TokenizerFormat::SentencePieceTarget ||
        (format == TokenizerFormat::Auto && tokenizer::fileExists(tokenizer::joinPath(folder, "source.spm")))) {
        auto spm = tokenizer::loadSentencePiece(folder, format == TokenizerFormat::SentencePieceTarget, *config);
        if (!spm) return spm.status();
        return Tokenizer(std::move(*spm));
    }
    auto impl = tokenizer::loadLegacy(folder, *config);
    if (!impl) return impl.status();
    tokenizer::resolveSpecialIds(**impl, *config);
    return Tokenizer(std::move(*impl));
}

} // namespace attn
