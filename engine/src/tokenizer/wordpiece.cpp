// SPDX-License-Identifier: GPL-3.0-or-later
// WordPiece: greedy longest-match-first; pieces after the first carry the "##" prefix; a word with a position
// no piece matches, or longer than maxInputCharsPerWord characters, is one [UNK] over the whole word.

#include "pipeline.h"

namespace attn::tokenizer {

void WordPieceModel::tokenize(const NormalizedText &word, std::vector<Piece> &out) const
{
    const Text &chars = word.chars;
    if (chars.empty()) return;
    const Piece unknown{unkId, unkToken, chars.front().begin, chars.back().end};
    if (chars.size() > maxInputCharsPerWord) {
        out.push_back(unknown);
        return;
    }
    const std::string utf8 = word.utf8();
    std::vector<std::size_t> byteAt(chars.size() + 1, 0); // byte position of each character in utf8
    for (std::size_t i = 0; i < chars.size(); ++i) byteAt[i + 1] = byteAt[i] + utf8Length(chars[i].cp);

    const std::size_t first = out.size();
    std::string candidate;
    for (std::size_t start = 0; start < chars.size();) {
        bool found = false;
        for (std::size_t end = chars.size(); end > start; --end) {
            candidate.assign(start > 0 ? prefix : std::string());
            candidate.append(utf8, byteAt[start], byteAt[end] - byteAt[start]);
            const auto it = vocab.find(candidate);
            if (it != vocab.end()) {
                out.push_back({it->second, candidate, chars[start].begin, chars[end - 1].end});
                start = end;
                found = true;
                break;
            }
        }
        if (!found) {
            out.resize(first);
            out.push_back(unknown);
            return;
        }
    }
}

} // namespace attn::tokenizer
