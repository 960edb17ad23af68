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

// A full decomposition: kChars[offset, offset + count) of the table it indexes.
struct DecompositionIndex {
    char32_t cp;
    std::uint32_t offset, count;
};

// A primary composite: first + second compose to composite (sorted by first, then second).
struct Composition {
    char32_t first, second, composite;
};

// Grapheme_Cluster_Break values (UAX #29), the low 4 bits of kGraphemeRuns' flags.
enum GraphemeBreak : std::uint8_t {
    GbOther, GbCR, GbLF, GbControl, GbExtend, GbZWJ, GbRegionalIndicator, GbPrepend, GbSpacingMark,
    GbL, GbV, GbT, GbLV, GbLVT,
};
enum GraphemeFlag : std::uint8_t { GbPictographic = 16, GbLinker = 32, GbConsonant = 64, GbIncbExtend = 128 };

extern const char *const kUnicodeVersion;
extern const FlagRun kFlagRuns[];
extern const std::size_t kFlagRunCount;
extern const Decomposition kDecompositions[];
extern const std::size_t kDecompositionCount;
extern const CombiningRange kCombiningRanges[];
extern const std::size_t kCombiningRangeCount;
extern const LowerRun kLowerRuns[];
extern const std::size_t kLowerRunCount;

// unicode_probed.cpp (tools/make_unicode_tables.py --probed): read off Hugging Face tokenizers itself.
extern const char *const kGraphemeSource;
extern const char32_t kWordRunStarts[];      // Rust regex \w: starts of alternating runs, the first run not \w
extern const std::size_t kWordRunStartCount;
extern const char32_t kNumericRunStarts[];   // Rust char::is_numeric, the same layout
extern const std::size_t kNumericRunStartCount;
extern const DecompositionIndex kCanonicalFull[];
extern const std::size_t kCanonicalFullCount;
extern const char32_t kCanonicalFullChars[];
extern const DecompositionIndex kCompatFull[];
extern const std::size_t kCompatFullCount;
extern const char32_t kCompatFullChars[];
extern const Composition kCompositions[];
extern const std::size_t kCompositionCount;
extern const FlagRun kGraphemeRuns[];
extern const std::size_t kGraphemeRunCount;

} // namespace attn::tokenizer::ucd
