// SPDX-License-Identifier: GPL-3.0-or-later
// BPE. A word starts as one symbol per character (with the continuing-subword prefix on all but the first and the
// end-of-word suffix on the last); a character missing from the vocabulary becomes its <0xXX> byte tokens when
// byte_fallback has them all, else [UNK] (consecutive ones fused when fuse_unk). Then the adjacent pair with the
// lowest merge rank (leftmost among equals) merges first, until no pair has a merge — the order of Hugging Face's
// heap.

#include "pipeline.h"

#include <queue>

namespace attn::tokenizer {

namespace {
constexpr std::size_t kCacheCapacity = 10000;
constexpr std::size_t kCacheMaxBytes = 256; // longer words are not cached (as in Hugging Face)

std::string byteToken(std::uint8_t b)
{
    static const char *hex = "0123456789ABCDEF";
    return std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">";
}
} // namespace

Status finalizeBpe(BpeModel &bpe)
{
    for (int b = 0; b < 256; ++b) {
        const auto it = bpe.vocab.find(byteToken(static_cast<std::uint8_t>(b)));
        bpe.m_byteIds[static_cast<std::size_t>(b)] = it == bpe.vocab.end() ? -1 : it->second;
    }
    return Status::ok();
}

Status BpeModel::addMerge(const std::string &a, const std::string &b, const std::string &where)
{
    const auto ia = vocab.find(a), ib = vocab.find(b);
    if (ia == vocab.end() || ib == vocab.end())
        return {ErrorCode::FormatError,
                where + ": merge token '" + (ia == vocab.end() ? a : b) + "' is not in the vocabulary"};
    // Hugging Face drops the prefix's length from the front of b, whatever b starts with.
    if (b.size() < prefix.size())
        return {ErrorCode::FormatError, where + ": merge token '" + b + "' is shorter than the continuing_subword_prefix"};
    const std::string merged = a + b.substr(prefix.size());
    Text check;
    if (decodeUtf8(merged, check) != std::string_view::npos)
        return {ErrorCode::FormatError, where + ": merging '" + a + "' and '" + b + "' splits a character"};
    const auto iab = vocab.find(merged);
    if (iab == vocab.end())
        return {ErrorCode::FormatError, where + ": merged token '" + merged + "' is not in the vocabulary"};
    // The rank is the line's position; a repeated pair takes its later rank, as in Hugging Face.
    m_merges.insert_or_assign(pairKey(ia->second, ib->second), Merge{m_mergeCount++, iab->second});
    return Status::ok();
}

BpeModel::Symbols BpeModel::merge(const NormalizedText &word) const
{
    struct Symbol {
        std::int32_t id;
        std::int32_t from, to; // character range
        std::int32_t prev, next;
        bool alive;
    };
    std::vector<Symbol> sym;
    sym.reserve(word.chars.size());
    std::string s;
    std::optional<Symbol> unk;
    const auto n = static_cast<std::int32_t>(word.chars.size());
    for (std::int32_t i = 0; i < n; ++i) {
        s.clear();
        if (i > 0) s += prefix;
        const std::size_t charStart = s.size();
        appendUtf8(word.chars[static_cast<std::size_t>(i)].cp, s);
        const std::size_t charEnd = s.size();
        if (i + 1 == n) s += suffix;
        const auto it = vocab.find(s);
        if (it != vocab.end()) {
            if (unk) sym.push_back(*unk), unk.reset();
            sym.push_back({it->second, i, i + 1, 0, 0, true});
            continue;
        }
        if (byteFallback) {
            // Affixes are refused with byte_fallback at load, so the bytes are the character's own.
            bool all = true;
            for (std::size_t k = charStart; k < charEnd && all; ++k) all = m_byteIds[static_cast<unsigned char>(s[k])] >= 0;
            if (all) {
                if (unk) sym.push_back(*unk), unk.reset();
                for (std::size_t k = charStart; k < charEnd; ++k)
                    sym.push_back({m_byteIds[static_cast<unsigned char>(s[k])], i, i + 1, 0, 0, true});
                continue;
            }
        }
        if (!unkId) continue; // no [UNK]: the character is dropped, as in Hugging Face
        if (unk && fuseUnk) {
            unk->to = i + 1;
        } else {
            if (unk) sym.push_back(*unk);
            unk = Symbol{*unkId, i, i + 1, 0, 0, true};
        }
    }
    if (unk) sym.push_back(*unk);
    const auto count = static_cast<std::int32_t>(sym.size());
    for (std::int32_t k = 0; k < count; ++k) {
        sym[static_cast<std::size_t>(k)].prev = k - 1;
        sym[static_cast<std::size_t>(k)].next = k + 1 < count ? k + 1 : -1;
    }

    struct Candidate {
        std::int32_t rank, pos, newId;
        bool operator>(const Candidate &o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
    auto consider = [&](std::int32_t pos) {
        const Symbol &a = sym[static_cast<std::size_t>(pos)];
        if (a.next < 0) return;
        const auto it = m_merges.find(pairKey(a.id, sym[static_cast<std::size_t>(a.next)].id));
        if (it != m_merges.end()) queue.push({it->second.rank, pos, it->second.newId});
    };
    for (std::int32_t k = 0; k + 1 < count; ++k) consider(k);

    while (!queue.empty()) {
        const Candidate top = queue.top();
        queue.pop();
        Symbol &a = sym[static_cast<std::size_t>(top.pos)];
        if (!a.alive || a.next < 0) continue;
        // Stale entry: one of the two symbols changed since it was queued.
        const auto it = m_merges.find(pairKey(a.id, sym[static_cast<std::size_t>(a.next)].id));
        if (it == m_merges.end() || it->second.newId != top.newId) continue;
        Symbol &b = sym[static_cast<std::size_t>(a.next)];
        a.id = top.newId;
        a.to = b.to;
        a.next = b.next;
        b.alive = false;
        if (a.next >= 0) sym[static_cast<std::size_t>(a.next)].prev = top.pos;
        if (a.prev >= 0) consider(a.prev);
        consider(top.pos);
    }

    Symbols out;
    for (const Symbol &x : sym)
        if (x.alive) out.push_back({x.id, x.from, x.to});
    return out;
}

void BpeModel::tokenize(const NormalizedText &word, std::vector<Piece> &out) const
{
    if (word.empty()) return;
    const std::string key = word.utf8();
    auto emit = [&](const Symbols &symbols) {
        for (const auto &[id, from, to] : symbols)
            out.push_back({id, idToToken[static_cast<std::size_t>(id)], word.chars[static_cast<std::size_t>(from)].begin,
                           word.chars[static_cast<std::size_t>(to - 1)].end});
    };
    if (ignoreMerges) {
        const auto it = vocab.find(key);
        if (it != vocab.end()) {
            out.push_back({it->second, key, word.chars.front().begin, word.chars.back().end});
            return;
        }
    }
    {
        std::lock_guard lock(m_cacheMutex);
        const auto it = m_cache.find(key);
        if (it != m_cache.end()) {
            emit(it->second);
            return;
        }
    }
    Symbols symbols = merge(word);
    emit(symbols);
    if (key.size() >= kCacheMaxBytes) return;
    std::lock_guard lock(m_cacheMutex);
    if (m_cache.size() < kCacheCapacity) m_cache.emplace(key, std::move(symbols));
}

} // namespace attn::tokenizer
