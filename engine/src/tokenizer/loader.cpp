// SPDX-License-Identifier: GPL-3.0-or-later
// tokenizer.json (Hugging Face tokenizers' serialization). Every error names the file and the JSON field.

#include "loader.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace attn::tokenizer {

namespace {

std::string typeName(const Json &j) { return j.type_name(); }

class JsonLoader : public JsonReader {
public:
    explicit JsonLoader(std::string p) { path = std::move(p); }
    Result<std::shared_ptr<Tokenizer::Impl>> load(const Json &root);

private:
    Status readVocab(const Json &model, Vocab &vocab) const;
    Status readModel(const Json &model, Tokenizer::Impl &impl) const;
    Status readBpe(const Json &model, Tokenizer::Impl &impl) const;
    Status readUnigram(const Json &model, Tokenizer::Impl &impl) const;
    Status readAddedTokens(const Json &j, std::vector<AddedToken> &out) const;
};

Status JsonLoader::readVocab(const Json &model, Vocab &vocab) const
{
    const auto it = model.find("vocab");
    if (it == model.end()) return error("model.vocab", "missing");
    if (!it->is_object())
        return error("model.vocab", "expected an object mapping tokens to ids, found " + typeName(*it));
    vocab.reserve(it->size());
    for (const auto &[token, value] : it->items()) {
        const auto id = jsonId(value);
        if (!id) return error("model.vocab[\"" + token + "\"]", "the id must be a non-negative integer");
        vocab.insert_or_assign(token, *id);
    }
    if (vocab.empty()) return error("model.vocab", "empty");
    return Status::ok();
}

Status JsonLoader::readModel(const Json &model, Tokenizer::Impl &impl) const
{
    if (!model.is_object()) return error("model", "expected an object, found " + typeName(model));
    std::string type;
    if (const auto t = model.find("type"); t != model.end()) {
        if (!t->is_string()) return error("model.type", "expected a string");
        type = t->get<std::string>();
    } else if (model.contains("merges")) {
        type = "BPE"; // files from old writers carry no type tag
    } else if (model.contains("max_input_chars_per_word")) {
        type = "WordPiece";
    } else if (model.contains("vocab") && model["vocab"].is_array()) {
        type = "Unigram";
    } else {
        return error("model.type", "missing");
    }
    if (type == "BPE") return readBpe(model, impl);
    if (type == "Unigram") return readUnigram(model, impl);
    if (type != "WordPiece")
        return error("model.type", "'" + type + "' is not supported (WordPiece, BPE and Unigram are)");

    auto &wp = impl.model.emplace<WordPieceModel>();
    if (Status s = readVocab(model, wp.vocab); !s) return s;
    if (const auto u = model.find("unk_token"); u != model.end() && u->is_string()) wp.unkToken = u->get<std::string>();
    if (const auto p = model.find("continuing_subword_prefix"); p != model.end() && p->is_string())
        wp.prefix = p->get<std::string>();
    if (const auto m = model.find("max_input_chars_per_word"); m != model.end()) {
        const auto v = jsonId(*m);
        if (!v) return error("model.max_input_chars_per_word", "expected a non-negative integer");
        wp.maxInputCharsPerWord = static_cast<std::size_t>(*v);
    }
    const auto unk = wp.vocab.find(wp.unkToken);
    if (unk == wp.vocab.end()) return error("model.unk_token", "'" + wp.unkToken + "' is not in model.vocab");
    wp.unkId = unk->second;
    impl.kind = TokenizerKind::WordPiece;
    return Status::ok();
}

Status JsonLoader::readBpe(const Json &model, Tokenizer::Impl &impl) const
{
    auto &bpe = impl.model.emplace<BpeModel>();
    if (Status s = readVocab(model, bpe.vocab); !s) return s;
    if (const auto d = model.find("dropout"); d != model.end() && !d->is_null()) {
        if (!d->is_number()) return error("model.dropout", "expected a number or null");
        const double p = d->get<double>();
        if (!(p >= 0.0 && p <= 1.0)) return error("model.dropout", "must be in [0, 1]");
        if (p > 0.0)
            return error("model.dropout", std::to_string(p) + " is refused: BPE dropout skips merges at random at "
                                          "encode time, so no ids could be reproduced (inference files use null)");
    }
    for (auto [key, out] : {std::pair{"continuing_subword_prefix", &bpe.prefix}, {"end_of_word_suffix", &bpe.suffix}}) {
        const auto it = model.find(key);
        if (it == model.end() || it->is_null()) continue;
        if (!it->is_string()) return error(std::string("model.") + key, "expected a string or null");
        *out = it->get<std::string>();
    }
    bpe.fuseUnk = boolOr(model, "fuse_unk", false);
    bpe.byteFallback = boolOr(model, "byte_fallback", false);
    bpe.ignoreMerges = boolOr(model, "ignore_merges", false);
    if (bpe.byteFallback && (!bpe.prefix.empty() || !bpe.suffix.empty()))
        return error("model.byte_fallback", "true together with a continuing_subword_prefix or end_of_word_suffix is "
                                            "refused: Hugging Face then falls back on the affix's bytes too and its "
                                            "offsets run past the word");
    if (const auto u = model.find("unk_token"); u != model.end() && !u->is_null()) {
        if (!u->is_string()) return error("model.unk_token", "expected a string or null");
        const auto unk = bpe.vocab.find(u->get<std::string>());
        if (unk == bpe.vocab.end()) return error("model.unk_token", "'" + u->get<std::string>() + "' is not in model.vocab");
        bpe.unkId = unk->second;
    }
    const auto merges = model.find("merges");
    if (merges == model.end()) return error("model.merges", "missing");
    if (!merges->is_array()) return error("model.merges", "expected an array, found " + typeName(*merges));
    for (std::size_t i = 0; i < merges->size(); ++i) {
        const Json &m = (*merges)[i];
        const std::string field = "model.merges[" + std::to_string(i) + "]";
        std::string a, b;
        if (m.is_string()) {
            const auto s = m.get<std::string>();
            const auto space = s.find(' ');
            if (space == std::string::npos || space == 0 || space + 1 == s.size()
                || s.find(' ', space + 1) != std::string::npos)
                return error(field, "expected \"a b\" (two tokens separated by one space), found \"" + s + "\"");
            a = s.substr(0, space);
            b = s.substr(space + 1);
        } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
            a = m[0].get<std::string>();
            b = m[1].get<std::string>();
        } else {
            return error(field, "expected \"a b\" or [\"a\", \"b\"], found " + m.dump());
        }
        if (Status s = bpe.addMerge(a, b, path + ": " + field); !s) return s;
    }
    impl.kind = TokenizerKind::Bpe; // ByteLevelBpe when a ByteLevel component turns up (load())
    return finalizeBpe(bpe);
}

