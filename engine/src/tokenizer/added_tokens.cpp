// SPDX-License-Identifier: GPL-3.0-or-later
// Added tokens ([CLS], <|endoftext|>, <|im_start|>, ...) are found in the text before the model runs and are never
// split: the leftmost match wins, the longest at a position, matches do not overlap (Hugging Face's leftmost-longest
// Aho–Corasick). A byte trie walked from each start position gives the same matches in O(text × longest match)
// — 50 000 tokens cost no more per character than 5. single_word rejects a match touching a word character
// (Rust regex \w); lstrip/rstrip take the neighbouring whitespace into the token, offsets and string included.

#include "pipeline.h"

#include <algorithm>

namespace attn::tokenizer {

void ByteTrie::build(const std::vector<std::pair<std::string, std::int32_t>> &keys)
{
    nodes.assign(1, Node{});
    edges.clear();
    // Breadth first: the children of a node are made together, so its edges are contiguous (and sorted, the keys
    // being sorted).
    struct Pending {
        std::uint32_t node;
        std::size_t begin, end, depth;
    };
    std::vector<Pending> queue{{0, 0, keys.size(), 0}};
    for (std::size_t q = 0; q < queue.size(); ++q) {
        const Pending p = queue[q];
        std::size_t i = p.begin;
        if (i < p.end && keys[i].first.size() == p.depth) nodes[p.node].value = keys[i++].second;
        nodes[p.node].firstEdge = static_cast<std::uint32_t>(edges.size());
        while (i < p.end) {
            const auto byte = static_cast<std::uint8_t>(keys[i].first[p.depth]);
            std::size_t j = i;
            while (j < p.end && static_cast<std::uint8_t>(keys[j].first[p.depth]) == byte) ++j;
            const auto node = static_cast<std::uint32_t>(nodes.size());
            nodes.push_back(Node{});
            edges.emplace_back(byte, node);
            queue.push_back({node, i, j, p.depth + 1});
            i = j;
        }
        nodes[p.node].edgeCount = static_cast<std::uint32_t>(edges.size()) - nodes[p.node].firstEdge;
    }
}

std::int64_t ByteTrie::child(std::uint32_t node, std::uint8_t byte) const
{
    const Node &n = nodes[node];
    const auto *first = edges.data() + n.firstEdge, *last = first + n.edgeCount;
    const auto *e = std::lower_bound(first, last, byte, [](const auto &edge, std::uint8_t b) { return edge.first < b; });
    if (e == last || e->first != byte) return -1;
    return e->second;
}

void AddedTokenMatcher::build(const std::vector<const AddedToken *> &tokens)
{
    m_tokens.clear();
    std::vector<std::pair<std::string, std::int32_t>> keys;
    for (const AddedToken *t : tokens) {
        if (t->matchContent.empty()) continue;
        keys.emplace_back(t->matchContent, static_cast<std::int32_t>(m_tokens.size()));
        m_tokens.push_back(t);
    }
    // A repeated content keeps its last token.
    std::stable_sort(keys.begin(), keys.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<std::pair<std::string, std::int32_t>> unique;
    for (auto &k : keys) {
        if (!unique.empty() && unique.back().first == k.first) unique.back().second = k.second;
        else unique.push_back(std::move(k));
    }
    m_trie.build(unique);
}

std::vector<AddedTokenMatcher::Segment> AddedTokenMatcher::split(const NormalizedText &text) const
{
    std::vector<Segment> segments;
    const Text &chars = text.chars;
    if (m_tokens.empty() || chars.empty()) {
        if (!chars.empty()) segments.push_back({false, {}, text});
        return segments;
    }
    const std::string utf8 = text.utf8();
    std::vector<std::int64_t> charAt(utf8.size() + 1, -1); // character index at a byte boundary, -1 inside one
    for (std::size_t i = 0, b = 0; i < chars.size(); ++i) {
        charAt[b] = static_cast<std::int64_t>(i);
        b += utf8Length(chars[i].cp);
    }
    charAt[utf8.size()] = static_cast<std::int64_t>(chars.size());

    std::size_t previousEnd = 0; // characters
    auto pushText = [&](std::size_t from, std::size_t to) {
        if (to > from) segments.push_back({false, {}, text.slice(from, to)});
    };
    for (std::size_t b = 0; b < utf8.size();) {
        if (charAt[b] < 0) {
            ++b;
            continue;
        }
        // The longest key starting at byte b.
        std::int32_t found = -1;
        std::size_t foundEnd = 0;
        std::uint32_t node = 0;
        for (std::size_t k = b; k < utf8.size(); ++k) {
            const std::int64_t next = m_trie.child(node, static_cast<std::uint8_t>(utf8[k]));
            if (next < 0) break;
            node = static_cast<std::uint32_t>(next);
            if (m_trie.nodes[node].value >= 0) {
                found = m_trie.nodes[node].value;
                foundEnd = k + 1;
            }
        }
        if (found < 0 || charAt[foundEnd] < 0) {
            ++b;
            continue;
        }
        const AddedToken &t = *m_tokens[static_cast<std::size_t>(found)];
        std::size_t from = static_cast<std::size_t>(charAt[b]), to = static_cast<std::size_t>(charAt[foundEnd]);
        b = foundEnd; // the automaton goes on after the match, kept or not
        if (t.singleWord && ((from > 0 && isRustWord(chars[from - 1].cp)) || (to < chars.size() && isRustWord(chars[to].cp))))
            continue;
        if (t.lstrip)
            while (from > previousEnd && isWhitespace(chars[from - 1].cp)) --from;
        if (t.rstrip)
            while (to < chars.size() && isWhitespace(chars[to].cp)) ++to;
        from = std::max(from, previousEnd);
        pushText(previousEnd, from);
        const NormalizedText slice = text.slice(from, to);
        segments.push_back({true, Piece{t.id, slice.utf8(), slice.chars.front().begin, slice.chars.back().end}, {}});
        previousEnd = to;
        // rstrip may have taken characters past the automaton's position.
        for (std::size_t nb = b; nb < utf8.size() + 1; ++nb)
            if (charAt[nb] >= 0 && static_cast<std::size_t>(charAt[nb]) >= to) {
                b = std::max(b, nb);
                break;
            }
    }
    pushText(previousEnd, chars.size());
    return segments;
}

} // namespace attn::tokenizer
