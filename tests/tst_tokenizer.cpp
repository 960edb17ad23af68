// SPDX-License-Identifier: GPL-3.0-or-later
// Tokenizers against Hugging Face `tokenizers`: every string of tests/fixtures/tokenizers/expected.json, through
// every form of every test tokenizer (tokenizer.json, legacy files, merges as strings, prefix space + trimmed
// offsets), must give exactly HF's ids, offsets (bytes), special flags and decoded text. Then the API's promises
// (special ids, labels from offsets, threads) and one row per bad tokenizer file.

#include "tokenizer/pipeline.h"

#include <attnscope/tokenizer.h>

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <thread>

using namespace attn;
using Json = nlohmann::json;

namespace {

const std::string kFixtures = std::string(ATTNSCOPE_TEST_DATA_DIR) + "/fixtures/tokenizers";

Json readJson(const std::string &path);

const Json &expected()
{
    static const Json j = readJson(kFixtures + "/expected.json");
    return j;
}

Json readJson(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return Json::parse(ss.str(), nullptr, false);
}

void writeFile(const std::string &path, const std::string &content)
{
    std::ofstream out(path, std::ios::binary);
    out << content;
}

// How one form of a tokenizer is opened: a fixture folder in a format, or a variant of variants.json.
struct Form {
    std::string folder; // under kFixtures
    TokenizerFormat format = TokenizerFormat::Auto;
    std::string variant;
};

// variants.json: the base folder's tokenizer.json with top-level fields replaced and, optionally, the merges
// written as "a b" strings — applied exactly as tools/make_tokenizer_fixtures.py applies them.
Result<Tokenizer> openVariant(const std::string &name, const std::string &scratch)
{
    const Json variant = readJson(kFixtures + "/variants.json").at(name);
    Json spec = readJson(kFixtures + "/" + variant.at("base").get<std::string>() + "/tokenizer.json");
    spec.update(variant.at("replace"));
    if (variant.value("merges_as_strings", false))
        for (Json &m : spec["model"]["merges"])
            if (m.is_array()) m = m[0].get<std::string>() + " " + m[1].get<std::string>();
    const std::string path = scratch + "/tokenizer.json";
    writeFile(path, spec.dump());
    return Tokenizer::fromTokenizerJson(path);
}

std::string escaped(const std::string &s)
{
    return Json(s).dump();
}

template <typename T>
std::string list(const std::vector<T> &v)
{
    return Json(v).dump();
}


} // namespace

Q_DECLARE_METATYPE(Form)
Q_DECLARE_METATYPE(attn::ErrorCode)

class TstTokenizer : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void parity_data();
    void parity();
    void specialTokenIds();
    void withoutSpecialTokens();
    void offsetsLabelTheText();
    void invalidUtf8();
    void gpt2Pattern();
    void concurrentEncode();
    void badFiles_data();
    void badFiles();
};

void TstTokenizer::initTestCase()
{
    QVERIFY2(!expected().is_discarded(), "tests/fixtures/tokenizers/expected.json is missing or broken");
    QVERIFY(expected()["texts"].size() >= 200);
}

void TstTokenizer::parity_data()
{
    QTest::addColumn<Form>("form");
    QTest::addColumn<QString>("reference");
    QTest::addRow("bert-uncased tokenizer.json") << Form{"bert-uncased", TokenizerFormat::TokenizerJson} << "bert-uncased";
    QTest::addRow("bert-uncased vocab.txt") << Form{"bert-uncased", TokenizerFormat::Legacy} << "bert-uncased";
    QTest::addRow("bert-cased tokenizer.json") << Form{"bert-cased", TokenizerFormat::Auto} << "bert-cased";
    QTest::addRow("bert-cased vocab.txt") << Form{"bert-cased", TokenizerFormat::Legacy} << "bert-cased";
    QTest::addRow("gpt2 tokenizer.json") << Form{"gpt2-bpe", TokenizerFormat::TokenizerJson} << "gpt2-bpe/tokenizer";
    QTest::addRow("gpt2 vocab.json+merges.txt") << Form{"gpt2-bpe", TokenizerFormat::Legacy} << "gpt2-bpe/tokenizer";
    const Json variants = readJson(kFixtures + "/variants.json");
    QVERIFY(variants.is_object() && variants.size() >= 4);
    for (const auto &[name, v] : variants.items())
        QTest::addRow("%s", name.c_str()) << Form{"", TokenizerFormat::Auto, name}
                                          << QString::fromStdString(v.at("expected").get<std::string>());
}

