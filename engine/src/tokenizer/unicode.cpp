// SPDX-License-Identifier: GPL-3.0-or-later
#include "unicode.h"

#include <algorithm>

namespace attn::tokenizer {

namespace {

// Length and valid second-byte range of a UTF-8 sequence by its lead byte (Unicode Table 3-7); 0 = invalid lead.
struct Lead {
    int length;
    unsigned char lo, hi;
};

Lead leadInfo(unsigned char b)
{
    if (b < 0x80) return {1, 0, 0};
    if (b >= 0xC2 && b <= 0xDF) return {2, 0x80, 0xBF};
    if (b == 0xE0) return {3, 0xA0, 0xBF};
    if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) return {3, 0x80, 0xBF};
    if (b == 0xED) return {3, 0x80, 0x9F};
    if (b == 0xF0) return {4, 0x90, 0xBF};
    if (b >= 0xF1 && b <= 0xF3) return {4, 0x80, 0xBF};
    if (b == 0xF4) return {4, 0x80, 0x8F};
    return {0, 0, 0};
}

// Reads one sequence at i. Returns its length when valid (cp set); otherwise -(bytes of the maximal invalid
// subpart), at least 1.
int readUtf8(std::string_view s, std::size_t i, char32_t &cp)
{
    const auto b0 = static_cast<unsigned char>(s[i]);
    const Lead lead = leadInfo(b0);
    if (lead.length == 0) return -1;
    if (lead.length == 1) {
        cp = b0;
        return 1;
    }
    char32_t value = b0 & (0xFF >> (lead.length + 1));
    for (int k = 1; k < lead.length; ++k) {
        if (i + k >= s.size()) return -k;
        const auto b = static_cast<unsigned char>(s[i + k]);
        const unsigned char lo = k == 1 ? lead.lo : 0x80, hi = k == 1 ? lead.hi : 0xBF;
        if (b < lo || b > hi) return -k;
        value = (value << 6) | (b & 0x3F);
    }
    cp = value;
    return lead.length;
}

} // namespace

std::size_t decodeUtf8(std::string_view bytes, Text &out, std::uint32_t offset)
{
    out.reserve(out.size() + bytes.size());
    for (std::size_t i = 0; i < bytes.size();) {
        char32_t cp = 0;
        const int n = readUtf8(bytes, i, cp);
        if (n < 0) return i;
        out.push_back({cp, static_cast<std::uint32_t>(offset + i), static_cast<std::uint32_t>(offset + i + n)});
        i += static_cast<std::size_t>(n);
    }
    return std::string_view::npos;
}

void appendUtf8(char32_t cp, std::string &out)
{
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

std::string toUtf8(const Text &text, std::size_t from, std::size_t to)
{
    std::string out;
    out.reserve(to - from);
    for (std::size_t i = from; i < to; ++i) appendUtf8(text[i].cp, out);
    return out;
}

std::u32string toCodePoints(std::string_view utf8)
{
    std::u32string out;
    out.reserve(utf8.size());
    for (std::size_t i = 0; i < utf8.size();) {
        char32_t cp = 0;
        const int n = readUtf8(utf8, i, cp);
        if (n < 0) break;
        out.push_back(cp);
        i += static_cast<std::size_t>(n);
    }
    return out;
}

std::string utf8Lossy(std::string_view bytes)
{
    std::string out;
    out.reserve(bytes.size());
    for (std::size_t i = 0; i < bytes.size();) {
        char32_t cp = 0;
        const int n = readUtf8(bytes, i, cp);
        if (n > 0) {
            out.append(bytes.substr(i, static_cast<std::size_t>(n)));
            i += static_cast<std::size_t>(n);
        } else {
            out.append("\xEF\xBF\xBD");
            i += static_cast<std::size_t>(-n);
        }
    }
    return out;
}

std::uint8_t charFlags(char32_t cp)
{
    const auto *end = ucd::kFlagRuns + ucd::kFlagRunCount;
    const auto *it = std::upper_bound(ucd::kFlagRuns, end, cp,
                                      [](char32_t v, const ucd::FlagRun &r) { return v < r.first; });
    return it == ucd::kFlagRuns ? 0 : (it - 1)->flags;
}

bool isWhitespace(char32_t cp)
{
    return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680
           || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F
           || cp == 0x3000;
}

bool isBertControl(char32_t cp)
{
    if (cp == '\t' || cp == '\n' || cp == '\r') return false;
    return charFlags(cp) & ucd::BertControl;
}

bool isBertPunctuation(char32_t cp)
{
    if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126))
        return true;
    return charFlags(cp) & ucd::BertPunctuation;
}

// Google's BERT lists 2B820–2CEAF; Hugging Face tokenizers has 2B920–2CEAF, so U+2B820..2B91F stay unpadded
// there. We follow Hugging Face: the ids must match the models' reference implementation.
bool isChineseChar(char32_t cp)
{
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF)
           || (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F)
           || (cp >= 0x2B920 && cp <= 0x2CEAF) || (cp >= 0xF900 && cp <= 0xFAFF)
           || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

std::uint8_t combiningClass(char32_t cp)
{
    if (cp < 0x300) return 0;
    const auto *end = ucd::kCombiningRanges + ucd::kCombiningRangeCount;
    const auto *it = std::lower_bound(ucd::kCombiningRanges, end, cp,
                                      [](const ucd::CombiningRange &r, char32_t v) { return r.last < v; });
    return (it != end && it->first <= cp) ? it->ccc : 0;
}

void appendLowerChanges(char32_t cp, Changes &out)
{
    if (cp == 0x130) { // İ: i + COMBINING DOT ABOVE
        out.push_back({U'i', 0});
        out.push_back({0x307, 1});
        return;
    }
    const auto *end = ucd::kLowerRuns + ucd::kLowerRunCount;
    const auto *it = std::upper_bound(ucd::kLowerRuns, end, cp,
                                      [](char32_t v, const ucd::LowerRun &r) { return v < r.first; });
    if (it != ucd::kLowerRuns) {
        const ucd::LowerRun &r = *(it - 1);
        const char32_t d = cp - r.first;
        if (d % r.stride == 0 && d / r.stride < r.count) {
            out.push_back({static_cast<char32_t>(static_cast<std::int64_t>(cp) + r.delta), 0});
            return;
        }
    }
    out.push_back({cp, 0});
}

namespace {
// Runs alternate between "not in the set" (before the first start) and "in the set".
bool inRuns(const char32_t *starts, std::size_t count, char32_t cp)
{
    const auto *it = std::upper_bound(starts, starts + count, cp);
    return (it - starts) % 2 == 1;
}
} // namespace

bool isRustWord(char32_t cp)
{
    if (cp < 0x80) return (cp >= '0' && cp <= '9') || (cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z') || cp == '_';
    return inRuns(ucd::kWordRunStarts, ucd::kWordRunStartCount, cp);
}

bool isRustNumeric(char32_t cp)
{
    if (cp < 0x80) return cp >= '0' && cp <= '9';
    return inRuns(ucd::kNumericRunStarts, ucd::kNumericRunStartCount, cp);
}

} // namespace attn::tokenizer
