// SPDX-License-Identifier: GPL-3.0-or-later
// Marian's tokenizer (transformers' MarianTokenizer), which ships no tokenizer.json: SentencePiece models
// source.spm / target.spm run by Debian's libsentencepiece, their pieces mapped through vocab.json (not through
// the spm ids: Opus-MT's vocabulary has its own order; a piece vocab.json lacks is <unk>), a leading language
// code >>xx<< kept as one token, </s> appended. The special tokens (</s>, <unk>, <pad> and any special entry of
// tokenizer_config.json's added_tokens_decoder) are split out of the text first, as the slow tokenizers' trie does.
// Decoding joins pieces with the source model (the target model when separate_vocabs), ▁ → space, stripped.
#include "loader.h"

#include <attnscope/utf8.h>

#include <sentencepiece_processor.h>

#include <algorithm>

namespace attn::tokenizer {

struct SentencePieceSide {
    sentencepiece::SentencePieceProcessor encoder;   // this side's spm
    sentencepiece::SentencePieceProcessor decoder;   // the one decode() joins pieces with
    std::vector<AddedToken> specials;                // split out of the text before spm sees it
    std::int32_t unkId = -1, eosId = -1;
};

namespace {

bool isAsciiSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

Status loadSpm(sentencepiece::SentencePieceProcessor &p, const std::string &path)
{
    if (!fileExists(path)) return {ErrorCode::IoError, path + ": missing (a Marian folder has source.spm and target.spm)"};
    const auto s = p.Load(path);
    if (!s.ok()) return {ErrorCode::FormatError, path + ": not a SentencePiece model (" + s.ToString() + ")"};
    return Status::ok();
}

// vocab.json: {"token": id, ...} with ids ≥ 0 and no id twice.
Status readVocabJson(const std::string &path, Tokenizer::Impl &impl)
{
    auto parsed = parseJsonFile(path);
    if (!parsed) return parsed.status();
    if (!parsed->is_object()) return {ErrorCode::FormatError, path + ": expected an object of token: id"};
    std::int32_t top = -1;
    for (const auto &[token, id] : parsed->items()) {
        if (!id.is_number_integer() || id.get<std::int64_t>() < 0 || id.get<std::int64_t>() > (1 << 24))
            return {ErrorCode::FormatError, path + ": \"" + token + "\": expected an id in 0..16777216"};
        impl.tokenToId[token] = id.get<std::int32_t>();
        top = std::max(top, id.get<std::int32_t>());
    }
    if (top < 0) return {ErrorCode::FormatError, path + ": no tokens"};
    impl.idToToken.assign(static_cast<std::size_t>(top) + 1, std::string());
    for (const auto &[token, id] : impl.tokenToId) {
        std::string &slot = impl.idToToken[static_cast<std::size_t>(id)];
        if (!slot.empty()) return {ErrorCode::FormatError, path + ": id " + std::to_string(id) + " is both \"" + slot + "\" and \"" + token + "\""};
        slot = token;
    }
    return Status::ok();
}

std::size_t codePoints(std::string_view s, std::size_t upTo)
{
    std::size_t n = 0;
    for (std::size_t i = 0; i < upTo && i < s.size(); ++i) n += (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
    return n;
}

// The longest special token starting at `at`, or null.
const AddedToken *specialAt(const SentencePieceSide &side, std::string_view text, std::size_t at)
{
    const AddedToken *best = nullptr;
    for (const AddedToken &t : side.specials)
        if (!t.content.empty() && text.compare(at, t.content.size(), t.content) == 0 &&
            (!best || t.content.size() > best->content.size()))
            best = &t;
    return best;
}

} // namespace

Result<std::shared_ptr<Tokenizer::Impl>> loadSentencePiece(const std::string &folder, bool target, const TokenizerConfig &config)
{
    auto impl = std::make_shared<Tokenizer::Impl>();
    impl->kind = TokenizerKind::SentencePiece;
    auto side = std::make_shared<SentencePieceSide>();
    bool separate = false;
    const std::string configPath = joinPath(folder, "tokenizer_config.json");
    if (fileExists(configPath)) {
        auto j = parseJsonFile(configPath);
        if (!j) return j.status();
        if (const auto it = j->find("separate_vocabs"); j->is_object() && it != j->end() && !it->is_null()) {
            if (!it->is_boolean()) return Status{ErrorCode::FormatError, configPath + ": separate_vocabs: expected true or false"};
            separate = it->get<bool>();
        }
    }
    const std::string spmPath = joinPath(folder, target ? "target.spm" : "source.spm");
    impl->source = spmPath + " + " + (target && separate ? "target_vocab.json" : "vocab.json");
    if (Status s = loadSpm(side->encoder, spmPath); !s) return s;
    // MarianTokenizer decodes with the source model unless the vocabularies are separate.
    if (Status s = loadSpm(side->decoder, joinPath(folder, separate ? "target.spm" : "source.spm")); !s) return s;
    if (Status s = readVocabJson(joinPath(folder, target && separate ? "target_vocab.json" : "vocab.json"), *impl); !s) return s;

    const auto special = [&](const char *key, const char *fallback) {
        const auto it = config.specialTokens.find(key);
        return it != config.specialTokens.end() ? it->second : std::string(fallback);
    };
    for (const std::string &content : {special("eos_token", "</s>"), special("unk_token", "<unk>"), special("pad_token", "<pad>")}) {
        AddedToken t;
        t.content = content;
        t.special = true;
        for (const AddedToken &d : config.addedTokensDecoder)
            if (d.content == content) t.lstrip = d.lstrip, t.rstrip = d.rstrip;
        side->specials.push_back(t);
    }
    for (const AddedToken &d : config.addedTokensDecoder)
        if (d.special && std::none_of(side->specials.begin(), side->specials.end(), [&](const AddedToken &t) { return t.content == d.content; }))
            side->specials.push_back(d);
    impl->specialById.assign(impl->idToToken.size(), 0);
    for (AddedToken &t : side->specials) {
        const auto it = impl->tokenToId.find(t.content);
        t.id = it == impl->tokenToId.end() ? -1 : it->second;
        if (t.id >= 0) impl->specialById[static_cast<std::size_t>(t.id)] = 1;
    }
    const auto unk = impl->tokenToId.find(special("unk_token", "<unk>"));
    if (unk == impl->tokenToId.end())
        return Status{ErrorCode::FormatError, joinPath(folder, "vocab.json") + ": no \"" + special("unk_token", "<unk>") +
                                                  "\" (MarianTokenizer requires the unknown token)"};
    side->unkId = unk->second;
    const auto eos = impl->tokenToId.find(special("eos_token", "</s>"));
    side->eosId = eos == impl->tokenToId.end() ? -1 : eos->second;
    resolveSpecialIds(*impl, config);
    impl->specialIds.unk = side->unkId;
    impl->decodeToken = impl->idToToken;
    impl->sentencePiece = std::move(side);
    return impl;
}

Result<Encoding> encodeSentencePiece(const Tokenizer::Impl &impl, std::string_view text, const EncodeOptions &options)
{
    if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string_view::npos)
        return Status::invalid("tokenizer: the text is not valid UTF-8 (byte " + std::to_string(bad) + ")");
    const SentencePieceSide &side = *impl.sentencePiece;
    Encoding out;
    const auto push = [&](std::int32_t id, std::string token, std::size_t b, std::size_t e, bool special, bool framing) {
        out.ids.push_back(id);
        out.tokens.push_back(std::move(token));
        out.begins.push_back(b);
        out.ends.push_back(e);
        out.charBegins.push_back(framing ? 0 : codePoints(text, b));
        out.charEnds.push_back(framing ? 0 : codePoints(text, e));
        out.special.push_back(special ? 1 : 0);
        out.framing.push_back(framing ? 1 : 0);
        out.typeIds.push_back(0);
        out.sequence.push_back(framing ? -1 : 0);
    };
    const auto lookup = [&](const std::string &piece) {
        const auto it = impl.tokenToId.find(piece);
        return it == impl.tokenToId.end() ? side.unkId : it->second;
    };

