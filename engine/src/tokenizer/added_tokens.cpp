// SPDX-License-Identifier: GPL-3.0-or-later
// Added tokens ([CLS], [MASK], <|endoftext|>, ...) are found in the text before the model runs and are never
// split: the leftmost match wins, the longest at a position, matches do not overlap (Hugging Face's
// leftmost-longest Aho–Corasick). lstrip/rstrip swallow the neighbouring whitespace (it is not tokenized and
// not part of the token's offsets); single_word rejects a match touching a word character.

#include "pipeline.h"

#include <algorithm>

namespace attn::tokenizer {

namespace {
bool isWordChar(char32_t cp)
{
    return cp == U'_' || isLetter(cp) || isNumber(cp);
}
} // namespace

std::vector<Segment> splitAddedTokens(const Text &text, const std::vector<const AddedToken *> &tokens)
{
    std::vector<Segment> segments;
    if (tokens.empty() || text.empty()) {
        if (!text.empty()) segments.push_back({false, {}, 0, text.size()});
        return segments;
    }
    std::vector<const AddedToken *> byLength(tokens);
    std::stable_sort(byLength.begin(), byLength.end(), [](const AddedToken *a, const AddedToken *b) {
        return a->matchContent.size() > b->matchContent.size();
    });
    std::string utf8;
    std::vector<std::size_t> byteAt;   // byte position of each character
    std::vector<std::int64_t> charAt;  // character index at a byte position, -1 inside a character
    for (const Char &c : text) {
        byteAt.push_back(utf8.size());
        appendUtf8(c.cp, utf8);
    }
    byteAt.push_back(utf8.size());
    charAt.assign(utf8.size() + 1, -1);
    for (std::size_t i = 0; i < byteAt.size(); ++i) charAt[byteAt[i]] = static_cast<std::int64_t>(i);

    struct Match {
        std::size_t from, to;
        const AddedToken *token;
    };
    std::vector<Match> matches;
    for (std::size_t i = 0; i < text.size();) {
        const Match *found = nullptr;
        Match m{};
        for (const AddedToken *t : byLength) {
            const std::string &c = t->matchContent;
            if (c.empty() || utf8.compare(byteAt[i], c.size(), c) != 0) continue;
            const std::size_t endByte = byteAt[i] + c.size();
            if (charAt[endByte] < 0) continue;
            m = {i, static_cast<std::size_t>(charAt[endByte]), t};
            found = &m;
            break;
        }
        if (!found) {
            ++i;
            continue;
        }
        matches.push_back(m);
        i = m.to;
    }

    std::size_t previousEnd = 0;
    for (Match m : matches) {
        const AddedToken &t = *m.token;
        if (t.singleWord && ((m.from > 0 && isWordChar(text[m.from - 1].cp))
                             || (m.to < text.size() && isWordChar(text[m.to].cp))))
            continue;
        const Piece piece{t.id, t.content, text[m.from].begin, text[m.to - 1].end};
        if (t.lstrip)
            while (m.from > previousEnd && isWhitespace(text[m.from - 1].cp)) --m.from;
        if (t.rstrip)
            while (m.to < text.size() && isWhitespace(text[m.to].cp)) ++m.to;
        if (m.from > previousEnd) segments.push_back({false, {}, previousEnd, m.from});
        segments.push_back({true, piece, m.from, m.to});
        previousEnd = m.to;
    }
    if (previousEnd < text.size()) segments.push_back({false, {}, previousEnd, text.size()});
    return segments;
}

} // namespace attn::tokenizer