void TstTokenizer::parity()
{
    QFETCH(Form, form);
    QFETCH(QString, reference);
    QTemporaryDir scratch;
    QVERIFY(scratch.isValid());
    auto tok = form.variant.empty() ? Tokenizer::fromFolder(kFixtures + "/" + form.folder, form.format)
                                    : openVariant(form.variant, scratch.path().toStdString());
    QVERIFY2(tok.isOk(), tok.status().message().c_str());
    const Json &texts = expected()["texts"];
    const Json &rows = expected()["tokenizers"][reference.toStdString()];
    QCOMPARE(rows.size(), texts.size());

    std::size_t exact = 0;
    std::vector<std::string> failures;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        const auto text = texts[i].get<std::string>();
        const Json &row = rows[i];
        auto enc = tok->encode(text);
        if (!enc) {
            failures.push_back(escaped(text) + ": " + enc.status().message());
            continue;
        }
        // [ids, offsets (flattened), positions of special tokens, decoded or null when equal to the text]
        const auto ids = row[0].get<std::vector<std::int32_t>>();
        const auto offsets = row[1].get<std::vector<std::size_t>>();
        const auto special = row[2].get<std::vector<std::size_t>>();
        const auto decoded = row[3].is_null() ? text : row[3].get<std::string>();
        std::vector<std::size_t> gotOffsets, gotSpecial;
        bool tokensMatch = enc->tokens.size() == enc->ids.size();
        for (std::size_t k = 0; k < enc->size(); ++k) {
            gotOffsets.push_back(enc->begins[k]);
            gotOffsets.push_back(enc->ends[k]);
            if (enc->special[k]) gotSpecial.push_back(k);
            const std::string key = std::to_string(k);
            const bool odd = row.size() > 4 && row[4].contains(key);
            tokensMatch = tokensMatch && enc->tokens[k] == (odd ? row[4][key].get<std::string>() : tok->idToToken(enc->ids[k]));
        }
        const std::string gotDecoded = tok->decode(enc->ids);
        std::string what;
        if (enc->ids != ids)
            what = "ids " + list(enc->ids) + " expected " + list(ids) + " tokens " + list(enc->tokens);
        else if (gotOffsets != offsets)
            what = "offsets " + list(gotOffsets) + " expected " + list(offsets);
        else if (gotSpecial != special)
            what = "special " + list(gotSpecial) + " expected " + list(special);
        else if (!tokensMatch)
            what = "tokens " + list(enc->tokens) + " differ from Hugging Face's";
        else if (gotDecoded != decoded)
            what = "decoded " + escaped(gotDecoded) + " expected " + escaped(decoded);
        if (what.empty())
            ++exact;
        else
            failures.push_back("#" + std::to_string(i) + " " + escaped(text) + ": " + what);
    }
    for (std::size_t k = 0; k < failures.size() && k < 10; ++k) qWarning("%s", failures[k].c_str());
    qInfo("%zu of %zu strings exact", exact, texts.size());
    QCOMPARE(failures.size(), std::size_t(0));
}

