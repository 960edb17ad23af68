// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Precompiled normalizer: SentencePiece's precompiled_charsmap (a darts-clone double-array trie of byte
// strings plus a blob of NUL-terminated replacements), applied the way tokenizers applies it: per extended grapheme
// cluster, a cluster shorter than 6 bytes with any match is replaced whole by its FIRST (shortest) match;
// otherwise each character is replaced by its own match or kept.

#include "normalized.h"

#include <attnscope/status.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attn::tokenizer {

class Precompiled {
public:
    // `base64` is the tokenizer.json field; errors name what is wrong with it.
    static Result<Precompiled> fromBase64(std::string_view base64);
    static Result<Precompiled> fromBytes(std::string_view bytes);

    // The replacement for the shortest prefix of `key` in the trie, if any.
    std::optional<std::string_view> transform(std::string_view key) const;
    void normalize(NormalizedText &text) const;

private:
    std::vector<std::uint32_t> m_units;
    std::string m_normalized;
};

} // namespace attn::tokenizer
