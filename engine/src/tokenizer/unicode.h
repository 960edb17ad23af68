// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Unicode for the tokenizers: UTF-8 with byte positions, character classes, NFD, lower case.
//
// Text moves through the pipeline as a vector of Char: a code point plus the byte range [begin, end) of the
// original character it came from, so that normalisation (which inserts, drops, decomposes and lower-cases
// characters) keeps every character's way back to the input for the offsets.

#include "unicode_data.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attn::tokenizer {

struct Char {
    char32_t cp;
    std::uint32_t begin, end; // byte range of the source character in the original text
};
using Text = std::vector<Char>;

// Decodes UTF-8 into characters with their byte ranges (offset added to each). Returns the byte position of the
// first invalid sequence, or npos when the text is valid.
std::size_t decodeUtf8(std::string_view bytes, Text &out, std::uint32_t offset = 0);
void appendUtf8(char32_t cp, std::string &out);
std::string toUtf8(const Text &text, std::size_t from, std::size_t to);
// Decodes bytes that may be broken UTF-8: each maximal invalid subpart becomes U+FFFD (Rust's from_utf8_lossy).
std::string utf8Lossy(std::string_view bytes);

std::uint8_t charFlags(char32_t cp); // ucd::Flag bits
inline bool isLetter(char32_t cp) { return charFlags(cp) & ucd::Letter; }
inline bool isNumber(char32_t cp) { return charFlags(cp) & ucd::Number; }
inline bool isMark(char32_t cp) { return charFlags(cp) & ucd::Mark; }
inline bool isBertNonspacingMark(char32_t cp) { return charFlags(cp) & ucd::BertNonspacingMark; }
// The White_Space property (Rust's char::is_whitespace, the regex \s of the GPT-2 pattern).
bool isWhitespace(char32_t cp);
// BERT's definitions.
bool isBertControl(char32_t cp);     // Cc, Cf, Co, but not \t \n \r
bool isBertPunctuation(char32_t cp); // ASCII 33–47, 58–64, 91–96, 123–126, or P*
bool isChineseChar(char32_t cp);     // the CJK ideograph blocks BERT pads with spaces

std::uint8_t combiningClass(char32_t cp);
// Canonical decomposition (NFD) of the whole text, with canonical ordering of combining marks; each produced
// character keeps the byte range of the character it came from.
Text nfd(const Text &text);
// Full lower-case mapping of one character (Rust's char::to_lowercase; U+0130 becomes two characters).
void appendLower(const Char &c, Text &out);

} // namespace attn::tokenizer
