// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The regular expressions of tokenizer.json (Split pre-tokenizer, Replace normalizer and decoder), run by
// Oniguruma — the engine Hugging Face tokenizers itself uses (utils/onig.rs), with the same syntax (Ruby), the same
// options (none) and the same iteration (onig's find_iter), so \s, \p{L}, (?i:...) case folding and lookahead mean
// exactly what they mean there. See docs/tokenizers.md for why not PCRE2.

#include <attnscope/status.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attn::tokenizer {

using ByteRange = std::pair<std::uint32_t, std::uint32_t>;

class Regex {
public:
    // A syntax error is an InvalidArgument naming Oniguruma's reason.
    static Result<Regex> compile(std::string_view pattern);
    // The pattern that matches `literal` exactly (Rust regex::escape, as tokenizers escapes String patterns).
    static std::string escape(std::string_view literal);

    // Non-overlapping matches, left to right, as byte ranges of `utf8` (which must be valid UTF-8). An empty match
    // right after the previous match is skipped by advancing one character, as the onig crate does.
    void findAll(std::string_view utf8, std::vector<ByteRange> &out) const;

    const std::string &pattern() const { return m_pattern; }

    struct Compiled;

private:
    std::shared_ptr<const Compiled> m_compiled;
    std::string m_pattern;
};

} // namespace attn::tokenizer
