// SPDX-License-Identifier: GPL-3.0-or-later
// Pre-tokenizers: BERT's whitespace/punctuation split and GPT-2's byte-level split.

#include "pipeline.h"

#include <array>

namespace attn::tokenizer {

namespace {

// BertPreTokenizer: whitespace separates and is dropped; each punctuation character is a word of its own.
std::vector<Text> bertSplit(const Text &text)
{
    std::vector<Text> words;
    Text current;
    auto flush = [&] {
        if (!current.empty()) words.push_back(std::move(current));
        current.clear();
    };
    for (const Char &c : text) {
        if (isWhitespace(c.cp)) {
            flush();
        } else if (isBertPunctuation(c.cp)) {
            flush();
            words.push_back({c});
        } else {
            current.push_back(c);
        }
    }
    flush();
    return words;
}

struct ByteTable {
    std::array<char32_t, 256> toUnicode{};
    ByteTable()
    {
        // Printable bytes stand for themselves; the other 68 take U+0100.. in byte order (space → Ġ U+0120).
        char32_t next = 0x100;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            toUnicode[static_cast<std::size_t>(b)] = printable ? static_cast<char32_t>(b) : next++;
        }
    }
};
const ByteTable &byteTable()
{
    static const ByteTable table;
    return table;
}

// ByteLevel: optional prefix space, the GPT-2 split, then every UTF-8 byte as its stand-in character. The bytes
// of one character all keep that character's byte range.
std::vector<Text> byteLevelSplit(const PreTokenizerStep &step, Text text)
{
    if (step.addPrefixSpace && !text.empty() && text.front().cp != U' ')
        text.insert(text.begin(), Char{U' ', text.front().begin, text.front().end});
    std::vector<std::pair<std::size_t, std::size_t>> ranges;
    if (step.useRegex)
        ranges = gpt2Split(text);
    else if (!text.empty())
        ranges.push_back({0, text.size()});
    std::vector<Text> words;
    words.reserve(ranges.size());
    std::string utf8;
    for (const auto &[from, to] : ranges) {
        Text word;
        for (std::size_t i = from; i < to; ++i) {
            utf8.clear();
            appendUtf8(text[i].cp, utf8);
            for (char b : utf8)
                word.push_back({byteToUnicode(static_cast<std::uint8_t>(b)), text[i].begin, text[i].end});
        }
        words.push_back(std::move(word));
    }
    return words;
}

bool isOtherClass(char32_t cp) // [^\s\p{L}\p{N}]
{
    return !isWhitespace(cp) && !isLetter(cp) && !isNumber(cp);
}

} // namespace

char32_t byteToUnicode(std::uint8_t byte)
{
    return byteTable().toUnicode[byte];
}

std::optional<std::uint8_t> unicodeToByte(char32_t cp)
{
    static const std::unordered_map<char32_t, std::uint8_t> reverse = [] {
        std::unordered_map<char32_t, std::uint8_t> m;
        for (int b = 0; b < 256; ++b) m[byteTable().toUnicode[static_cast<std::size_t>(b)]] = static_cast<std::uint8_t>(b);
        return m;
    }();
    const auto it = reverse.find(cp);
    if (it == reverse.end()) return std::nullopt;
    return it->second;
}

// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// The alternatives are tried in this order at each position, as the regex engine does; every character falls in
// one of the classes, so the pieces cover the text.
std::vector<std::pair<std::size_t, std::size_t>> gpt2Split(const Text &text)
{
    std::vector<std::pair<std::size_t, std::size_t>> pieces;
    const std::size_t n = text.size();
    auto at = [&](std::size_t i) -> char32_t { return i < n ? text[i].cp : 0; };
    auto runOf = [&](std::size_t i, bool (*pred)(char32_t)) {
        while (i < n && pred(text[i].cp)) ++i;
        return i;
    };
    std::size_t i = 0;
    while (i < n) {
        const char32_t c = at(i);
        if (c == U'\'') {
            const char32_t c1 = at(i + 1), c2 = at(i + 2);
            std::size_t len = 0;
            if (c1 == U's' || c1 == U't' || c1 == U'm' || c1 == U'd')
                len = 2;
            else if ((c1 == U'r' && c2 == U'e') || (c1 == U'v' && c2 == U'e') || (c1 == U'l' && c2 == U'l'))
                len = 3;
            if (len != 0) {
                pieces.push_back({i, i + len});
                i += len;
                continue;
            }
        }
        // " ?X+" for the three classes: the optional space is taken when the class follows it.
        const std::size_t s = (c == U' ' && i + 1 < n && !isWhitespace(at(i + 1))) ? i + 1 : i;
        const char32_t head = at(s);
        if (!isWhitespace(head)) {
            bool (*pred)(char32_t) = isLetter(head) ? isLetter : isNumber(head) ? isNumber : isOtherClass;
            const std::size_t end = runOf(s, pred);
            pieces.push_back({i, end});
            i = end;
            continue;
        }
        // Whitespace: \s+(?!\S) takes the run but leaves its last character when a non-space follows and the run
        // is longer than one; otherwise \s+ takes what is left.
        const std::size_t end = runOf(i, isWhitespace);
        const std::size_t take = (end < n && end - i > 1) ? end - 1 : end;
        pieces.push_back({i, take});
        i = take;
    }
    return pieces;
}

std::vector<Text> preTokenize(const std::vector<PreTokenizerStep> &steps, Text text)
{
    std::vector<Text> words;
    if (!text.empty()) words.push_back(std::move(text));
    for (const PreTokenizerStep &step : steps) {
        std::vector<Text> next;
        for (Text &word : words) {
            std::vector<Text> parts = step.kind == PreTokenizerStep::Kind::Bert ? bertSplit(word)
                                                                                : byteLevelSplit(step, std::move(word));
            for (Text &p : parts) next.push_back(std::move(p));
        }
        words = std::move(next);
    }
    return words;
}

} // namespace attn::tokenizer