    // The trie's split: [begin, end) slices, each a special token or text between them.
    struct Chunk {
        std::size_t begin, end;
        const AddedToken *special;
    };
    std::vector<Chunk> chunks;
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size();) {
        if (const AddedToken *t = specialAt(side, text, i)) {
            chunks.push_back({start, i, nullptr});
            chunks.push_back({i, i + t->content.size(), t});
            i = start = i + t->content.size();
        } else {
            ++i;
        }
    }
    chunks.push_back({start, text.size(), nullptr});
    for (std::size_t k = 0; k < chunks.size(); ++k) {   // lstrip / rstrip eat the neighbours' whitespace
        const AddedToken *t = chunks[k].special;
        if (!t) continue;
        if (t->rstrip && k + 1 < chunks.size())
            while (chunks[k + 1].begin < chunks[k + 1].end && isAsciiSpace(text[chunks[k + 1].begin])) ++chunks[k + 1].begin;
        if (t->lstrip && k > 0)
            while (chunks[k - 1].begin < chunks[k - 1].end && isAsciiSpace(text[chunks[k - 1].end - 1])) --chunks[k - 1].end;
    }
    for (const Chunk &c : chunks) {
        if (c.begin >= c.end) continue;
        if (c.special) {
            push(c.special->id >= 0 ? c.special->id : side.unkId, c.special->content, c.begin, c.end, true, false);
            continue;
        }
        std::size_t from = c.begin;
        const std::string_view chunk = text.substr(c.begin, c.end - c.begin);
        // remove_language_code: a chunk starting with >> keeps up to the first << as one token.
        if (chunk.rfind(">>", 0) == 0)
            if (const std::size_t close = chunk.find("<<"); close != std::string_view::npos) {
                const std::string code(chunk.substr(0, close + 2));
                const std::int32_t id = lookup(code);
                push(id, code, from, from + code.size(), impl.isSpecial(id), false);
                from += code.size();
            }
        const auto spt = side.encoder.EncodeAsImmutableProto(text.substr(from, c.end - from));
        for (const auto &p : spt.pieces()) {
            const std::int32_t id = lookup(p.piece());
            push(id, p.piece(), from + p.begin(), from + p.end(), impl.isSpecial(id), false);
        }
    }
    const bool eos = options.addSpecialTokens && side.eosId >= 0;
    if (options.maxLength) {
        const std::size_t room = *options.maxLength;
        if (eos && room < 1) return Status::invalid("tokenizer: truncation to 0 tokens leaves no room: </s> is appended");
        const std::size_t keep = room - (eos ? 1 : 0);
        if (out.ids.size() > keep) {
            out.truncated = true;
            for (auto *v : {&out.begins, &out.ends, &out.charBegins, &out.charEnds}) v->resize(keep);
            out.ids.resize(keep), out.tokens.resize(keep), out.special.resize(keep), out.framing.resize(keep);
            out.typeIds.resize(keep), out.sequence.resize(keep);
        }
    }
    if (eos) push(side.eosId, impl.idToToken[static_cast<std::size_t>(side.eosId)], 0, 0, true, true);
    return out;
}

