// SPDX-License-Identifier: GPL-3.0-or-later
// Byte-level BPE. A word starts as one symbol per character; the adjacent pair with the lowest merge rank
// (leftmost among equals) merges first, until no pair has a merge — the order Hugging Face's heap uses.

#include "pipeline.h"

#include <queue>

namespace attn::tokenizer {

namespace {
constexpr std::size_t kCacheCapacity = 10000;
}

Status BpeModel::addMerge(const std::string &a, const std::string &b, const std::string &where)
{
    const auto ia = vocab.find(a), ib = vocab.find(b), iab = vocab.find(a + b);
    if (ia == vocab.end() || ib == vocab.end())
        return {ErrorCode::FormatError,
                where + ": merge token '" + (ia == vocab.end() ? a : b) + "' is not in the vocabulary"};
    if (iab == vocab.end())
        return {ErrorCode::FormatError, where + ": merged token '" + a + b + "' is not in the vocabulary"};
    // The rank is the line's position; a repeated pair takes its later rank, as in Hugging Face.
    m_merges.insert_or_assign(pairKey(ia->second, ib->second), Merge{m_mergeCount++, iab->second});
    return Status::ok();
}

BpeModel::Symbols BpeModel::merge(const Text &word) const
{
    // Initial symbols; characters missing from the vocabulary become [UNK] (fused when asked) or are dropped.
    struct Symbol {
        std::int32_t id;
        std::int32_t from, to; // character range
        std::int32_t prev, next;
        bool alive;
    };
    std::vector<Symbol> sym;
    sym.reserve(word.size());
    std::string one;
    for (std::size_t i = 0; i < word.size(); ++i) {
        one.clear();
        appendUtf8(word[i].cp, one);
        const auto it = vocab.find(one);
        std::int32_t id = -1;
        if (it != vocab.end())
            id = it->second;
        else if (unkId)
            id = *unkId;
        else
            continue;
        const auto pos = static_cast<std::int32_t>(i);
        if (it == vocab.end() && fuseUnk && !sym.empty() && sym.back().id == id && sym.back().to == pos) {
            sym.back().to = pos + 1;
            continue;
        }
        sym.push_back({id, pos, pos + 1, 0, 0, true});
    }
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
    for (const Symbol &s : sym)
        if (s.alive) out.push_back({s.id, s.from, s.to});
    return out;
}

void BpeModel::tokenize(const Text &word, std::vector<Piece> &out) const
{
    if (word.empty()) return;
    const std::string key = toUtf8(word, 0, word.size());
    auto emit = [&](const Symbols &symbols) {
        for (const auto &[id, from, to] : symbols)
            out.push_back({id, idToToken[static_cast<std::size_t>(id)], word[static_cast<std::size_t>(from)].begin,
                           word[static_cast<std::size_t>(to - 1)].end});
    };
    if (ignoreMerges) {
        const auto it = vocab.find(key);
        if (it != vocab.end()) {
            emit({{it->second, 0, static_cast<std::int32_t>(word.size())}});
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
    std::lock_guard lock(m_cacheMutex);
    if (m_cache.size() < kCacheCapacity) m_cache.emplace(key, std::move(symbols));
}

} // namespace attn::tokenizer

