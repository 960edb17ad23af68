// SPDX-License-Identifier: GPL-3.0-or-later
// tokenizer.json's pipeline components: normalizer, pre_tokenizer, post_processor, decoder. Every error names the
// file and the JSON field; a component that cannot be honoured exactly is refused by name.

#include "loader.h"
#include "precompiled.h"

namespace attn::tokenizer {

namespace {

// A JSON string that must be exactly one character (Metaspace's replacement, Strip's content).
std::optional<char32_t> oneChar(const Json &j)
{
    if (!j.is_string()) return std::nullopt;
    const std::u32string cps = toCodePoints(j.get<std::string>());
    if (cps.size() != 1) return std::nullopt;
    return cps[0];
}

std::optional<SplitBehavior> behaviorOf(const Json &j)
{
    if (!j.is_string()) return std::nullopt;
    const std::string b = j.get<std::string>();
    if (b == "Removed") return SplitBehavior::Removed;
    if (b == "Isolated") return SplitBehavior::Isolated;
    if (b == "MergedWithPrevious") return SplitBehavior::MergedWithPrevious;
    if (b == "MergedWithNext") return SplitBehavior::MergedWithNext;
    if (b == "Contiguous") return SplitBehavior::Contiguous;
    return std::nullopt;
}

std::optional<PrependScheme> schemeOf(const Json &j)
{
    if (!j.is_string()) return std::nullopt;
    const std::string s = j.get<std::string>();
    if (s == "always") return PrependScheme::Always;
    if (s == "first") return PrependScheme::First;
    if (s == "never") return PrependScheme::Never;
    return std::nullopt;
}

template <typename ReadOne>
Status readMembers(const JsonReader &r, const Json &j, const char *key, const std::string &field, ReadOne &&readOne)
{
    const auto it = j.find(key);
    if (it == j.end() || !it->is_array()) return r.error(field + "." + key, "expected an array");
    for (std::size_t i = 0; i < it->size(); ++i)
        if (Status s = readOne((*it)[i], field + "." + key + "[" + std::to_string(i) + "]"); !s) return s;
    return Status::ok();
}

} // namespace

Status JsonReader::error(const std::string &field, const std::string &what) const
{
    return {ErrorCode::FormatError, path + ": " + field + ": " + what};
}

Result<std::string> JsonReader::componentType(const Json &j, const std::string &field) const
{
    if (j.is_null()) return std::string();
    if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
        return error(field, "expected an object with a \"type\"");
    return j["type"].get<std::string>();
}

Result<Regex> JsonReader::pattern(const Json &j, const std::string &field) const
{
    if (!j.is_object() || j.size() != 1) return error(field, "expected {\"String\": ...} or {\"Regex\": ...}");
    const auto &[kind, value] = *j.items().begin();
    if (!value.is_string() || (kind != "String" && kind != "Regex"))
        return error(field, "expected {\"String\": ...} or {\"Regex\": ...}");
    const std::string p = value.get<std::string>();
    auto re = Regex::compile(kind == "String" ? Regex::escape(p) : p);
    if (!re) return error(field + "." + kind, re.status().message());
    return re;
}

Status JsonReader::normalizer(const Json &j, const std::string &field, std::vector<NormalizerStep> &out) const
{
    const auto typed = componentType(j, field);
    if (!typed) return typed.status();
    const std::string &type = *typed;
    using K = NormalizerStep::Kind;
    static const std::pair<const char *, K> plain[] = {{"Lowercase", K::Lowercase}, {"NFD", K::Nfd},
        {"NFKD", K::Nfkd}, {"NFC", K::Nfc}, {"NFKC", K::Nfkc}, {"StripAccents", K::StripAccents}, {"Nmt", K::Nmt},
        {"ByteLevel", K::ByteLevel}};
    if (type.empty()) return Status::ok();
    for (const auto &[name, kind] : plain)
        if (type == name) {
            out.push_back({kind});
            return Status::ok();
        }
    if (type == "BertNormalizer") {
        NormalizerStep step{K::Bert};
        step.cleanText = boolOr(j, "clean_text", true);
        step.chineseChars = boolOr(j, "handle_chinese_chars", true);
        step.lowercase = boolOr(j, "lowercase", true);
        step.stripAccents = boolOr(j, "strip_accents", step.lowercase); // null: follows lowercase
        out.push_back(step);
    } else if (type == "Strip") {
        NormalizerStep step{K::Strip};
        step.left = boolOr(j, "strip_left", true);
        step.right = boolOr(j, "strip_right", true);
        out.push_back(step);
    } else if (type == "Prepend") {
        if (!j.contains("prepend") || !j["prepend"].is_string()) return error(field + ".prepend", "expected a string");
        NormalizerStep step{K::Prepend};
        step.content = toCodePoints(j["prepend"].get<std::string>());
        out.push_back(step);
    } else if (type == "Replace") {
        auto re = pattern(j.value("pattern", Json()), field + ".pattern");
        if (!re) return re.status();
        if (!j.contains("content") || !j["content"].is_string()) return error(field + ".content", "expected a string");
        NormalizerStep step{K::Replace};
        step.regex = std::move(re).value();
        step.content = toCodePoints(j["content"].get<std::string>());
        out.push_back(std::move(step));
    } else if (type == "Precompiled") {
        const auto it = j.find("precompiled_charsmap");
        if (it == j.end() || !it->is_string())
            return error(field + ".precompiled_charsmap", "expected a base64 string");
        auto pc = Precompiled::fromBase64(it->get<std::string>());
        if (!pc) return error(field + ".precompiled_charsmap", pc.status().message());
        NormalizerStep step{K::Precompiled};
        step.precompiled = std::make_shared<const Precompiled>(std::move(pc).value());
        out.push_back(std::move(step));
    } else if (type == "Sequence") {
        return readMembers(*this, j, "normalizers", field,
                           [&](const Json &m, const std::string &f) { return normalizer(m, f, out); });
    } else {
        return error(field + ".type", "'" + type + "' is not supported");
    }
    return Status::ok();
}

Status JsonReader::preTokenizer(const Json &j, const std::string &field, std::vector<PreTokenizerStep> &out) const
{
    const auto typed = componentType(j, field);
    if (!typed) return typed.status();
    const std::string &type = *typed;
    using K = PreTokenizerStep::Kind;
    if (type.empty()) return Status::ok();
    if (type == "BertPreTokenizer") {
        out.push_back({K::Bert});
    } else if (type == "Whitespace") {
        out.push_back({K::Whitespace});
    } else if (type == "WhitespaceSplit") {
        out.push_back({K::WhitespaceSplit});
    } else if (type == "ByteLevel") {
        PreTokenizerStep step{K::ByteLevel};
        step.addPrefixSpace = boolOr(j, "add_prefix_space", true);
        step.useRegex = boolOr(j, "use_regex", true);
        out.push_back(step);
    } else if (type == "Metaspace") {
        PreTokenizerStep step{K::Metaspace};
        const auto rep = oneChar(j.value("replacement", Json()));
        if (!rep) return error(field + ".replacement", "expected a one-character string");
        step.replacement = *rep;
        step.prependScheme = PrependScheme::Always;
        if (j.contains("prepend_scheme")) {
            const auto scheme = schemeOf(j["prepend_scheme"]);
            if (!scheme) return error(field + ".prepend_scheme", "expected \"always\", \"first\" or \"never\"");
            step.prependScheme = *scheme;
        }
        // The legacy field: false means never (and contradicts any other explicit scheme, as in Hugging Face).
        if (j.contains("add_prefix_space") && j["add_prefix_space"].is_boolean() && !j["add_prefix_space"].get<bool>()) {
            if (j.contains("prepend_scheme") && step.prependScheme != PrependScheme::Never)
                return error(field + ".add_prefix_space", "false does not match prepend_scheme");
            step.prependScheme = PrependScheme::Never;
        }
        step.split = boolOr(j, "split", true);
        out.push_back(step);
    } else if (type == "Split") {
        auto re = pattern(j.value("pattern", Json()), field + ".pattern");
        if (!re) return re.status();
        const auto behavior = behaviorOf(j.value("behavior", Json()));
        if (!behavior) return error(field + ".behavior", "expected Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous");
        PreTokenizerStep step{K::Split};
        step.regex = std::move(re).value();
        step.behavior = *behavior;
        step.invert = boolOr(j, "invert", false);
        out.push_back(std::move(step));
    } else if (type == "Digits") {
        PreTokenizerStep step{K::Digits};
        step.individualDigits = boolOr(j, "individual_digits", false);
        out.push_back(step);
    } else if (type == "Punctuation") {
        PreTokenizerStep step{K::Punctuation};
        if (j.contains("behavior")) {
            const auto behavior = behaviorOf(j["behavior"]);
            if (!behavior) return error(field + ".behavior", "expected a split behaviour");
            step.behavior = *behavior;
        }
        out.push_back(step);
    } else if (type == "CharDelimiterSplit") {
        const auto d = oneChar(j.value("delimiter", Json()));
        if (!d) return error(field + ".delimiter", "expected a one-character string");
        PreTokenizerStep step{K::CharDelimiterSplit};
        step.replacement = *d;
        out.push_back(step);
    } else if (type == "Sequence") {
        return readMembers(*this, j, "pretokenizers", field,
                           [&](const Json &m, const std::string &f) { return preTokenizer(m, f, out); });
    } else {
        return error(field + ".type", "'" + type + "' is not supported");
    }
    return Status::ok();
}

Status JsonReader::specialPair(const Json &j, const std::string &field, TemplateItem &out) const
{
    if (!j.is_array() || j.size() != 2 || !j[0].is_string() || !jsonId(j[1]))
        return error(field, "expected [\"token\", id]");
    out.tokens = {j[0].get<std::string>()};
    out.ids = {*jsonId(j[1])};
    return Status::ok();
}

Status JsonReader::templateItems(const Json &j, const Json &specials, const std::string &field,
                                 std::vector<TemplateItem> &out) const
{
    if (!j.is_array()) return error(field, "expected an array");
    for (std::size_t i = 0; i < j.size(); ++i) {
        const Json &piece = j[i];
        const std::string pf = field + "[" + std::to_string(i) + "]";
        TemplateItem t;
        auto typeId = [&](const Json &p) -> Status {
            const auto it = p.find("type_id");
            if (it == p.end()) return Status::ok();
            const auto v = jsonId(*it);
            if (!v) return error(pf + ".type_id", "expected a non-negative integer");
            t.typeId = *v;
            return Status::ok();
        };
        if (piece.is_object() && piece.contains("Sequence") && piece["Sequence"].is_object()) {
            const Json &seq = piece["Sequence"];
            t.isSequence = true;
            const std::string id = seq.value("id", std::string("A"));
            if (id != "A" && id != "B") return error(pf + ".Sequence.id", "expected \"A\" or \"B\"");
            t.sequence = id == "A" ? 0 : 1;
            if (Status s = typeId(seq); !s) return s;
        } else if (piece.is_object() && piece.contains("SpecialToken") && piece["SpecialToken"].is_object()
                   && piece["SpecialToken"].contains("id") && piece["SpecialToken"]["id"].is_string()) {
            const Json &sp = piece["SpecialToken"];
            const auto name = sp["id"].get<std::string>();
            if (!specials.is_object() || !specials.contains(name))
                return error(field.substr(0, field.rfind('.')) + ".special_tokens",
                             "'" + name + "' is used by the template but not defined");
            const Json &def = specials[name];
            const auto ids = def.find("ids"), tokens = def.find("tokens");
            if (ids == def.end() || tokens == def.end() || !ids->is_array() || !tokens->is_array()
                || ids->size() != tokens->size())
                return error(field.substr(0, field.rfind('.')) + ".special_tokens." + name,
                             "expected \"ids\" and \"tokens\" of equal length");
            for (std::size_t k = 0; k < ids->size(); ++k) {
                const auto id = jsonId((*ids)[k]);
                if (!id || !(*tokens)[k].is_string())
                    return error(field.substr(0, field.rfind('.')) + ".special_tokens." + name,
                                 "bad id or token at " + std::to_string(k));
                t.ids.push_back(*id);
                t.tokens.push_back((*tokens)[k].get<std::string>());
            }
            if (Status s = typeId(sp); !s) return s;
        } else {
            return error(pf, "expected {\"Sequence\": ...} or {\"SpecialToken\": {\"id\": ...}}");
        }
        out.push_back(std::move(t));
    }
    return Status::ok();
}

Status JsonReader::postProcessor(const Json &j, const std::string &field, PostProcessor &out) const
{
    const auto typed = componentType(j, field);
    if (!typed) return typed.status();
    const std::string &type = *typed;
    if (type.empty()) return Status::ok();
    out.present = true;
    using K = PostStep::Kind;
    if (type == "BertProcessing" || type == "RobertaProcessing") {
        PostStep step{type == "BertProcessing" ? K::Bert : K::Roberta};
        if (Status s = specialPair(j.value("cls", Json()), field + ".cls", step.cls); !s) return s;
        if (Status s = specialPair(j.value("sep", Json()), field + ".sep", step.sep); !s) return s;
        step.trimOffsets = boolOr(j, "trim_offsets", true);
        step.addPrefixSpace = boolOr(j, "add_prefix_space", true);
        out.steps.push_back(std::move(step));
    } else if (type == "ByteLevel") {
        PostStep step{K::ByteLevel};
        step.trimOffsets = boolOr(j, "trim_offsets", true);
        step.addPrefixSpace = boolOr(j, "add_prefix_space", true);
        out.steps.push_back(std::move(step));
    } else if (type == "TemplateProcessing") {
        PostStep step{K::Template};
        const Json specials = j.value("special_tokens", Json::object());
        if (Status s = templateItems(j.value("single", Json()), specials, field + ".single", step.single); !s) return s;
        if (j.contains("pair"))
            if (Status s = templateItems(j["pair"], specials, field + ".pair", step.pair); !s) return s;
        out.steps.push_back(std::move(step));
    } else if (type == "Sequence") {
        return readMembers(*this, j, "processors", field,
                           [&](const Json &m, const std::string &f) { return postProcessor(m, f, out); });
    } else {
        return error(field + ".type", "'" + type + "' is not supported");
    }
    return Status::ok();
}

Status JsonReader::decoder(const Json &j, const std::string &field, std::vector<DecoderStep> &out) const
{
    const auto typed = componentType(j, field);
    if (!typed) return typed.status();
    const std::string &type = *typed;
    using K = DecoderStep::Kind;
    if (type.empty()) return Status::ok();
    if (type == "ByteLevel") {
        out.push_back({K::ByteLevel});
    } else if (type == "ByteFallback") {
        out.push_back({K::ByteFallback});
    } else if (type == "Fuse") {
        out.push_back({K::Fuse});
    } else if (type == "WordPiece") {
        DecoderStep step{K::WordPiece};
        if (const auto p = j.find("prefix"); p != j.end() && p->is_string()) step.prefix = p->get<std::string>();
        step.cleanup = boolOr(j, "cleanup", true);
        out.push_back(std::move(step));
    } else if (type == "BPEDecoder") {
        DecoderStep step{K::Bpe};
        step.prefix = j.value("suffix", std::string("</w>"));
        out.push_back(std::move(step));
    } else if (type == "Metaspace") {
        DecoderStep step{K::Metaspace};
        const auto rep = oneChar(j.value("replacement", Json()));
        if (!rep) return error(field + ".replacement", "expected a one-character string");
        step.replacement = *rep;
        if (j.contains("prepend_scheme")) {
            const auto scheme = schemeOf(j["prepend_scheme"]);
            if (!scheme) return error(field + ".prepend_scheme", "expected \"always\", \"first\" or \"never\"");
            step.prependScheme = *scheme;
        }
        if (j.contains("add_prefix_space") && j["add_prefix_space"].is_boolean() && !j["add_prefix_space"].get<bool>())
            step.prependScheme = PrependScheme::Never;
        out.push_back(std::move(step));
    } else if (type == "Strip") {
        DecoderStep step{K::Strip};
        const auto c = oneChar(j.value("content", Json()));
        const auto start = jsonId(j.value("start", Json())), stop = jsonId(j.value("stop", Json()));
        if (!c) return error(field + ".content", "expected a one-character string");
        if (!start || !stop) return error(field + ".start", "expected non-negative integers start and stop");
        step.content = *c;
        step.start = static_cast<std::size_t>(*start);
        step.stop = static_cast<std::size_t>(*stop);
        out.push_back(std::move(step));
    } else if (type == "Replace") {
        auto re = pattern(j.value("pattern", Json()), field + ".pattern");
        if (!re) return re.status();
        if (!j.contains("content") || !j["content"].is_string()) return error(field + ".content", "expected a string");
        DecoderStep step{K::Replace};
        step.regex = std::move(re).value();
        step.replaceContent = j["content"].get<std::string>();
        out.push_back(std::move(step));
    } else if (type == "CTC") {
        DecoderStep step{K::Ctc};
        step.padToken = j.value("pad_token", std::string("<pad>"));
        step.wordDelimiter = j.value("word_delimiter_token", std::string("|"));
        step.cleanup = boolOr(j, "cleanup", true);
        out.push_back(std::move(step));
    } else if (type == "Sequence") {
        return readMembers(*this, j, "decoders", field,
                           [&](const Json &m, const std::string &f) { return decoder(m, f, out); });
    } else {
        return error(field + ".type", "'" + type + "' is not supported");
    }
    return Status::ok();
}

} // namespace attn::tokenizer