std::string decodeSentencePiece(const Tokenizer::Impl &impl, const std::vector<std::int32_t> &ids, bool skipSpecialTokens)
{
    const SentencePieceSide &side = *impl.sentencePiece;
    std::string out;
    std::vector<std::string> run;
    const auto flush = [&] {
        out += side.decoder.DecodePieces(run);
        run.clear();
    };
    for (std::int32_t id : ids) {
        if (id < 0 || static_cast<std::size_t>(id) >= impl.idToToken.size() || impl.idToToken[static_cast<std::size_t>(id)].empty()) continue;
        const std::string &token = impl.idToToken[static_cast<std::size_t>(id)];
        if (impl.isSpecial(id)) {
            if (skipSpecialTokens) continue;
            flush();   // special tokens are not decoded by SentencePiece
            out += token + " ";
        } else {
            run.push_back(token);
        }
    }
    flush();
    std::string spaced;
    for (std::size_t i = 0; i < out.size(); ++i) {   // SPIECE_UNDERLINE → space
        if (out.compare(i, 3, "\xE2\x96\x81") == 0) {
            spaced += ' ';
            i += 2;
        } else {
            spaced += out[i];
        }
    }
    std::size_t b = 0, e = spaced.size();
    while (b < e && isAsciiSpace(spaced[b])) ++b;
    while (e > b && isAsciiSpace(spaced[e - 1])) --e;
    return spaced.substr(b, e - b);
}

} // namespace attn::tokenizer