Status JsonLoader::readUnigram(const Json &model, Tokenizer::Impl &impl) const
{
    auto &u = impl.model.emplace<UnigramModel>();
    const auto vocab = model.find("vocab");
    if (vocab == model.end()) return error("model.vocab", "missing");
    if (!vocab->is_array()) return error("model.vocab", "expected an array of [piece, score], found " + typeName(*vocab));
    for (std::size_t i = 0; i < vocab->size(); ++i) {
        const Json &e = (*vocab)[i];
        if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number())
            return error("model.vocab[" + std::to_string(i) + "]", "expected [piece, score]");
        u.pieces.push_back(e[0].get<std::string>());
        u.scores.push_back(e[1].get<double>());
    }
    if (const auto id = model.find("unk_id"); id != model.end() && !id->is_null()) {
        const auto v = jsonId(*id);
        if (!v) return error("model.unk_id", "expected a non-negative integer or null");
        u.unkId = *v;
    }
    u.byteFallback = boolOr(model, "byte_fallback", false);
    impl.kind = TokenizerKind::Unigram;
    return u.build(path + ": model");
}

Status JsonLoader::readAddedTokens(const Json &j, std::vector<AddedToken> &out) const
{
    if (j.is_null()) return Status::ok();
    if (!j.is_array()) return error("added_tokens", "expected an array, found " + typeName(j));
    for (std::size_t i = 0; i < j.size(); ++i) {
        const Json &e = j[i];
        const std::string field = "added_tokens[" + std::to_string(i) + "]";
        if (!e.is_object()) return error(field, "expected an object");
        const auto id = jsonId(e.value("id", Json()));
        if (!id) return error(field + ".id", "missing or not a non-negative integer");
        if (!e.contains("content") || !e["content"].is_string()) return error(field + ".content", "missing or not a string");
        AddedToken t;
        t.id = *id;
        t.content = e["content"].get<std::string>();
        t.singleWord = boolOr(e, "single_word", false);
        t.lstrip = boolOr(e, "lstrip", false);
        t.rstrip = boolOr(e, "rstrip", false);
        t.special = boolOr(e, "special", false);
        t.normalized = boolOr(e, "normalized", !t.special);
        out.push_back(std::move(t));
    }
    return Status::ok();
}