void TstTokenizer::specialTokenIds()
{
    for (auto format : {TokenizerFormat::TokenizerJson, TokenizerFormat::Legacy}) {
        auto bert = Tokenizer::fromFolder(kFixtures + "/bert-uncased", format);
        QVERIFY2(bert.isOk(), bert.status().message().c_str());
        QCOMPARE(bert->kind(), TokenizerKind::WordPiece);
        const SpecialTokenIds &s = bert->specialTokenIds();
        QCOMPARE(s.pad, 0);
        QCOMPARE(s.unk, 1);
        QCOMPARE(s.cls, 2);
        QCOMPARE(s.sep, 3);
        QCOMPARE(s.mask, 4);
        QCOMPARE(s.bos, -1);
        QVERIFY(bert->isSpecialId(4));
        QCOMPARE(bert->tokenToId("[MASK]"), std::optional<std::int32_t>(4));
        QCOMPARE(bert->idToToken(2), std::string("[CLS]"));
        QCOMPARE(bert->idToToken(1 << 30), std::string());

        auto gpt2 = Tokenizer::fromFolder(kFixtures + "/gpt2-bpe", format);
        QVERIFY2(gpt2.isOk(), gpt2.status().message().c_str());
        QCOMPARE(gpt2->kind(), TokenizerKind::ByteLevelBpe);
        QCOMPARE(gpt2->vocabSize(), std::size_t(1800));
        QCOMPARE(gpt2->specialTokenIds().eos, 0);
        QCOMPARE(gpt2->specialTokenIds().bos, 0);
        QCOMPARE(gpt2->specialTokenIds().cls, -1);
    }
}

void TstTokenizer::withoutSpecialTokens()
{
    auto bert = Tokenizer::fromFolder(kFixtures + "/bert-cased");
    QVERIFY(bert.isOk());
    auto framed = bert->encode("Hello world");
    auto bare = bert->encode("Hello world", false);
    QVERIFY(framed.isOk() && bare.isOk());
    QCOMPARE(framed->size(), bare->size() + 2);
    QCOMPARE(framed->ids.front(), bert->specialTokenIds().cls);
    QCOMPARE(framed->ids.back(), bert->specialTokenIds().sep);
    QCOMPARE(std::vector<std::int32_t>(framed->ids.begin() + 1, framed->ids.end() - 1), bare->ids);
    auto empty = bert->encode("");
    QVERIFY(empty.isOk());
    QCOMPARE(empty->size(), std::size_t(2));
}

// The UI labels each token with text.substr(begin, end - begin).
void TstTokenizer::offsetsLabelTheText()
{
    auto gpt2 = Tokenizer::fromFolder(kFixtures + "/gpt2-bpe");
    QVERIFY(gpt2.isOk());
    const std::string text = "Hello world, café!";
    auto enc = gpt2->encode(text);
    QVERIFY(enc.isOk());
    std::string joined;
    for (std::size_t k = 0; k < enc->size(); ++k) {
        QVERIFY(enc->begins[k] <= enc->ends[k] && enc->ends[k] <= text.size());
        joined += text.substr(enc->begins[k], enc->ends[k] - enc->begins[k]);
    }
    QCOMPARE(joined, text);
    QCOMPARE(gpt2->decode(enc->ids), text);

    auto bert = Tokenizer::fromFolder(kFixtures + "/bert-uncased");
    QVERIFY(bert.isOk());
    auto b = bert->encode("CAFÉ");
    QVERIFY(b.isOk());
    QCOMPARE(b->begins[1], std::size_t(0));
    QCOMPARE(b->ends.end()[-2], std::size_t(5)); // É is two bytes; "cafe" covers the whole original word
}

void TstTokenizer::invalidUtf8()
{
    auto gpt2 = Tokenizer::fromFolder(kFixtures + "/gpt2-bpe");
    QVERIFY(gpt2.isOk());
    for (const std::string bad : {std::string("ab\xC3"), std::string("\xFF"), std::string("a\xED\xA0\x80")}) {
        auto enc = gpt2->encode(bad);
        QVERIFY(!enc.isOk());
        QCOMPARE(enc.status().code(), ErrorCode::InvalidArgument);
        QVERIFY(enc.status().message().find("UTF-8") != std::string::npos);
    }
    // Decoding ids that split a character gives U+FFFD, as Hugging Face does.
    auto enc = gpt2->encode("🧬"); // not in the training text: several byte tokens
    QVERIFY(enc.isOk());
    QVERIFY(enc->size() >= 2);
    QCOMPARE(gpt2->decode({enc->ids.front()}), std::string("\xEF\xBF\xBD"));
}

