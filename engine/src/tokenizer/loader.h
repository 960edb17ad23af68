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
Result<std::shared_ptr<Tokenizer::Impl>> loadLegacy(const std::string &folder, const TokenizerConfig &config);
// Fills impl.specialIds from the config, else from the conventional token names.
void resolveSpecialIds(Tokenizer::Impl &impl, const TokenizerConfig &config);

} // namespace attn::tokenizer
