// SPDX-License-Identifier: GPL-3.0-or-later
// tokenizer.json (Hugging Face tokenizers' serialization). Every error names the file and the JSON field.

#include "loader.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace attn::tokenizer {

namespace {

Status formatError(const std::string &path, const std::string &field, const std::string &what)
{
    return {ErrorCode::FormatError, path + ": " + field + ": " + what};
}

std::string typeName(const Json &j) { return j.type_name(); }

// A JSON id: an integer in [0, 2^31).
std::optional<std::int32_t> jsonId(const Json &j)
{
    if (!j.is_number_integer()) return std::nullopt;
    const auto v = j.get<std::int64_t>();
    if (v < 0 || v > std::numeric_limits<std::int32_t>::max()) return std::nullopt;
    return static_cast<std::int32_t>(v);
}

bool boolOr(const Json &obj, const char *key, bool fallback)
{
    const auto it = obj.find(key);
    return (it != obj.end() && it->is_boolean()) ? it->get<bool>() : fallback;
}

class JsonLoader {
public:
    explicit JsonLoader(std::string path) : m_path(std::move(path)) {}

    Result<std::shared_ptr<Tokenizer::Impl>> load(const Json &root);

private:
    Status error(const std::string &field, const std::string &what) const { return formatError(m_path, field, what); }
    // The "type" of a pipeline component (normalizer, pre_tokenizer, ...); empty for null: no component.
    Result<std::string> componentType(const Json &j, const std::string &field) const
    {
        if (j.is_null()) return std::string();
        if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
            return error(field, "expected an object with a \"type\"");
        return j["type"].get<std::string>();
    }
    // The members of a "Sequence" component, each read by readOne(member, its field name).
    template <typename ReadOne>
    Status readSequence(const Json &j, const char *key, const std::string &field, ReadOne &&readOne)
    {
        const auto it = j.find(key);
        if (it == j.end() || !it->is_array()) return error(field + "." + key, "expected an array");
        for (std::size_t i = 0; i < it->size(); ++i)
            if (Status s = readOne((*it)[i], field + "." + key + "[" + std::to_string(i) + "]"); !s) return s;
        return Status::ok();
    }
    Status readVocab(const Json &model, Vocab &vocab);
    Status readModel(const Json &model, Tokenizer::Impl &impl);
    Status readNormalizer(const Json &j, const std::string &field, std::vector<NormalizerStep> &out);
    Status readPreTokenizer(const Json &j, const std::string &field, std::vector<PreTokenizerStep> &out);
    Status readPostProcessor(const Json &j, const std::string &field, PostProcessor &out);
    Status readDecoder(const Json &j, Decoder &out);
    Status readAddedTokens(const Json &j, std::vector<AddedToken> &out);
    Status readSpecialPair(const Json &j, const std::string &field, TemplatePiece &out);

    std::string m_path;
};

Status JsonLoader::readVocab(const Json &model, Vocab &vocab)
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

Status JsonLoader::readModel(const Json &model, Tokenizer::Impl &impl)
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
    } else {
        return error("model.type", "missing");
    }

    if (type == "WordPiece") {
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
    if (type != "BPE")
        return error("model.type", "'" + type + "' is not supported (WordPiece and BPE are)");

    auto &bpe = impl.model.emplace<BpeModel>();
    if (Status s = readVocab(model, bpe.vocab); !s) return s;
    for (const char *key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
        const auto it = model.find(key);
        if (it != model.end() && it->is_string() && !it->get<std::string>().empty())
            return error(std::string("model.") + key, "is not supported (only byte-level BPE without affixes)");
    }
    if (boolOr(model, "byte_fallback", false)) return error("model.byte_fallback", "true is not supported yet");
    bpe.fuseUnk = boolOr(model, "fuse_unk", false);
    bpe.ignoreMerges = boolOr(model, "ignore_merges", false);
    if (const auto u = model.find("unk_token"); u != model.end() && u->is_string()) {
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
        if (Status s = bpe.addMerge(a, b, m_path + ": " + field); !s) return s;
    }
    impl.kind = TokenizerKind::ByteLevelBpe;
    return Status::ok();
}