// The table of reference/formats-and-libraries.md §5, checked there against Python's regex module.
void TstTokenizer::gpt2Pattern()
{
    auto pieces = [](const std::string &s) {
        tokenizer::NormalizedText text;
        tokenizer::decodeUtf8(s, text.chars);
        std::vector<std::string> out;
        for (const auto &span : tokenizer::regexSpans(tokenizer::gpt2Regex(), text))
            out.push_back(tokenizer::toUtf8(text.chars, span.from, span.to));
        return out;
    };
    QCOMPARE(pieces("Hello world's  café 123!!  ünïcode\n"),
             (std::vector<std::string>{"Hello", " world", "'s", " ", " café", " 123", "!!", " ", " ünïcode", "\n"}));
    QCOMPARE(pieces("x!\u00A0y\u3000z \u2003!"),
             (std::vector<std::string>{"x", "!", "\u00A0", "y", "\u3000", "z", " ", "\u2003", "!"}));
    QCOMPARE(pieces("a\t\tb  "), (std::vector<std::string>{"a", "\t", "\t", "b", "  "}));
}

void TstTokenizer::concurrentEncode()
{
    auto gpt2 = Tokenizer::fromFolder(kFixtures + "/gpt2-bpe");
    QVERIFY(gpt2.isOk());
    const Json &texts = expected()["texts"];
    std::vector<std::vector<std::int32_t>> serial;
    for (const auto &t : texts) serial.push_back(gpt2->encode(t.get<std::string>())->ids);
    const Tokenizer fresh = *Tokenizer::fromFolder(kFixtures + "/gpt2-bpe"); // cold cache
    std::vector<int> ok(4, 1);
    std::vector<std::thread> threads;
    for (int w = 0; w < 4; ++w)
        threads.emplace_back([&, w] {
            for (std::size_t i = static_cast<std::size_t>(w); i < texts.size() * 2; i += 3) {
                const std::size_t k = i % texts.size();
                if (fresh.encode(texts[k].get<std::string>())->ids != serial[k]) ok[static_cast<std::size_t>(w)] = 0;
            }
        });
    for (auto &t : threads) t.join();
    QCOMPARE(ok, std::vector<int>(4, 1));
}

// ---- bad files --------------------------------------------------------------------------------------------------

namespace {
using Files = std::map<QString, std::string>;

const char *kBertVocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\n##s\n";
const char *kGptVocab = R"({"a": 0, "b": 1, "ab": 2, "<|endoftext|>": 3})";

// A small tokenizer.json around `model`; `changes` (a JSON object) replaces top-level fields.
std::string tokenizerJson(const std::string &model, const std::string &changes = "{}")
{
    Json j = Json::parse(R"({"version": "1.0", "added_tokens": [], "normalizer": null,
                             "pre_tokenizer": {"type": "ByteLevel"}, "post_processor": null, "decoder": null})");
    j["model"] = Json::parse(model);
    j.update(Json::parse(changes));
    return j.dump();
}
} // namespace

