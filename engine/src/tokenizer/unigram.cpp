// SPDX-License-Identifier: GPL-3.0-or-later
// Unigram (SentencePiece's model; Hugging Face's encode_optimized): Viterbi over byte positions. From each
// character start, every piece in the trie that starts there (shortest first) offers best[start] + score to the
// position it ends at, which takes it only if unset or strictly better — so ties keep the earlier, shorter
// candidate. A character where no one-character piece starts gets an [UNK] edge scored min(scores) − 10.
// Backtracking fuses consecutive [UNK]s; an unknown piece becomes its <0xXX> byte tokens when byte_fallback has
// them all. An [UNK] token's string is the text it covers, as in Hugging Face.

#include "pipeline.h"

#include <algorithm>
#include <map>

namespace attn::tokenizer {

namespace {
constexpr double kUnkPenalty = 10.0;
}

Status UnigramModel::build(const std::string &where)
{
    if (pieces.empty()) return {ErrorCode::FormatError, where + ".vocab: empty"};
    if (unkId && static_cast<std::size_t>(*unkId) >= pieces.size())
        return {ErrorCode::FormatError, where + ".unk_id: " + std::to_string(*unkId) + " is not an index of model.vocab"};
    minScore = *std::min_element(scores.begin(), scores.end());
    vocab.clear();
    for (std::size_t i = 0; i < pieces.size(); ++i) vocab.insert_or_assign(pieces[i], static_cast<std::int32_t>(i));
    std::map<std::string, std::int32_t> sorted(vocab.begin(), vocab.end());
    trie.build({sorted.begin(), sorted.end()});
    for (int b = 0; b < 256; ++b) {
        static const char *hex = "0123456789ABCDEF";
        const std::string t = std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">";
        const auto it = vocab.find(t);
        byteIds[static_cast<std::size_t>(b)] = it == vocab.end() ? -1 : it->second;
    }
    return Status::ok();
}

Status UnigramModel::tokenize(const NormalizedText &word, std::vector<Piece> &out) const
{
    if (word.empty()) return Status::ok();
    const std::string s = word.utf8();
    const std::size_t size = s.size();
    // Byte position -> character index (for offsets).
    std::vector<std::uint32_t> charAt(size + 1, 0);
    for (std::size_t i = 0, b = 0; i < word.chars.size(); ++i) {
        const std::size_t len = utf8Length(word.chars[i].cp);
        for (std::size_t k = 0; k < len; ++k) charAt[b + k] = static_cast<std::uint32_t>(i);
        b += len;
    }
    charAt[size] = static_cast<std::uint32_t>(word.chars.size());

    struct Best {
        std::int32_t id = -1;
        double score = 0;
        std::optional<std::size_t> start;
    };
    std::vector<Best> best(size + 1);
    const double unkScore = minScore - kUnkPenalty;
    for (std::size_t start = 0; start < size;) {
        const double here = best[start].score;
        const std::size_t mblen = utf8Length(word.chars[charAt[start]].cp);
        bool singleChar = false;
        std::uint32_t node = 0;
        for (std::size_t pos = start; pos < size; ++pos) {
            const std::int64_t next = trie.child(node, static_cast<std::uint8_t>(s[pos]));
            if (next < 0) break;
            node = static_cast<std::uint32_t>(next);
            const std::int32_t id = trie.nodes[node].value;
            if (id < 0) continue;
            const std::size_t end = pos + 1;
            const double candidate = here + scores[static_cast<std::size_t>(id)];
            Best &target = best[end];
            if (!target.start || candidate > target.score) target = {id, candidate, start};
            if (end - start == mblen) singleChar = true;
        }
        if (!singleChar) {
            if (!unkId)
                return Status::invalid("tokenizer: the Unigram model has no unk_id for the character at byte " +
                                       std::to_string(word.chars[charAt[start]].begin) + " of the text");
            Best &target = best[start + mblen];
            const double candidate = here + unkScore;
            if (!target.start || candidate > target.score) target = {*unkId, candidate, start};
        }
        start += mblen;
    }

    // Backtrack into (id, byte start, byte end), fusing [UNK]s.
    std::vector<std::array<std::size_t, 3>> path;
    for (std::size_t end = size; end > 0;) {
        const Best &b = best[end];
        const std::size_t start = *b.start;
        const bool isUnk = unkId && b.id == *unkId;
        if (isUnk && !path.empty() && static_cast<std::int32_t>(path.back()[0]) == *unkId)
            path.back()[1] = start; // fuse_unk (always on for Unigram)
        else
            path.push_back({static_cast<std::size_t>(b.id), start, end});
        end = start;
    }
    std::reverse(path.begin(), path.end());
    for (const auto &[id, from, to] : path) {
        const std::string text = s.substr(from, to - from);
        const std::uint32_t begin = word.chars[charAt[from]].begin, end = word.chars[charAt[to] - 1].end;
        const auto hit = vocab.find(text);
        if (hit != vocab.end()) {
            out.push_back({hit->second, text, begin, end});
            continue;
        }
        if (byteFallback) {
            bool all = true;
            for (char c : text) all = all && byteIds[static_cast<unsigned char>(c)] >= 0;
            if (all) {
                static const char *hex = "0123456789ABCDEF";
                for (char c : text) {
                    const auto b = static_cast<unsigned char>(c);
                    out.push_back({byteIds[b], std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">", begin, end});
                }
                continue;
            }
        }
        out.push_back({static_cast<std::int32_t>(id), text, begin, end});
    }
    return Status::ok();
}

} // namespace attn::tokenizer
