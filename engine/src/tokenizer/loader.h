// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Loading tokenizers: tokenizer.json (loader.cpp) and the legacy files with their config (legacy.cpp).

#include "pipeline.h"

#include <map>
#include <memory>
#include <nlohmann/json.hpp>

namespace attn::tokenizer {

using Json = nlohmann::json;

Result<std::string> readTextFile(const std::string &path);
Result<Json> parseJsonFile(const std::string &path);
std::string joinPath(const std::string &folder, const std::string &name);
bool fileExists(const std::string &path);

// tokenizer_config.json and special_tokens_map.json of a folder, as far as the tokenizers use them.
struct TokenizerConfig {
    std::optional<bool> doLowerCase, tokenizeChineseChars, addPrefixSpace;
    std::optional<bool> stripAccents;                   // null in the file: follow lower-casing
    std::map<std::string, std::string> specialTokens;   // "cls_token" -> "[CLS]", ...
    std::vector<AddedToken> addedTokensDecoder;         // tokenizer_config.json "added_tokens_decoder"
};
Result<TokenizerConfig> readTokenizerConfig(const std::string &folder);

Result<std::shared_ptr<Tokenizer::Impl>> loadTokenizerJson(const std::string &path);
// Reads tokenizer.json from memory; `name` stands for the file in error messages (the fuzz entry point).
Result<std::shared_ptr<Tokenizer::Impl>> loadTokenizerJsonText(std::string_view text, const std::string &name);

// The components of tokenizer.json (loader_components.cpp); errors name the file and the JSON field.
struct JsonReader {
    std::string path;
    Status error(const std::string &field, const std::string &what) const;
    // The "type" of a component; empty for null (no component).
    Result<std::string> componentType(const Json &j, const std::string &field) const;
    Status normalizer(const Json &j, const std::string &field, std::vector<NormalizerStep> &out) const;
    Status preTokenizer(const Json &j, const std::string &field, std::vector<PreTokenizerStep> &out) const;
    Status postProcessor(const Json &j, const std::string &field, PostProcessor &out) const;
    Status decoder(const Json &j, const std::string &field, std::vector<DecoderStep> &out) const;

    Result<Regex> pattern(const Json &j, const std::string &field) const; // {"String": s} or {"Regex": r}
    Status templateItems(const Json &j, const Json &specials, const std::string &field,
                         std::vector<TemplateItem> &out) const;
    Status specialPair(const Json &j, const std::string &field, TemplateItem &out) const;
};
bool boolOr(const Json &obj, const char *key, bool fallback);
std::optional<std::int32_t> jsonId(const Json &j);
Result<std::shared_ptr<Tokenizer::Impl>> loadLegacy(const std::string &folder, const TokenizerConfig &config);
// Marian's tokenizer files (sentencepiece.cpp): source.spm or (target) target.spm, vocab.json (target_vocab.json
// when separate_vocabs), the special tokens of the config.
Result<std::shared_ptr<Tokenizer::Impl>> loadSentencePiece(const std::string &folder, bool target, const TokenizerConfig &config);
Result<Encoding> encodeSentencePiece(const Tokenizer::Impl &impl, std::string_view text, const EncodeOptions &options);
std::string decodeSentencePiece(const Tokenizer::Impl &impl, const std::vector<std::int32_t> &ids, bool skipSpecialTokens);
// Fills impl.specialIds from the config, else from the conventional token names.
void resolveSpecialIds(Tokenizer::Impl &impl, const TokenizerConfig &config);

} // namespace attn::tokenizer
