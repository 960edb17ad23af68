// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A piece of text on its way through the pipeline, with its way back to the original (Hugging Face's
// NormalizedString). Every normalized character carries the byte range of the original text it aligns to; the
// rules by which transformations assign those ranges are Hugging Face's, quirks included, because token offsets
// are read from them:
//   - a character that replaces one (change 0, or -N: replaces and removes N more) takes that character's range;
//   - an inserted character (change 1) takes the range of the input character just before it (the start of the
//     piece, as an empty range, when there is none);
//   - so NFC's é from e + U+0301 aligns to the e only, Prepend's ▁ to the first character, Replace's content to
//     the last character of the match.

#include "regex.h"
#include "unicode.h"

#include <functional>

namespace attn::tokenizer {

// How a split treats the pieces its pattern matches (tokenizers' SplitDelimiterBehavior).
enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

// A cover of a text by its pattern matches and the gaps between them: character ranges, left to right.
struct Span {
    std::size_t from, to;
    bool isMatch;
};
using Spans = std::vector<Span>;

struct NormalizedText {
    Text chars;
    std::uint32_t origin = 0; // byte offset of the piece in the original text (tokenizers' original_shift)

    static NormalizedText fromOriginal(const Text &text, std::size_t from, std::size_t to);

    bool empty() const { return chars.empty(); }
    std::u32string codePoints() const;
    std::u32string codePoints(std::size_t from, std::size_t to) const;
    std::string utf8() const;

    // Replaces characters [from, to) by `changes` (see the top of this file). initialOffset characters at the
    // start of the range are removed before the first change.
    void transformRange(std::size_t from, std::size_t to, const Changes &changes, std::size_t initialOffset = 0);
    void transform(const Changes &changes, std::size_t initialOffset = 0)
    {
        transformRange(0, chars.size(), changes, initialOffset);
    }
    void prepend(std::u32string_view s);
    void filter(const std::function<bool(char32_t)> &keep);
    void map(const std::function<char32_t(char32_t)> &f);
    void lowercase();
    void normalize(NormalForm form);
    void strip(bool left, bool right);
    // Replaces every match (character ranges, ascending, non-overlapping) by `content`.
    void replace(const Spans &matches, std::u32string_view content);

    NormalizedText slice(std::size_t from, std::size_t to) const;
    // The pieces of a split by the cover `spans` (matches and gaps), by behaviour; empty pieces are dropped.
    std::vector<NormalizedText> split(const Spans &spans, SplitBehavior behavior) const;
};

// Covers of a text, as tokenizers' Pattern::find_matches builds them.
Spans regexSpans(const Regex &re, const NormalizedText &text);
Spans charSpans(const NormalizedText &text, const std::function<bool(char32_t)> &isDelimiter);
void invertSpans(Spans &spans);

} // namespace attn::tokenizer
