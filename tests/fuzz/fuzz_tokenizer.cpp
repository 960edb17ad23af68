// SPDX-License-Identifier: GPL-3.0-or-later
#include "fuzz_tokenizer.h"

#include "fuzz_support.h"

#include <attnscope/utf8.h>

#include <array>

namespace attnfuzz {

void checkEncoding(const attn::Tokenizer &tokenizer, const attn::Encoding &e, std::string_view text)
{
    const std::size_t n = e.ids.size();
    fuzzCheck(e.tokens.size() == n && e.begins.size() == n && e.ends.size() == n && e.special.size() == n,
              "encoding vectors of different lengths");
    for (std::size_t i = 0; i < n; ++i) {
        fuzzCheck(e.begins[i] <= e.ends[i] && e.ends[i] <= text.size(), "a token offset outside the text");
        fuzzCheck(e.ids[i] >= 0 && static_cast<std::size_t>(e.ids[i]) < tokenizer.vocabSize(), "an id outside the vocabulary");
    }
}

void encodeAndCheck(const attn::Tokenizer &tokenizer, std::string_view text)
{
    // Invalid UTF-8 is refused, naming the offset that attn::firstInvalidUtf8 (written apart from the tokenizer's
    // decoder) finds; valid text is never refused for its encoding.
    const std::size_t bad = attn::firstInvalidUtf8(text);
    const std::string offset = "not valid UTF-8 (byte " + std::to_string(bad) + ")";
    for (bool special : {true, false}) {
        auto e = tokenizer.encode(text, special);
        if (bad != std::string_view::npos) {
            fuzzCheck(!e && e.status().message().find(offset) != std::string::npos,
                      "invalid UTF-8 not refused at its first invalid byte");
            continue;
        }
        if (!e) {
            fuzzCheck(!e.status().message().empty(), "an encode error without a message");
            fuzzCheck(e.status().message().find("UTF-8") == std::string::npos, "valid UTF-8 refused as invalid");
            continue;
        }
        checkEncoding(tokenizer, *e, text);
        if (special) (void)tokenizer.decode(e->ids, false);   // once is enough: decoding is not what varies here
    }
}

void exerciseTokenizer(const attn::Tokenizer &tokenizer)
{
    static constexpr std::array<std::string_view, 6> kTexts{
        "Hello, world! the plot was excellent",
        "caf\xc3\xa9 na\xc3\xafve \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80",
        "  \t\n  ",
        "[CLS] [MASK] <|endoftext|> <s></s> [UNK]",
        "a",
        "",
    };
    for (std::string_view text : kTexts) encodeAndCheck(tokenizer, text);
    const std::size_t vocab = tokenizer.vocabSize();
    for (std::int32_t id : {0, 1, static_cast<std::int32_t>(vocab) - 1, static_cast<std::int32_t>(vocab), -1}) {
        const std::string token = tokenizer.idToToken(id);
        if (!token.empty()) (void)tokenizer.tokenToId(token);
        (void)tokenizer.isSpecialId(id);
    }
    (void)tokenizer.decode({0, -5, static_cast<std::int32_t>(vocab), 2147483647});
}

} // namespace attnfuzz
