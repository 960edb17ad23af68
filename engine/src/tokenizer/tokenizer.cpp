// SPDX-License-Identifier: GPL-3.0-or-later
// attn::Tokenizer: the encode and decode pipelines over a loaded Impl (loading is in loader*.cpp / legacy.cpp).

#include "loader.h"
#include "pipeline.h"

#include <algorithm>
#include <map>
#include <set>

namespace attn {

using namespace tokenizer;

const char *tokenizerKindName(TokenizerKind kind)
{
    switch (kind) {
    case TokenizerKind::WordPiece: return "wordpiece";
    case TokenizerKind::ByteLevelBpe: return "byte_level_bpe";
    case TokenizerKind::Bpe: return "bpe";
    case TokenizerKind::Unigram: return "unigram";
    case TokenizerKind::SentencePiece: return "sentencepiece";
    }
    return "unknown";
}

std::vector<std::pair<std::string, std::int32_t>> Tokenizer::Impl::modelEntries() const
{
    std::vector<std::pair<std::string, std::int32_t>> out;
    if (const auto *u = std::get_if<UnigramModel>(&model)) {
        for (std::size_t i = 0; i < u->pieces.size(); ++i) out.emplace_back(u->pieces[i], static_cast<std::int32_t>(i));
        return out;
    }
    const Vocab &v = std::holds_alternative<WordPieceModel>(model) ? std::get<WordPieceModel>(model).vocab
                                                                    : std::get<BpeModel>(model).vocab;
    out.assign(v.begin(), v.end());
    return out;
}

std::optional<std::int32_t> Tokenizer::Impl::modelTokenToId(std::string_view token) const
{
    const Vocab &v = std::holds_alternative<WordPieceModel>(model) ? std::get<WordPieceModel>(model).vocab
                     : std::holds_alternative<BpeModel>(model)     ? std::get<BpeModel>(model).vocab
                                                                   : std::get<UnigramModel>(model).vocab;
    const auto it = v.find(token);
    if (it == v.end()) return std::nullopt;
    return it->second;
}

Status Tokenizer::Impl::finalize()
{
    const auto entries = modelEntries();
    // Hugging Face ignores the ids written in added_tokens: a content in the model's vocabulary (or added before)
    // keeps that id, any other gets the next id from the model's vocabulary size on. A later entry for an id
    // replaces an earlier one.
    std::map<std::int32_t, AddedToken> byId;
    std::map<std::string, std::int32_t> addedIds;
    auto nextId = static_cast<std::int32_t>(entries.size());
    for (AddedToken &t : addedTokens) {
        if (t.content.empty()) continue;
        std::int32_t id;
        if (keepAddedIds) id = t.id;
        else if (const auto a = addedIds.find(t.content); a != addedIds.end()) id = a->second;
        else if (const auto m = modelTokenToId(t.content)) id = *m;
        else id = nextId++;
        t.id = id;
        addedIds[t.content] = id;
        byId[id] = t;
    }
    addedTokens.clear();
    for (auto &[id, t] : byId) addedTokens.push_back(std::move(t));

    std::size_t size = 0;
    for (const auto &[token, id] : entries) size = std::max(size, static_cast<std::size_t>(id) + 1);
    for (const AddedToken &t : addedTokens) size = std::max(size, static_cast<std::size_t>(t.id) + 1);
    // Ids index tables here and embedding rows in the model: a lone huge id is a broken file, not a reason to
    // allocate gigabytes.
    const std::size_t count = entries.size() + addedTokens.size();
    if (size > 2 * count + 1024)
        return {ErrorCode::FormatError, source + ": token ids are not dense: the largest id is " +
                                            std::to_string(size - 1) + " for " + std::to_string(count) + " tokens"};
    idToToken.assign(size, std::string());
    specialById.assign(size, 0);
    for (const auto &[token, id] : entries) idToToken[static_cast<std::size_t>(id)] = token;
    tokenToId.clear();
    tokenToId.insert(entries.begin(), entries.end());
    if (auto *bpe = std::get_if<BpeModel>(&model)) bpe->idToToken = idToToken;
    decodeToken = idToToken;
    std::set<std::string, std::less<>> specialContents;
    for (AddedToken &t : addedTokens) {
        const auto id = static_cast<std::size_t>(t.id);
        idToToken[id] = t.content;
        tokenToId.insert_or_assign(t.content, t.id);
        t.matchContent = t.content;
        if (t.normalized && !normalizer.empty()) {
            Text content;
            decodeUtf8(t.content, content);
            NormalizedText n;
            n.chars = std::move(content);
            normalize(normalizer, n);
            t.matchContent = n.utf8();
        }
        decodeToken[id] = t.matchContent;
        if (t.special) specialContents.insert(t.content);
    }
    // skip_special_tokens drops the tokens whose decoding string is a special token's content.
    for (std::size_t id = 0; id < size; ++id)
        if (!decodeToken[id].empty() && specialContents.count(decodeToken[id])) specialById[id] = 1;
    std::vector<const AddedToken *> raw, normalized;
    for (const AddedToken &t : addedTokens) (t.normalized ? normalized : raw).push_back(&t);
    rawMatcher.build(raw);
    normalizedMatcher.build(normalized);
    return Status::ok();
}

Status Tokenizer::Impl::encodeSequence(const Text &text, std::vector<Piece> &out) const
{
    if (text.empty()) return Status::ok();
    const NormalizedText whole = NormalizedText::fromOriginal(text, 0, text.size());
    std::vector<NormalizedText> words;
    for (auto &seg : rawMatcher.split(whole)) {
        if (seg.isToken) {
            out.push_back(std::move(seg.piece));
            continue;
        }
        NormalizedText n = std::move(seg.text);
        normalize(normalizer, n);
        for (auto &part : normalizedMatcher.split(n)) {
            if (part.isToken) {
                out.push_back(std::move(part.piece));
                continue;
            }
            words.clear();
            words.push_back(std::move(part.text));
            preTokenize(preTokenizer, words);
            for (const NormalizedText &w : words) {
                if (const auto *wp = std::get_if<WordPieceModel>(&model)) {
                    wp->tokenize(w, out);
                } else if (const auto *bpe = std::get_if<BpeModel>(&model)) {
                    bpe->tokenize(w, out);
                } else if (Status s = std::get<UnigramModel>(model).tokenize(w, out); !s) {
                    return s;
                }
            }
        }
    }
    return Status::ok();
}

namespace {

// Hugging Face's BytesToCharOffsetConverter over one sequence's text.
struct OffsetMaps {
    std::vector<std::size_t> charAtByte; // per byte
    std::vector<std::size_t> byteAtChar; // per character, then the length
    explicit OffsetMaps(const Text &text)
    {
        for (std::size_t i = 0; i < text.size(); ++i) {
            byteAtChar.push_back(text[i].begin);
            for (std::uint32_t b = text[i].begin; b < text[i].end; ++b) charAtByte.push_back(i);
        }
        byteAtChar.push_back(charAtByte.size());
    }
    std::pair<std::size_t, std::size_t> toChars(std::size_t begin, std::size_t end) const
    {
        const std::size_t n = charAtByte.size();
        if (begin >= n) return {begin, end}; // not converted, as in Hugging Face
        const std::size_t b = charAtByte[begin];
        if (end < n) return {b, charAtByte[end]};
        return {b, end >= 1 && end - 1 < n ? charAtByte[end - 1] + 1 : b + 1};
    }
    std::size_t toByte(std::size_t ch) const { return byteAtChar[std::min(ch, byteAtChar.size() - 1)]; }
};

SeqEncoding toSequence(std::vector<Piece> &pieces, const OffsetMaps &maps, int sequence)
{
    SeqEncoding e;
    const std::size_t n = pieces.size();
    for (auto *v : {&e.begins, &e.ends}) v->reserve(n);
    e.ids.reserve(n);
    e.tokens.reserve(n);
    for (Piece &p : pieces) {
        const auto [b, en] = maps.toChars(p.begin, p.end);
        e.ids.push_back(p.id);
        e.tokens.push_back(std::move(p.token));
        e.begins.push_back(b);
        e.ends.push_back(en);
        e.framing.push_back(0);
        e.typeIds.push_back(sequence);
        e.sequence.push_back(static_cast<std::int8_t>(sequence));
    }
    return e;
}

// Hugging Face's truncate_encodings, longest_first, from the right.
void truncateLongestFirst(SeqEncoding &a, SeqEncoding *b, std::size_t maxLength)
{
    if (!b) {
        a.truncate(maxLength);
        return;
    }
    if (maxLength == 0 || a.size() + b->size() <= maxLength) {
        if (maxLength == 0) a.truncate(0), b->truncate(0);
        return;
    }
    std::size_t n1 = a.size(), n2 = b->size();
    const bool swap = n1 > n2;
    if (swap) std::swap(n1, n2);
    if (n1 > maxLength) n2 = n1;
    else n2 = std::max(n1, maxLength - n1);
    if (n1 + n2 > maxLength) {
        n1 = maxLength / 2;
        n2 = n1 + maxLength % 2;
    }
    if (swap) std::swap(n1, n2);
    a.truncate(n1);
    b->truncate(n2);
}

} // namespace

Result<Encoding> Tokenizer::encode(std::string_view text, bool addSpecialTokens) const
{
    EncodeOptions options;
    options.addSpecialTokens = addSpecialTokens;
    return encode(text, options);
}

Result<Encoding> Tokenizer::encode(std::string_view text, const EncodeOptions &options) const
{
    return encodePairImpl(text, nullptr, options);
}

Result<Encoding> Tokenizer::encodePair(std::string_view text, std::string_view pair, const EncodeOptions &options) const
{
    return encodePairImpl(text, &pair, options);
}

Result<Encoding> Tokenizer::encodePairImpl(std::string_view first, const std::string_view *second,
                                           const EncodeOptions &options) const
{
    const Impl &d = *m_impl;
    if (d.sentencePiece) {
        if (second) return Status::invalid("tokenizer: " + d.source + " (Marian) does not encode sentence pairs");
        return tokenizer::encodeSentencePiece(d, first, options);
    }
    Text texts[2];
    const std::string_view inputs[2] = {first, second ? *second : std::string_view()};
    const int count = second ? 2 : 1;
    for (int s = 0; s < count; ++s)
        if (const std::size_t bad = decodeUtf8(inputs[s], texts[s]); bad != std::string_view::npos)
            return Status::invalid(std::string("tokenizer: the ") + (s == 0 ? "text" : "text pair") +
                                   " is not valid UTF-8 (byte " + std::to_string(bad) + ")");
    std::vector<SeqEncoding> seqs;
    std::vector<OffsetMaps> maps;
    for (int s = 0; s < count; ++s) {
        std::vector<Piece> pieces;
        if (Status st = d.encodeSequence(texts[s], pieces); !st) return st;
        maps.emplace_back(texts[s]);
        seqs.push_back(toSequence(pieces, maps.back(), s));
    }
    Encoding out;
    if (options.maxLength) {
        const std::size_t added = d.post.present && options.addSpecialTokens ? d.post.addedTokens(count == 2) : 0;
        if (*options.maxLength < added)
            return Status::invalid("tokenizer: truncation to " + std::to_string(*options.maxLength) +
                                   " tokens leaves no room: the post-processor adds " + std::to_string(added));
        const std::size_t before = seqs[0].size() + (count == 2 ? seqs[1].size() : 0);
        truncateLongestFirst(seqs[0], count == 2 ? &seqs[1] : nullptr, *options.maxLength - added);
        out.truncated = seqs[0].size() + (count == 2 ? seqs[1].size() : 0) < before;
    }
    SeqEncoding merged = d.post.process(std::move(seqs), options.addSpecialTokens);
    const std::size_t n = merged.size();
    out.ids = std::move(merged.ids);
    out.tokens = std::move(merged.tokens);
    out.charBegins = std::move(merged.begins);
    out.charEnds = std::move(merged.ends);
    out.framing = std::move(merged.framing);
    out.typeIds = std::move(merged.typeIds);
    out.sequence = std::move(merged.sequence);
    out.begins.resize(n);
    out.ends.resize(n);
    out.special.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
        const int s = out.sequence[k];
        if (s >= 0 && s < count) {
            out.begins[k] = maps[static_cast<std::size_t>(s)].toByte(out.charBegins[k]);
            out.ends[k] = maps[static_cast<std::size_t>(s)].toByte(out.charEnds[k]);
        }
        out.special[k] = out.framing[k] || d.isSpecial(out.ids[k]) ? 1 : 0;
    }
    return out;
}

