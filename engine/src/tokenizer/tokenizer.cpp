// SPDX-License-Identifier: GPL-3.0-or-later
// attn::Tokenizer: the encode and decode pipelines over a loaded Impl (loading is in loader.cpp / legacy.cpp).

#include "pipeline.h"

#include <algorithm>

namespace attn {

using namespace tokenizer;

namespace {

const std::string &byteLevelSpace()
{
    static const std::string s = [] {
        std::string out;
        appendUtf8(byteToUnicode(' '), out);
        return out;
    }();
    return s;
}

// Hugging Face's ByteLevel offset trimming: leading and trailing Ġ (encoded spaces) leave the token's offsets,
// except the one prefix space added at the start of the text. Its Python API trims character offsets (they are
// converted before post-processing), so the arithmetic runs on character indices here too: a prefix space that
// stands for a multi-byte first character moves the offset by one character, not one byte.
void trimOffsets(std::vector<Piece> &pieces, bool addPrefixSpace, const Text &text)
{
    // Untrimmed offsets are character boundaries (or the end of the text).
    auto toChar = [&](std::uint32_t byte) {
        return static_cast<std::uint32_t>(std::lower_bound(text.begin(), text.end(), byte,
                                                           [](const Char &c, std::uint32_t b) { return c.begin < b; })
                                          - text.begin());
    };
    auto toByte = [&](std::uint32_t ch) { return ch < text.size() ? text[ch].begin : (text.empty() ? 0 : text.back().end); };
    const std::string &space = byteLevelSpace();
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        Piece &p = pieces[i];
        std::uint32_t leading = 0, trailing = 0;
        for (std::size_t at = 0; p.token.compare(at, space.size(), space) == 0; at += space.size()) ++leading;
        for (std::size_t end = p.token.size();
             end >= space.size() && p.token.compare(end - space.size(), space.size(), space) == 0; end -= space.size())
            ++trailing;
        if (leading == 0 && trailing == 0) continue;
        std::uint32_t begin = toChar(p.begin), end = toChar(p.end);
        if (leading > 0) {
            const bool isFirst = i == 0 || begin == 0;
            if (isFirst && addPrefixSpace && leading == 1) leading = 0;
            begin = std::min(begin + leading, end);
        }
        if (trailing > 0 && end >= trailing) end = std::max(end - trailing, begin);
        p.begin = toByte(begin);
        p.end = toByte(end);
    }
}

std::string wordPieceCleanup(std::string s)
{
    static const std::pair<const char *, const char *> rules[] = {
        {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"},
        {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
    for (const auto &[from, to] : rules) {
        const std::string f(from), t(to);
        std::string out;
        std::size_t at = 0;
        for (std::size_t hit; (hit = s.find(f, at)) != std::string::npos; at = hit + f.size())
            out.append(s, at, hit - at).append(t);
        out.append(s, at, std::string::npos);
        s = std::move(out);
    }
    return s;
}

} // namespace

Status Tokenizer::Impl::finalize()
{
    const Vocab &vocab = modelVocab();
    std::size_t size = 0;
    for (const auto &[token, id] : vocab) size = std::max(size, static_cast<std::size_t>(id) + 1);
    for (const AddedToken &t : addedTokens) size = std::max(size, static_cast<std::size_t>(t.id) + 1);
    // Ids index tables here and embedding rows in the model: a lone huge id is a broken file, not a reason to
    // allocate gigabytes.
    const std::size_t entries = vocab.size() + addedTokens.size();
    if (size > 2 * entries + 1024)
        return {ErrorCode::FormatError, source + ": token ids are not dense: the largest id is " +
                                            std::to_string(size - 1) + " for " + std::to_string(entries) + " tokens"};
    idToToken.assign(size, std::string());
    specialById.assign(size, 0);
    for (const auto &[token, id] : vocab) idToToken[static_cast<std::size_t>(id)] = token;
    tokenToId = vocab;
    for (AddedToken &t : addedTokens) {
        idToToken[static_cast<std::size_t>(t.id)] = t.content;
        tokenToId.insert_or_assign(t.content, t.id);
        if (t.special) specialById[static_cast<std::size_t>(t.id)] = 1;
        t.matchContent = t.content;
        if (t.normalized && !normalizer.empty()) {
            Text content;
            decodeUtf8(t.content, content);
            const Text n = normalize(normalizer, content);
            t.matchContent = toUtf8(n, 0, n.size());
        }
    }
    if (auto *bpe = std::get_if<BpeModel>(&model)) {
        bpe->idToToken.assign(size, std::string());
        for (const auto &[token, id] : bpe->vocab) bpe->idToToken[static_cast<std::size_t>(id)] = token;
    }
    return Status::ok();
}

const Vocab &Tokenizer::Impl::modelVocab() const
{
    if (const auto *wp = std::get_if<WordPieceModel>(&model)) return wp->vocab;
    return std::get<BpeModel>(model).vocab;
}

Result<Encoding> Tokenizer::encode(std::string_view input, bool addSpecialTokens) const
{
    const Impl &d = *m_impl;
    Text text;
    if (const std::size_t bad = decodeUtf8(input, text); bad != std::string_view::npos)
        return Status::invalid("tokenizer: the text is not valid UTF-8 (byte " + std::to_string(bad) + ")");

    std::vector<const AddedToken *> raw, normalized;
    for (const AddedToken &t : d.addedTokens) (t.normalized && !d.normalizer.empty() ? normalized : raw).push_back(&t);

    std::vector<Piece> pieces;
    auto runModel = [&](const Text &word) {
        if (const auto *wp = std::get_if<WordPieceModel>(&d.model))
            wp->tokenize(word, pieces);
        else
            std::get<BpeModel>(d.model).tokenize(word, pieces);
    };
    for (const Segment &seg : splitAddedTokens(text, raw)) {
        if (seg.isToken) {
            pieces.push_back(seg.piece);
            continue;
        }
        const Text norm = normalize(d.normalizer, Text(text.begin() + static_cast<std::ptrdiff_t>(seg.from),
                                                        text.begin() + static_cast<std::ptrdiff_t>(seg.to)));
        for (const Segment &part : splitAddedTokens(norm, normalized)) {
            if (part.isToken) {
                pieces.push_back(part.piece);
                continue;
            }
            const Text slice(norm.begin() + static_cast<std::ptrdiff_t>(part.from),
                             norm.begin() + static_cast<std::ptrdiff_t>(part.to));
            for (const Text &word : preTokenize(d.preTokenizer, slice)) runModel(word);
        }
    }
    if (d.post.trimOffsets) trimOffsets(pieces, d.post.trimAddPrefixSpace, text);

    Encoding out;
    auto add = [&](std::int32_t id, const std::string &token, std::size_t begin, std::size_t end, bool framing) {
        out.ids.push_back(id);
        out.tokens.push_back(token);
        out.begins.push_back(begin);
        out.ends.push_back(end);
        out.special.push_back(framing || d.isSpecial(id) ? 1 : 0);
    };
    auto addSequence = [&] {
        for (const Piece &p : pieces) add(p.id, p.token, p.begin, p.end, false);
    };
    if (!addSpecialTokens || d.post.single.empty()) {
        addSequence();
    } else {
        for (const TemplatePiece &t : d.post.single) {
            if (t.isSequence)
                addSequence();
            else
                for (std::size_t k = 0; k < t.ids.size(); ++k) add(t.ids[k], t.tokens[k], 0, 0, true);
        }
    }
    return out;
}

std::string Tokenizer::decode(const std::vector<std::int32_t> &ids, bool skipSpecialTokens) const
{
    const Impl &d = *m_impl;
    std::vector<std::string> tokens;
    for (std::int32_t id : ids) {
        if (id < 0 || static_cast<std::size_t>(id) >= d.idToToken.size() || d.idToToken[static_cast<std::size_t>(id)].empty())
            continue;
        if (skipSpecialTokens && d.isSpecial(id)) continue;
        tokens.push_back(d.idToToken[static_cast<std::size_t>(id)]);
    }
    std::string out;
    switch (d.decoder.kind) {
    case Decoder::Kind::Join:
        for (std::size_t i = 0; i < tokens.size(); ++i) out.append(i ? " " : "").append(tokens[i]);
        return out;
    case Decoder::Kind::WordPiece:
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            const std::string &token = tokens[i];
            std::string t;
            if (i == 0)
                t = token;
            else if (token.compare(0, d.decoder.prefix.size(), d.decoder.prefix) == 0)
                t = token.substr(d.decoder.prefix.size());
            else
                (t = " ") += token;
            out += d.decoder.cleanup ? wordPieceCleanup(std::move(t)) : t;
        }
        return out;
    case Decoder::Kind::ByteLevel: {
        std::string bytes;
        for (const std::string &t : tokens) {
            Text chars;
            decodeUtf8(t, chars);
            std::string mapped;
            bool all = true;
            for (const Char &c : chars) {
                const auto b = unicodeToByte(c.cp);
                if (!b) {
                    all = false;
                    break;
                }
                mapped.push_back(static_cast<char>(*b));
            }
            bytes += all ? mapped : t;
        }
        return utf8Lossy(bytes);
    }
    }
    return out;
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