void TstTokenizer::badFiles_data()
{
    QTest::addColumn<Files>("files");
    QTest::addColumn<int>("format");
    QTest::addColumn<attn::ErrorCode>("code");
    QTest::addColumn<QStringList>("mentions"); // the message names the file and the field

    const auto legacy = static_cast<int>(TokenizerFormat::Legacy), json = static_cast<int>(TokenizerFormat::TokenizerJson);
    const auto fmt = ErrorCode::FormatError, io = ErrorCode::IoError;
    const std::string bpeModel = R"({"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]})";

    QTest::addRow("no tokenizer files") << Files{{"config.json", "{}"}} << legacy << io << QStringList{"no tokenizer files"};
    QTest::addRow("vocab.txt empty") << Files{{"vocab.txt", ""}} << legacy << fmt << QStringList{"vocab.txt", "empty"};
    QTest::addRow("vocab.txt not UTF-8") << Files{{"vocab.txt", "[UNK]\nbad\xFF\n"}} << legacy << fmt
                                         << QStringList{"vocab.txt", "line 2", "UTF-8"};
    QTest::addRow("vocab.txt binary") << Files{{"vocab.txt", std::string("[UNK]\nx\0y\n", 10)}} << legacy << fmt
                                      << QStringList{"vocab.txt", "line 2", "NUL"};
    QTest::addRow("vocab.txt without [UNK]") << Files{{"vocab.txt", "[CLS]\n[SEP]\nhello\n"}} << legacy << fmt
                                             << QStringList{"vocab.txt", "[UNK]"};
    QTest::addRow("vocab.txt without [SEP]") << Files{{"vocab.txt", "[UNK]\n[CLS]\nhello\n"}} << legacy << fmt
                                             << QStringList{"vocab.txt", "[SEP]"};
    QTest::addRow("tokenizer_config.json broken")
        << Files{{"vocab.txt", kBertVocab}, {"tokenizer_config.json", "{\"do_lower_case\": tru"}} << legacy << fmt
        << QStringList{"tokenizer_config.json", "not valid JSON"};
    QTest::addRow("tokenizer_config.json do_lower_case type")
        << Files{{"vocab.txt", kBertVocab}, {"tokenizer_config.json", "{\"do_lower_case\": \"yes\"}"}} << legacy << fmt
        << QStringList{"tokenizer_config.json", "do_lower_case"};
    QTest::addRow("added_tokens_decoder entry a string")
        << Files{{"vocab.txt", kBertVocab}, {"tokenizer_config.json", R"({"added_tokens_decoder": {"5": "[X]"}})"}}
        << legacy << fmt << QStringList{"tokenizer_config.json"};
    QTest::addRow("added_tokens_decoder bad key")
        << Files{{"vocab.txt", kBertVocab}, {"tokenizer_config.json", R"({"added_tokens_decoder": {"x": {"content": "[X]"}}})"}}
        << legacy << fmt << QStringList{"tokenizer_config.json", "added_tokens_decoder[\"x\"]"};
    QTest::addRow("vocab.json not an object") << Files{{"vocab.json", "[\"a\", \"b\"]"}, {"merges.txt", "#version: 0.2\n"}}
                                              << legacy << fmt << QStringList{"vocab.json", "object", "array"};
    QTest::addRow("vocab.json not JSON") << Files{{"vocab.json", "{\"a\": 0,"}, {"merges.txt", ""}} << legacy << fmt
                                         << QStringList{"vocab.json", "not valid JSON"};
    QTest::addRow("vocab.json id not a number") << Files{{"vocab.json", R"({"a": "0"})"}, {"merges.txt", ""}} << legacy
                                                << fmt << QStringList{"vocab.json", "\"a\"", "integer"};
    QTest::addRow("vocab.json negative id") << Files{{"vocab.json", R"({"a": -1})"}, {"merges.txt", ""}} << legacy << fmt
                                            << QStringList{"vocab.json", "\"a\""};
    QTest::addRow("vocab.json sparse ids") << Files{{"vocab.json", R"({"a": 0, "b": 2000000000})"}, {"merges.txt", ""}}
                                           << legacy << fmt << QStringList{"vocab.json", "2000000000", "not dense"};
    QTest::addRow("merges.txt missing") << Files{{"vocab.json", kGptVocab}} << legacy << io
                                        << QStringList{"merges.txt", "missing"};
    QTest::addRow("merges.txt three tokens") << Files{{"vocab.json", kGptVocab}, {"merges.txt", "#version: 0.2\na b\na b c\n"}}
                                             << legacy << fmt << QStringList{"merges.txt", "line 3", "two tokens"};
    QTest::addRow("merges.txt one token") << Files{{"vocab.json", kGptVocab}, {"merges.txt", "#version: 0.2\nab\n"}}
                                          << legacy << fmt << QStringList{"merges.txt", "line 2"};
    QTest::addRow("merges.txt unknown token") << Files{{"vocab.json", kGptVocab}, {"merges.txt", "a c\n"}} << legacy << fmt
                                              << QStringList{"merges.txt", "line 1", "'c'", "not in the vocabulary"};
    QTest::addRow("merges.txt result not in vocab") << Files{{"vocab.json", kGptVocab}, {"merges.txt", "b a\n"}} << legacy
                                                    << fmt << QStringList{"merges.txt", "'ba'"};
    QTest::addRow("tokenizer.json missing") << Files{{"vocab.txt", kBertVocab}} << json << io
                                            << QStringList{"tokenizer.json", "missing"};
    QTest::addRow("tokenizer.json not JSON") << Files{{"tokenizer.json", "{\"model\": "}} << json << fmt
                                             << QStringList{"tokenizer.json", "not valid JSON"};
    QTest::addRow("tokenizer.json not an object") << Files{{"tokenizer.json", "[1, 2]"}} << json << fmt
                                                  << QStringList{"tokenizer.json", "JSON object"};
    QTest::addRow("missing model") << Files{{"tokenizer.json", R"({"version": "1.0", "added_tokens": []})"}} << json << fmt
                                   << QStringList{"tokenizer.json", "model", "missing"};
    QTest::addRow("missing model.vocab") << Files{{"tokenizer.json", tokenizerJson(R"({"type": "BPE", "merges": []})")}}
                                         << json << fmt << QStringList{"tokenizer.json", "model.vocab", "missing"};
    QTest::addRow("model.vocab not an object")
        << Files{{"tokenizer.json", tokenizerJson(R"({"type": "WordPiece", "vocab": ["[UNK]"]})")}} << json << fmt
        << QStringList{"tokenizer.json", "model.vocab", "array"};
    QTest::addRow("model.vocab bad id")
        << Files{{"tokenizer.json", tokenizerJson(R"({"type": "WordPiece", "vocab": {"[UNK]": 0.5}})")}} << json << fmt
        << QStringList{"tokenizer.json", "model.vocab[\"[UNK]\"]"};
    QTest::addRow("unknown model type") << Files{{"tokenizer.json", tokenizerJson(R"({"type": "WordLevel", "vocab": {"a": 0}})")}}
                                        << json << fmt << QStringList{"tokenizer.json", "model.type", "WordLevel"};
    QTest::addRow("Unigram vocab empty") << Files{{"tokenizer.json", tokenizerJson(R"({"type": "Unigram", "vocab": []})")}}
                                         << json << fmt << QStringList{"tokenizer.json", "model.vocab", "empty"};
    QTest::addRow("Unigram piece without score")
        << Files{{"tokenizer.json", tokenizerJson(R"({"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0], ["a"]]})")}}
        << json << fmt << QStringList{"tokenizer.json", "model.vocab[1]", "[piece, score]"};
    QTest::addRow("Unigram unk_id out of range")
        << Files{{"tokenizer.json", tokenizerJson(R"({"type": "Unigram", "unk_id": 5, "vocab": [["<unk>", 0]]})")}}
        << json << fmt << QStringList{"tokenizer.json", "model.unk_id", "5"};
    QTest::addRow("model without type") << Files{{"tokenizer.json", tokenizerJson(R"({"vocab": {}})")}} << json << fmt
                                        << QStringList{"tokenizer.json", "model.type", "missing"};
    QTest::addRow("WordPiece unk not in vocab")
        << Files{{"tokenizer.json", tokenizerJson(R"({"type": "WordPiece", "unk_token": "<unk>", "vocab": {"a": 0}})")}}
        << json << fmt << QStringList{"tokenizer.json", "model.unk_token", "<unk>"};
    QTest::addRow("merges missing") << Files{{"tokenizer.json", tokenizerJson(R"({"type": "BPE", "vocab": {"a": 0}})")}}
                                    << json << fmt << QStringList{"tokenizer.json", "model.merges", "missing"};
    QTest::addRow("merge entry a number")
        << Files{{"tokenizer.json", tokenizerJson(R"({"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b", 7]})")}}
        << json << fmt << QStringList{"tokenizer.json", "model.merges[1]"};
    QTest::addRow("merge pair of three")
        << Files{{"tokenizer.json", tokenizerJson(R"({"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b", "c"]]})")}}
        << json << fmt << QStringList{"tokenizer.json", "model.merges[0]"};
    QTest::addRow("merge result not in vocab")
        << Files{{"tokenizer.json", tokenizerJson(R"({"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": [["a", "b"]]})")}}
        << json << fmt << QStringList{"tokenizer.json", "model.merges[0]", "'ab'"};
    QTest::addRow("BPE byte_fallback with a prefix")
        << Files{{"tokenizer.json", tokenizerJson(R"({"type": "BPE", "byte_fallback": true, "continuing_subword_prefix": "##", "vocab": {"a": 0}, "merges": []})")}}
        << json << fmt << QStringList{"tokenizer.json", "model.byte_fallback", "refused"};
    QTest::addRow("BPE dropout")
        << Files{{"tokenizer.json", tokenizerJson(R"({"type": "BPE", "dropout": 0.1, "vocab": {"a": 0}, "merges": []})")}}
        << json << fmt << QStringList{"tokenizer.json", "model.dropout", "refused"};
    QTest::addRow("BPE dropout out of range")
        << Files{{"tokenizer.json", tokenizerJson(R"({"type": "BPE", "dropout": 1.5, "vocab": {"a": 0}, "merges": []})")}}
        << json << fmt << QStringList{"tokenizer.json", "model.dropout", "[0, 1]"};
    QTest::addRow("unsupported normalizer")
        << Files{{"tokenizer.json", tokenizerJson(bpeModel, R"({"normalizer": {"type": "Unidecode"}})")}} << json << fmt
        << QStringList{"tokenizer.json", "normalizer.type", "Unidecode"};
    QTest::addRow("Replace regex does not compile")
        << Files{{"tokenizer.json", tokenizerJson(bpeModel, R"({"normalizer": {"type": "Replace", "pattern": {"Regex": "(a"}, "content": "b"}})")}}
        << json << fmt << QStringList{"tokenizer.json", "normalizer.pattern.Regex", "Oniguruma"};
    QTest::addRow("Split behaviour unknown")
        << Files{{"tokenizer.json", tokenizerJson(bpeModel, R"({"pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "Sideways"}})")}}
        << json << fmt << QStringList{"tokenizer.json", "pre_tokenizer.behavior"};
    QTest::addRow("Metaspace replacement two characters")
        << Files{{"tokenizer.json", tokenizerJson(bpeModel, R"({"pre_tokenizer": {"type": "Metaspace", "replacement": "ab"}})")}}
        << json << fmt << QStringList{"tokenizer.json", "pre_tokenizer.replacement"};
    QTest::addRow("Metaspace prepend_scheme unknown")
        << Files{{"tokenizer.json", tokenizerJson(bpeModel, R"({"pre_tokenizer": {"type": "Metaspace", "replacement": "_", "prepend_scheme": "sometimes"}})")}}
        << json << fmt << QStringList{"tokenizer.json", "pre_tokenizer.prepend_scheme"};
    QTest::addRow("Precompiled not base64")
        << Files{{"tokenizer.json", tokenizerJson(bpeModel, R"({"normalizer": {"type": "Precompiled", "precompiled_charsmap": "@@@@"}})")}}
        << json << fmt << QStringList{"tokenizer.json", "normalizer.precompiled_charsmap", "base64"};
    QTest::addRow("Precompiled trie size lies")
        << Files{{"tokenizer.json", tokenizerJson(bpeModel, R"({"normalizer": {"type": "Precompiled", "precompiled_charsmap": "/////wAAAAA="}})")}}
        << json << fmt << QStringList{"tokenizer.json", "normalizer.precompiled_charsmap", "trie size"};
    QTest::addRow("normalizer not an object") << Files{{"tokenizer.json", tokenizerJson(bpeModel, R"({"normalizer": 5})")}}
                                              << json << fmt << QStringList{"tokenizer.json", "normalizer", "type"};
    QTest::addRow("Sequence without members")
        << Files{{"tokenizer.json", tokenizerJson(bpeModel, R"({"normalizer": {"type": "Sequence"}})")}} << json << fmt
        << QStringList{"tokenizer.json", "normalizer.normalizers"};
    QTest::addRow("unsupported decoder") << Files{{"tokenizer.json", tokenizerJson(bpeModel, R"({"decoder": {"type": "Wordle"}})")}}
                                         << json << fmt << QStringList{"tokenizer.json", "decoder.type", "Wordle"};
    QTest::addRow("unsupported pre-tokenizer")
        << Files{{"tokenizer.json", tokenizerJson(bpeModel, R"({"pre_tokenizer": {"type": "UnicodeScripts"}})")}} << json
        << fmt << QStringList{"tokenizer.json", "pre_tokenizer.type", "UnicodeScripts"};
    QTest::addRow("template pair names an undefined token")
        << Files{{"tokenizer.json",
                  tokenizerJson(bpeModel, R"({"post_processor": {"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": 0}}], "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 1}}], "special_tokens": {}}})")}}
        << json << fmt << QStringList{"tokenizer.json", "post_processor.special_tokens", "</s>"};
    QTest::addRow("added token without content")
        << Files{{"tokenizer.json", tokenizerJson(bpeModel, R"({"added_tokens": [{"id": 3, "special": true}]})")}} << json
        << fmt << QStringList{"tokenizer.json", "added_tokens[0].content"};
    QTest::addRow("added tokens not an array")
        << Files{{"tokenizer.json", tokenizerJson(bpeModel, R"({"added_tokens": {"id": 3}})")}} << json << fmt
        << QStringList{"tokenizer.json", "added_tokens", "array"};
    QTest::addRow("template names an undefined token")
        << Files{{"tokenizer.json",
                  tokenizerJson(bpeModel, R"({"post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}], "special_tokens": {}}})")}}
        << json << fmt << QStringList{"tokenizer.json", "post_processor.special_tokens", "<s>"};
    QTest::addRow("BertProcessing without cls")
        << Files{{"tokenizer.json", tokenizerJson(bpeModel, R"({"post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 1]}})")}}
        << json << fmt << QStringList{"tokenizer.json", "post_processor.cls"};
}

void TstTokenizer::badFiles()
{
    QFETCH(Files, files);
    QFETCH(int, format);
    QFETCH(attn::ErrorCode, code);
    QFETCH(QStringList, mentions);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const auto &[name, content] : files) writeFile(dir.filePath(name).toStdString(), content);
    auto tok = Tokenizer::fromFolder(dir.path().toStdString(), static_cast<TokenizerFormat>(format));
    QVERIFY2(!tok.isOk(), "a bad tokenizer folder loaded");
    const std::string &message = tok.status().message();
    for (const QString &m : mentions)
        QVERIFY2(message.find(m.toStdString()) != std::string::npos,
                 qPrintable(QString("'%1' not in: %2").arg(m, QString::fromStdString(message))));
    QCOMPARE(tok.status().code(), code);
}

QTEST_GUILESS_MAIN(TstTokenizer)
#include "tst_tokenizer.moc"