Status JsonLoader::readNormalizer(const Json &j, const std::string &field, std::vector<NormalizerStep> &out)
{
    const auto typed = componentType(j, field);
    if (!typed) return typed.status();
    const std::string &type = *typed;
    if (type.empty()) return Status::ok();
    if (type == "BertNormalizer") {
        NormalizerStep step{NormalizerStep::Kind::Bert};
        step.cleanText = boolOr(j, "clean_text", true);
        step.chineseChars = boolOr(j, "handle_chinese_chars", true);
        step.lowercase = boolOr(j, "lowercase", true);
        step.stripAccents = boolOr(j, "strip_accents", step.lowercase); // null: follows lowercase
        out.push_back(step);
    } else if (type == "Lowercase") {
        out.push_back({NormalizerStep::Kind::Lowercase});
    } else if (type == "NFD") {
        out.push_back({NormalizerStep::Kind::Nfd});
    } else if (type == "StripAccents") {
        out.push_back({NormalizerStep::Kind::StripAccents});
    } else if (type == "Sequence") {
        return readSequence(j, "normalizers", field,
                            [&](const Json &m, const std::string &f) { return readNormalizer(m, f, out); });
    } else {
        return error(field + ".type", "'" + type + "' is not supported");
    }
    return Status::ok();
}

Status JsonLoader::readPreTokenizer(const Json &j, const std::string &field, std::vector<PreTokenizerStep> &out)
{
    const auto typed = componentType(j, field);
    if (!typed) return typed.status();
    const std::string &type = *typed;
    if (type.empty()) return Status::ok();
    if (type == "BertPreTokenizer") {
        out.push_back({PreTokenizerStep::Kind::Bert});
    } else if (type == "ByteLevel") {
        PreTokenizerStep step{PreTokenizerStep::Kind::ByteLevel};
        step.addPrefixSpace = boolOr(j, "add_prefix_space", true);
        step.useRegex = boolOr(j, "use_regex", true);
        out.push_back(step);
    } else if (type == "Sequence") {
        return readSequence(j, "pretokenizers", field,
                            [&](const Json &m, const std::string &f) { return readPreTokenizer(m, f, out); });
    } else {
        return error(field + ".type", "'" + type + "' is not supported");
    }
    return Status::ok();
}

Status JsonLoader::readSpecialPair(const Json &j, const std::string &field, TemplatePiece &out)
{
    if (!j.is_array() || j.size() != 2 || !j[0].is_string() || !jsonId(j[1]))
        return error(field, "expected [\"token\", id]");
    out.tokens = {j[0].get<std::string>()};
    out.ids = {*jsonId(j[1])};
    return Status::ok();
}

