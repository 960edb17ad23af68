// SPDX-License-Identifier: GPL-3.0-or-later
#include "precompiled.h"

namespace attn::tokenizer {

namespace {

Result<std::string> decodeBase64(std::string_view in)
{
    auto value = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+') return 62;
        if (c == '/') return 63;
        return -1;
    };
    if (in.size() % 4 != 0) return Status::invalid("not base64: the length is not a multiple of 4");
    std::string out;
    out.reserve(in.size() / 4 * 3);
    for (std::size_t i = 0; i < in.size(); i += 4) {
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = in[i + static_cast<std::size_t>(k)];
            if (c == '=' && i + 4 == in.size() && k >= 2) {
                v[k] = 0;
                ++pad;
                continue;
            }
            if (pad > 0 || (v[k] = value(c)) < 0)
                return Status::invalid("not base64: bad character at " + std::to_string(i + static_cast<std::size_t>(k)));
        }
        const std::uint32_t n = (static_cast<std::uint32_t>(v[0]) << 18) | (static_cast<std::uint32_t>(v[1]) << 12)
                                | (static_cast<std::uint32_t>(v[2]) << 6) | static_cast<std::uint32_t>(v[3]);
        out.push_back(static_cast<char>(n >> 16));
        if (pad < 2) out.push_back(static_cast<char>((n >> 8) & 0xFF));
        if (pad < 1) out.push_back(static_cast<char>(n & 0xFF));
    }
    return out;
}

// darts-clone unit accessors.
bool hasLeaf(std::uint32_t u) { return (u >> 8) & 1; }
std::uint32_t value(std::uint32_t u) { return u & 0x7FFFFFFFu; }
std::uint32_t label(std::uint32_t u) { return u & 0x800000FFu; }
std::uint32_t offset(std::uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

// tokenizers' replace(): the new characters replace the old ones one for one; extra new ones are insertions at the
// end, missing ones are removals charged to the last character written so far (even one of an earlier cluster).
void replaceChanges(Changes &changes, std::size_t oldCount, std::u32string_view fresh)
{
    for (char32_t cp : fresh) changes.push_back({cp, 0});
    const auto diff = static_cast<long>(fresh.size()) - static_cast<long>(oldCount);
    if (diff > 0) {
        for (long k = 0; k < diff; ++k) changes[changes.size() - 1 - static_cast<std::size_t>(k)].change = 1;
    } else if (diff < 0 && !changes.empty()) {
        changes.back().change += static_cast<int>(diff);
    }
}

} // namespace

Result<Precompiled> Precompiled::fromBase64(std::string_view base64)
{
    auto bytes = decodeBase64(base64);
    if (!bytes) return bytes.status();
    return fromBytes(*bytes);
}

Result<Precompiled> Precompiled::fromBytes(std::string_view bytes)
{
    auto u32 = [&](std::size_t at) {
        return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at]))
               | static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 1])) << 8
               | static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 2])) << 16
               | static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 3])) << 24;
    };
    if (bytes.size() < 4) return Status::invalid("the charsmap is shorter than its 4-byte trie size");
    const std::uint32_t trieSize = u32(0);
    if (trieSize % 4 != 0 || trieSize / 4 == 0 || 4 + static_cast<std::size_t>(trieSize) > bytes.size())
        return Status::invalid("the trie size " + std::to_string(trieSize) + " does not fit the " +
                               std::to_string(bytes.size()) + "-byte charsmap");
    Precompiled p;
    p.m_units.resize(trieSize / 4);
    for (std::size_t i = 0; i < p.m_units.size(); ++i) p.m_units[i] = u32(4 + 4 * i);
    p.m_normalized = std::string(bytes.substr(4 + trieSize));
    Text check;
    if (const std::size_t bad = decodeUtf8(p.m_normalized, check); bad != std::string_view::npos)
        return Status::invalid("the replacement strings are not valid UTF-8 (byte " + std::to_string(bad) + ")");
    return p;
}

std::optional<std::string_view> Precompiled::transform(std::string_view key) const
{
    // darts-clone common-prefix search; the first result is the shortest match. An index outside the array (a
    // broken charsmap) ends the search instead of reading past it.
    const std::size_t n = m_units.size();
    std::size_t pos = offset(m_units[0]);
    for (char ch : key) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == 0) break;
        pos ^= c;
        if (pos >= n) return std::nullopt;
        const std::uint32_t unit = m_units[pos];
        if (label(unit) != c) return std::nullopt;
        pos ^= offset(unit);
        if (pos >= n) return std::nullopt;
        if (hasLeaf(unit)) {
            const std::size_t from = value(m_units[pos]);
            if (from > m_normalized.size()) return std::nullopt;
            const std::size_t nul = m_normalized.find('\0', from);
            return std::string_view(m_normalized).substr(from, (nul == std::string::npos ? m_normalized.size() : nul) - from);
        }
    }
    return std::nullopt;
}

void Precompiled::normalize(NormalizedText &text) const
{
    const std::u32string cps = text.codePoints();
    const std::vector<std::size_t> bounds = graphemeBoundaries(cps);
    Changes changes;
    changes.reserve(cps.size());
    bool modified = false;
    std::string key;
    for (std::size_t g = 0; g + 1 < bounds.size(); ++g) {
        const std::size_t from = bounds[g], to = bounds[g + 1];
        key.clear();
        for (std::size_t i = from; i < to; ++i) appendUtf8(cps[i], key);
        if (key.size() < 6) {
            if (const auto norm = transform(key)) {
                modified = true;
                replaceChanges(changes, to - from, toCodePoints(*norm));
                continue;
            }
        }
        for (std::size_t i = from; i < to; ++i) {
            key.clear();
            appendUtf8(cps[i], key);
            if (const auto norm = transform(key)) {
                modified = true;
                replaceChanges(changes, 1, toCodePoints(*norm));
            } else {
                changes.push_back({cps[i], 0});
            }
        }
    }
    if (modified) text.transform(changes);
}

} // namespace attn::tokenizer
