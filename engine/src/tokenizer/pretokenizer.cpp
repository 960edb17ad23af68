// SPDX-License-Identifier: GPL-3.0-or-later
// Pre-tokenizers: each splits every current piece (and may rewrite it, as ByteLevel and Metaspace do), with the
// split rules of Hugging Face's NormalizedString::split (normalized.cpp).

#include "pipeline.h"

namespace attn::tokenizer {

namespace {

struct ByteTable {
    std::array<char32_t, 256> toUnicode{};
    std::unordered_map<char32_t, std::uint8_t> toByte;
    ByteTable()
    {
        // Printable bytes stand for themselves; the other 68 take U+0100.. in byte order (space → Ġ U+0120).
        char32_t next = 0x100;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            toUnicode[static_cast<std::size_t>(b)] = printable ? static_cast<char32_t>(b) : next++;
            toByte[toUnicode[static_cast<std::size_t>(b)]] = static_cast<std::uint8_t>(b);
        }
    }
};
const ByteTable &byteTable()
{
    static const ByteTable table;
    return table;
}

using Pieces = std::vector<NormalizedText>;

// ByteLevel: optional prefix space, the GPT-2 split, then every UTF-8 byte as its stand-in character. The bytes of
// one character all keep that character's range.
void byteLevel(const PreTokenizerStep &step, NormalizedText piece, Pieces &out)
{
    if (step.addPrefixSpace && (piece.chars.empty() || piece.chars.front().cp != U' ')) piece.prepend(U" ");
    const std::size_t first = out.size();
    if (step.useRegex) {
        for (NormalizedText &p : piece.split(regexSpans(gpt2Regex(), piece), SplitBehavior::Isolated))
            out.push_back(std::move(p));
    } else if (!piece.empty()) {
        out.push_back(std::move(piece));
    }
    for (std::size_t i = first; i < out.size(); ++i) byteLevelMap(out[i]);
}

void metaspace(const PreTokenizerStep &step, NormalizedText piece, Pieces &out)
{
    const char32_t rep = step.replacement;
    const std::u32string repString(1, rep);
    piece.replace(charSpans(piece, [](char32_t cp) { return cp == U' '; }), repString);
    const bool startsWithRep = !piece.empty() && piece.chars.front().cp == rep;
    if ((step.prependScheme == PrependScheme::Always && !startsWithRep)
        || (step.prependScheme == PrependScheme::First && !startsWithRep && piece.origin == 0))
        piece.prepend(repString);
    if (!step.split) {
        if (!piece.empty()) out.push_back(std::move(piece));
        return;
    }
    for (NormalizedText &p : piece.split(charSpans(piece, [rep](char32_t cp) { return cp == rep; }),
                                         SplitBehavior::MergedWithNext))
        out.push_back(std::move(p));
}

bool isPunctuation(char32_t cp) { return isBertPunctuation(cp); } // ASCII punctuation or Unicode P*

// The Whitespace pre-tokenizer's \w+|[^\w\s]+ (Rust regex): maximal runs of word characters, or of characters that
// are neither word nor whitespace; whitespace is dropped.
Spans whitespaceSpans(const NormalizedText &text)
{
    Spans spans;
    const auto &c = text.chars;
    auto cls = [&](std::size_t i) { return isRustWord(c[i].cp) ? 1 : isWhitespace(c[i].cp) ? 0 : 2; };
    for (std::size_t i = 0; i < c.size();) {
        const int k = cls(i);
        std::size_t j = i + 1;
        while (j < c.size() && cls(j) == k) ++j;
        spans.push_back({i, j, k == 0});
        i = j;
    }
    if (spans.empty()) spans.push_back({0, 0, false});
    return spans;
}

void applyStep(const PreTokenizerStep &step, NormalizedText piece, Pieces &out)
{
    auto splitBy = [&](const Spans &spans, SplitBehavior behavior) {
        for (NormalizedText &p : piece.split(spans, behavior)) out.push_back(std::move(p));
    };
    switch (step.kind) {
    case PreTokenizerStep::Kind::Bert: {
        for (NormalizedText &word : piece.split(charSpans(piece, isWhitespace), SplitBehavior::Removed))
            for (NormalizedText &p : word.split(charSpans(word, isBertPunctuation), SplitBehavior::Isolated))
                out.push_back(std::move(p));
        return;
    }
    case PreTokenizerStep::Kind::ByteLevel: byteLevel(step, std::move(piece), out); return;
    case PreTokenizerStep::Kind::Metaspace: metaspace(step, std::move(piece), out); return;
    case PreTokenizerStep::Kind::Split: {
        Spans spans = regexSpans(*step.regex, piece);
        if (step.invert) invertSpans(spans);
        splitBy(spans, step.behavior);
        return;
    }
    case PreTokenizerStep::Kind::Digits:
        splitBy(charSpans(piece, isRustNumeric),
                step.individualDigits ? SplitBehavior::Isolated : SplitBehavior::Contiguous);
        return;
    case PreTokenizerStep::Kind::Punctuation: splitBy(charSpans(piece, isPunctuation), step.behavior); return;
    case PreTokenizerStep::Kind::Whitespace: splitBy(whitespaceSpans(piece), SplitBehavior::Removed); return;
    case PreTokenizerStep::Kind::WhitespaceSplit: splitBy(charSpans(piece, isWhitespace), SplitBehavior::Removed); return;
    case PreTokenizerStep::Kind::CharDelimiterSplit: {
        const char32_t d = step.replacement;
        splitBy(charSpans(piece, [d](char32_t cp) { return cp == d; }), SplitBehavior::Removed);
        return;
    }
    }
}

} // namespace

void byteLevelMap(NormalizedText &text)
{
    Changes changes;
    changes.reserve(text.chars.size() * 2);
    std::string utf8;
    for (const Char &c : text.chars) {
        utf8.clear();
        appendUtf8(c.cp, utf8);
        for (std::size_t k = 0; k < utf8.size(); ++k)
            changes.push_back({byteToUnicode(static_cast<std::uint8_t>(utf8[k])), k == 0 ? 0 : 1});
    }
    text.transform(changes);
}

char32_t byteToUnicode(std::uint8_t byte)
{
    return byteTable().toUnicode[byte];
}

std::optional<std::uint8_t> unicodeToByte(char32_t cp)
{
    const auto &m = byteTable().toByte;
    const auto it = m.find(cp);
    if (it == m.end()) return std::nullopt;
    return it->second;
}

const Regex &gpt2Regex()
{
    static const Regex re = *Regex::compile(R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)");
    return re;
}

void preTokenize(const std::vector<PreTokenizerStep> &steps, std::vector<NormalizedText> &pieces)
{
    for (const PreTokenizerStep &step : steps) {
        Pieces next;
        next.reserve(pieces.size());
        for (NormalizedText &piece : pieces) applyStep(step, std::move(piece), next);
        std::erase_if(next, [](const NormalizedText &p) { return p.empty(); });
        pieces = std::move(next);
    }
}

} // namespace attn::tokenizer