std::size_t Tokenizer::addedTokenCount(bool pair) const
{
    if (m_impl->sentencePiece) return 1;   // </s>
    return m_impl->post.present ? m_impl->post.addedTokens(pair) : 0;
}

std::string Tokenizer::decode(const std::vector<std::int32_t> &ids, bool skipSpecialTokens) const
{
    const Impl &d = *m_impl;
    if (d.sentencePiece) return tokenizer::decodeSentencePiece(d, ids, skipSpecialTokens);
    std::vector<std::string> tokens;
    for (std::int32_t id : ids) {
        if (id < 0 || static_cast<std::size_t>(id) >= d.decodeToken.size() || d.decodeToken[static_cast<std::size_t>(id)].empty())
            continue;
        if (skipSpecialTokens && d.isSpecial(id)) continue;
        tokens.push_back(d.decodeToken[static_cast<std::size_t>(id)]);
    }
    return decodeTokens(d.decoder, d.hasDecoder, std::move(tokens));
}

TokenizerKind Tokenizer::kind() const { return m_impl->kind; }
std::size_t Tokenizer::vocabSize() const { return m_impl->idToToken.size(); }
const SpecialTokenIds &Tokenizer::specialTokenIds() const { return m_impl->specialIds; }
const std::string &Tokenizer::source() const { return m_impl->source; }
bool Tokenizer::isSpecialId(std::int32_t id) const { return m_impl->isSpecial(id); }

std::optional<std::int32_t> Tokenizer::tokenToId(std::string_view token) const
{
    const auto it = m_impl->tokenToId.find(token);
    if (it == m_impl->tokenToId.end()) return std::nullopt;
    return it->second;
}

std::string Tokenizer::idToToken(std::int32_t id) const
{
    if (id < 0 || static_cast<std::size_t>(id) >= m_impl->idToToken.size()) return {};
    return m_impl->idToToken[static_cast<std::size_t>(id)];
}

} // namespace attn