Status JsonLoader::readPostProcessor(const Json &j, const std::string &field, PostProcessor &out)
{
    const auto typed = componentType(j, field);
    if (!typed) return typed.status();
    const std::string &type = *typed;
    if (type.empty()) return Status::ok();
    if (type == "BertProcessing" || type == "RobertaProcessing") {
        TemplatePiece cls, sep;
        if (Status s = readSpecialPair(j.value("cls", Json()), field + ".cls", cls); !s) return s;
        if (Status s = readSpecialPair(j.value("sep", Json()), field + ".sep", sep); !s) return s;
        TemplatePiece seq;
        seq.isSequence = true;
        out.single = {cls, seq, sep};
        if (type == "RobertaProcessing") {
            out.trimOffsets = boolOr(j, "trim_offsets", true);
            out.trimAddPrefixSpace = boolOr(j, "add_prefix_space", true);
        }
    } else if (type == "ByteLevel") {
        out.trimOffsets = boolOr(j, "trim_offsets", true);
        out.trimAddPrefixSpace = boolOr(j, "add_prefix_space", true);
    } else if (type == "TemplateProcessing") {
        const auto single = j.find("single");
        if (single == j.end() || !single->is_array()) return error(field + ".single", "expected an array");
        const Json specials = j.value("special_tokens", Json::object());
        out.single.clear();
        for (std::size_t i = 0; i < single->size(); ++i) {
            const Json &piece = (*single)[i];
            const std::string pf = field + ".single[" + std::to_string(i) + "]";
            TemplatePiece t;
            if (piece.contains("Sequence")) {
                t.isSequence = true;
            } else if (piece.contains("SpecialToken") && piece["SpecialToken"].contains("id")
                       && piece["SpecialToken"]["id"].is_string()) {
                const auto name = piece["SpecialToken"]["id"].get<std::string>();
                if (!specials.is_object() || !specials.contains(name))
                    return error(field + ".special_tokens", "'" + name + "' is used by the template but not defined");
                const Json &def = specials[name];
                const auto ids = def.find("ids"), tokens = def.find("tokens");
                if (ids == def.end() || tokens == def.end() || !ids->is_array() || !tokens->is_array()
                    || ids->size() != tokens->size())
                    return error(field + ".special_tokens." + name, "expected \"ids\" and \"tokens\" of equal length");
                for (std::size_t k = 0; k < ids->size(); ++k) {
                    const auto id = jsonId((*ids)[k]);
                    if (!id || !(*tokens)[k].is_string())
                        return error(field + ".special_tokens." + name, "bad id or token at " + std::to_string(k));
                    t.ids.push_back(*id);
                    t.tokens.push_back((*tokens)[k].get<std::string>());
                }
            } else {
                return error(pf, "expected {\"Sequence\": ...} or {\"SpecialToken\": {\"id\": ...}}");
            }
            out.single.push_back(std::move(t));
        }
    } else if (type == "Sequence") {
        return readSequence(j, "processors", field,
                            [&](const Json &m, const std::string &f) { return readPostProcessor(m, f, out); });
    } else {
        return error(field + ".type", "'" + type + "' is not supported");
    }
    return Status::ok();
}

Status JsonLoader::readDecoder(const Json &j, Decoder &out)
{
    const auto typed = componentType(j, "decoder");
    if (!typed) return typed.status();
    const std::string &type = *typed;
    if (type.empty()) return Status::ok();
    if (type == "WordPiece") {
        out.kind = Decoder::Kind::WordPiece;
        if (const auto p = j.find("prefix"); p != j.end() && p->is_string()) out.prefix = p->get<std::string>();
        out.cleanup = boolOr(j, "cleanup", true);
    } else if (type == "ByteLevel") {
        out.kind = Decoder::Kind::ByteLevel;
    } else {
        return error("decoder.type", "'" + type + "' is not supported");
    }
    return Status::ok();
}

Status JsonLoader::readAddedTokens(const Json &j, std::vector<AddedToken> &out)
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
    impl->source = m_path;
    const auto model = root.find("model");
    if (model == root.end()) return error("model", "missing");
    if (Status s = readModel(*model, *impl); !s) return s;
    if (Status s = readNormalizer(root.value("normalizer", Json()), "normalizer", impl->normalizer); !s) return s;
    if (Status s = readPreTokenizer(root.value("pre_tokenizer", Json()), "pre_tokenizer", impl->preTokenizer); !s)
        return s;
    if (Status s = readPostProcessor(root.value("post_processor", Json()), "post_processor", impl->post); !s) return s;
    if (Status s = readDecoder(root.value("decoder", Json()), impl->decoder); !s) return s;
    if (Status s = readAddedTokens(root.value("added_tokens", Json()), impl->addedTokens); !s) return s;
    if (impl->kind == TokenizerKind::ByteLevelBpe) {
        bool byteLevel = false;
        for (const auto &step : impl->preTokenizer) byteLevel |= step.kind == PreTokenizerStep::Kind::ByteLevel;
        if (!byteLevel)
            return error("pre_tokenizer", "a BPE model needs a ByteLevel pre-tokenizer here (only byte-level BPE "
                                          "is supported)");
    }
    if (Status s = impl->finalize(); !s) return s;
    return impl;
}

} // namespace

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

Result<std::shared_ptr<Tokenizer::Impl>> loadTokenizerJson(const std::string &path)
{
    auto root = parseJsonFile(path);
    if (!root) return root.status();
    try {
        return JsonLoader(path).load(*root);
    } catch (const Json::exception &e) { // a field of an unexpected type that slipped past the checks
        return Status{ErrorCode::FormatError, path + ": " + e.what()};
    }
}

} // namespace attn::tokenizer
