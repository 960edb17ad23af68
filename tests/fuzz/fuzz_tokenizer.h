// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What every tokenizer harness does with a tokenizer that loaded, and the invariants of an encoding.

#include <attnscope/tokenizer.h>

#include <string_view>

namespace attnfuzz {

// Encodes `text` (with and without special tokens) and decodes the ids; checks the encoding's invariants
// (checkEncoding). Errors are allowed, crashes and broken invariants are not.
void encodeAndCheck(const attn::Tokenizer &tokenizer, std::string_view text);
// encodeAndCheck on a few fixed texts (ASCII, accents, CJK, emoji, whitespace, special-token look-alikes), and the
// id ↔ token lookups around the vocabulary's ends.
void exerciseTokenizer(const attn::Tokenizer &tokenizer);
// Every vector of the same length, offsets inside the text with begin <= end, ids inside [0, vocabSize).
void checkEncoding(const attn::Tokenizer &tokenizer, const attn::Encoding &e, std::string_view text);

} // namespace attnfuzz