Result<std::shared_ptr<Tokenizer::Impl>> JsonLoader::load(const Json &root)
{
    if (!root.is_object()) return error("(top level)", "expected a JSON object, found " + typeName(root));
    auto impl = std::make_shared<Tokenizer::Impl>();
    impl->source = path;
    const auto model = root.find("model");
    if (model == root.end()) return error("model", "missing");
    if (Status s = readModel(*model, *impl); !s) return s;
    if (Status s = normalizer(root.value("normalizer", Json()), "normalizer", impl->normalizer); !s) return s;
    if (Status s = preTokenizer(root.value("pre_tokenizer", Json()), "pre_tokenizer", impl->preTokenizer); !s)
        return s;
    if (Status s = postProcessor(root.value("post_processor", Json()), "post_processor", impl->post); !s) return s;
    const Json decoderJson = root.value("decoder", Json());
    if (Status s = decoder(decoderJson, "decoder", impl->decoder); !s) return s;
    impl->hasDecoder = !decoderJson.is_null();
    if (Status s = readAddedTokens(root.value("added_tokens", Json()), impl->addedTokens); !s) return s;
    if (impl->kind == TokenizerKind::Bpe) {
        bool byteLevel = false;
        for (const auto &step : impl->preTokenizer) byteLevel |= step.kind == PreTokenizerStep::Kind::ByteLevel;
        for (const auto &step : impl->normalizer) byteLevel |= step.kind == NormalizerStep::Kind::ByteLevel;
        if (byteLevel) impl->kind = TokenizerKind::ByteLevelBpe;
    }
    if (Status s = impl->finalize(); !s) return s;
    return impl;
}

} // namespace

bool boolOr(const Json &obj, const char *key, bool fallback)
{
    const auto it = obj.find(key);
    return (it != obj.end() && it->is_boolean()) ? it->get<bool>() : fallback;
}

std::optional<std::int32_t> jsonId(const Json &j)
{
    if (!j.is_number_integer()) return std::nullopt;
    const auto v = j.get<std::int64_t>();
    if (v < 0 || v > std::numeric_limits<std::int32_t>::max()) return std::nullopt;
    return static_cast<std::int32_t>(v);
}

std::string joinPath(const std::string &folder, const std::string &name)
{
    if (folder.empty() || folder.back() == '/') return folder + name;
    return folder + "/" + name;
}

bool fileExists(const std::string &path)
{
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
}

Result<std::string> readTextFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status{ErrorCode::IoError, path + ": cannot open the file"};
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) return Status{ErrorCode::IoError, path + ": read error"};
    return ss.str();
}

Result<Json> parseJsonFile(const std::string &path)
{
    auto text = readTextFile(path);
    if (!text) return text.status();
    try {
        return Json::parse(*text);
    } catch (const Json::exception &e) {
        return Status{ErrorCode::FormatError, path + ": not valid JSON: " + e.what()};
    }
}

Result<std::shared_ptr<Tokenizer::Impl>> loadTokenizerJsonText(std::string_view text, const std::string &name)
{
    try {
        const Json root = Json::parse(text);
        return JsonLoader(name).load(root);
    } catch (const Json::parse_error &e) {
        return Status{ErrorCode::FormatError, name + ": not valid JSON: " + e.what()};
    } catch (const Json::exception &e) { // a field of an unexpected type that slipped past the checks
        return Status{ErrorCode::FormatError, name + ": " + e.what()};
    }
}

Result<std::shared_ptr<Tokenizer::Impl>> loadTokenizerJson(const std::string &path)
{
    auto text = readTextFile(path);
    if (!text) return text.status();
    return loadTokenizerJsonText(*text, path);
}

} // namespace attn::tokenizer
