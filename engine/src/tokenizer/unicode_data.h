// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Unicode tables of the tokenizers, generated into unicode_data.cpp by tools/make_unicode_tables.py from
// Python's unicodedata. Lookups live in unicode.h.

#include <cstddef>
#include <cstdint>

namespace attn::tokenizer::ucd {

// What the tokenizers ask of a character, as bit flags. Hugging Face mixes Unicode versions (see
// tools/make_unicode_tables.py); each flag follows the version of the code it imitates.
enum Flag : std::uint8_t {
    Letter = 1,              // L*  (GPT-2 pattern \p{L}; current Unicode)
    Number = 2,              // N*  (GPT-2 pattern \p{N}; current Unicode)
    BertNonspacingMark = 4,  // Mn  (BERT accent stripping; Unicode 8.0)
    BertPunctuation = 8,     // P*  (BERT punctuation split; Unicode 8.0)
    BertControl = 16,        // Cc, Cf, Co (BERT text clean-up; Unicode 8.0)
    Mark = 32,               // Mn, Mc, Me (the StripAccents normalizer; Unicode 9.0)
};

// Runs over the whole code space: kFlagRuns[i] starts a run that ends where kFlagRuns[i + 1] starts.
struct FlagRun {
    char32_t first;
    std::uint8_t flags;
};

// One level of a canonical decomposition; second == 0 for a singleton.
struct Decomposition {
    char32_t cp, first, second;
};

// Canonical combining class ccc != 0 for the code points first..last.
struct CombiningRange {
    char32_t first, last;
    std::uint8_t ccc;
};

// Simple lower-case mapping: for i < count, cp = first + i*stride maps to cp + delta.
struct LowerRun {
    char32_t first;
    std::uint16_t count;
    std::int32_t delta;
    std::uint8_t stride;
};

extern const char *const kUnicodeVersion;
extern const FlagRun kFlagRuns[];
extern const std::size_t kFlagRunCount;
extern const Decomposition kDecompositions[];
extern const std::size_t kDecompositionCount;
extern const CombiningRange kCombiningRanges[];
extern const std::size_t kCombiningRangeCount;
extern const LowerRun kLowerRuns[];
extern const std::size_t kLowerRunCount;

} // namespace attn::tokenizer::ucd
