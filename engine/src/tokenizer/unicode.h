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
inline std::size_t utf8Length(char32_t cp) { return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4; }
std::string toUtf8(const Text &text, std::size_t from, std::size_t to);
// The code points of valid UTF-8 (an invalid tail is cut off).
std::u32string toCodePoints(std::string_view utf8);
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

// Rust regex \w (Alphabetic, marks, Nd, Pc, Join_Control at the regex crate's Unicode version) and Rust's
// char::is_numeric, both read off tokenizers itself (unicode_probed.cpp).
bool isRustWord(char32_t cp);
bool isRustNumeric(char32_t cp);

std::uint8_t combiningClass(char32_t cp);

// One character of a transformation's output and how it relates to the input, as Hugging Face's
// NormalizedString::transform takes it: 0 replaces the next input character, 1 is inserted, -N replaces the next
// input character and removes the N after it.
struct Change {
    char32_t cp;
    int change;
};
using Changes = std::vector<Change>;

enum class NormalForm { NFD, NFKD, NFC, NFKC };
// Unicode normalization of the code points, with the changes unicode-normalization-alignments reports (the crate
// Hugging Face uses; its Unicode 9.0 data): decomposed characters after the first are insertions, a composition
// replaces its first character and removes the second.
Changes normalizeChanges(const std::u32string &text, NormalForm form);
// Full lower-case mapping (Rust's char::to_lowercase; U+0130 becomes two characters), appended as changes.
void appendLowerChanges(char32_t cp, Changes &out);

// Extended grapheme clusters (UAX #29 with GB9c): the start index of each cluster, then text.size().
std::vector<std::size_t> graphemeBoundaries(const std::u32string &text);

} // namespace attn::tokenizer
