// SPDX-License-Identifier: GPL-3.0-or-later
// Encoder–decoders (seq2seq.h) against Hugging Face transformers, teacher-forced: tiny random-weight
// T5ForConditionalGeneration checkpoints (tests/fixtures/models/t5-*, tools/make_seq2seq_fixtures.py) and
// BartForConditionalGeneration / MarianMTModel ones (models/bart-*, models/marian-*, tools/make_bart_fixtures.py),
// the same input_ids and decoder_input_ids in: encoder, decoder and cross-attentions ≤ 1e-5, encoder output and
// logits ≤ 1e-4, on the reference, tiled and CUDA backends. Relative-position buckets against the reference table;
// Marian's sinusoidal table against the formula worked by hand; refusals.

#include <attnscope/npy.h>
#include <attnscope/seq2seq.h>
#include <attnscope/tokenizer.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace attn;

namespace {

const QString kFixtures = QStringLiteral(ATTNSCOPE_TEST_DATA_DIR "/fixtures/");

QByteArray msg(const std::string &s) { return QByteArray::fromStdString(s); }

// Fixture cases live in seq2seq/ (T5) and seq2seq_bart/ (BART, Marian), each with its index.json.
QString caseDir(const QString &name)
{
    return kFixtures + (name.startsWith(QLatin1String("t5-")) ? "seq2seq/" : "seq2seq_bart/");
}

QJsonObject caseEntry(const QString &name)
{
    QFile f(caseDir(name) + "index.json");
    if (!f.open(QIODevice::ReadOnly)) return {};
    for (const QJsonValue v : QJsonDocument::fromJson(f.readAll()).object()["cases"].toArray())
        if (v["case"].toString() == name) return v.toObject();
    return {};
}

std::vector<std::int64_t> ids(const QJsonValue &v)
{
    std::vector<std::int64_t> out;
    for (const QJsonValue x : v.toArray()) out.push_back(x.toInteger());
    return out;
}

std::vector<float> fixture(const QString &caseName, const char *file)
{
    auto r = readNpyFloat32((caseDir(caseName) + caseName + "/" + file).toStdString());
    return r ? r->values : std::vector<float>{};
}

// max |a − b| over the heads laid end to end; +inf when any size disagrees.
double stackedError(const std::vector<std::vector<float>> &heads, const std::vector<float> &want)
{
    std::size_t k = 0;
    double err = 0.0;
    for (const std::vector<float> &h : heads) {
        if (k + h.size() > want.size()) return INFINITY;
        for (const float v : h) err = std::max(err, std::abs(double(v) - double(want[k++])));
    }
    return k == want.size() ? err : INFINITY;
}

double vectorError(const std::vector<float> &a, const std::vector<float> &b)
{
    return stackedError({a}, b);
}

} // namespace

class TestSeq2Seq : public QObject {
    Q_OBJECT
private slots:
    void parity_data();
    void parity();
    void buckets_data();
    void buckets();
    void errors();
    void marianPositions();
    void bartErrors();
    void marianTokenizer();
    void bartTokenizer();
};

void TestSeq2Seq::parity_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QString>("backend");
    for (const char *c : {"t5-gated-long", "t5-gated-one", "t5-relu-plain", "bart-full", "bart-one", "marian-plain", "marian-split"})
        for (const char *b : {"reference", "tiled", "cuda"})
            QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(c, b))) << QString(c) << QString(b);
}

void TestSeq2Seq::parity()
{
    QFETCH(QString, caseName);
    QFETCH(QString, backend);
    if (backend == QLatin1String("cuda") && !cudaAvailable())
        QSKIP(qPrintable("CUDA: " + QString::fromStdString(cudaUnavailableReason())));
    const QJsonObject entry = caseEntry(caseName);
    QVERIFY2(!entry.isEmpty(), "tests/fixtures/seq2seq*/index.json: case missing");
    auto model = Seq2SeqModel::loadFolder((kFixtures + "models/" + entry["model"].toString()).toStdString());
    QVERIFY2(model.isOk(), msg(model.status().message()));
    Seq2SeqOptions o;
    o.backend = *parseBackend(backend.toStdString());
    auto r = model->forward(ids(entry["input_ids"]), ids(entry["decoder_input_ids"]), o);
    QVERIFY2(r.isOk(), msg(r.status().message()));
    QCOMPARE(backendName(r->backend), backend.toStdString());
    const Seq2SeqShape &c = model->shape();
    QCOMPARE(r->encoderAttentions.size(), std::size_t(c.encoderLayers * c.encoderHeads));
    QCOMPARE(r->decoderAttentions.size(), std::size_t(c.decoderLayers * c.decoderHeads));
    QCOMPARE(r->crossAttentions.size(), std::size_t(c.decoderLayers * c.decoderHeads));
    // BART / Marian: against transformers' float64 pass (its own float32 one is up to 7.4e-6 off it on these peaked
    // fixtures, index.json hf_float32_vs_float64_attention).
    const char *suffix = caseName.startsWith(QLatin1String("t5-")) ? ".npy" : "_f64.npy";
    const double enc = stackedError(r->encoderAttentions, fixture(caseName, (std::string("encoder_attentions") + suffix).c_str()));
    const double dec = stackedError(r->decoderAttentions, fixture(caseName, (std::string("decoder_attentions") + suffix).c_str()));
    const double cross = stackedError(r->crossAttentions, fixture(caseName, (std::string("cross_attentions") + suffix).c_str()));
    const double hidden = vectorError(r->encoderHidden, fixture(caseName, "encoder_hidden.npy"));
    const double logits = vectorError(r->logits, fixture(caseName, "logits.npy"));
    qInfo("%s on %s: encoder %.3g, decoder %.3g, cross %.3g attention; encoder output %.3g, logits %.3g",
          qPrintable(caseName), qPrintable(backend), enc, dec, cross, hidden, logits);
    QVERIFY(enc <= 1e-5);
    QVERIFY(dec <= 1e-5);
    QVERIFY(cross <= 1e-5);
    QVERIFY(hidden <= 1e-4);
    QVERIFY(logits <= 1e-4);
}

void TestSeq2Seq::buckets_data()
{
    // reference/models-and-tokenizers.md §3, 32 buckets and max distance 128; rel = key − query.
    QTest::addColumn<int>("rel");
    QTest::addColumn<bool>("bidirectional");
    QTest::addColumn<int>("bucket");
    const int encoder[][2] = {{0, 0}, {-3, 3}, {-8, 8}, {-16, 10}, {-32, 12}, {-64, 14}, {-127, 15}, {-5000, 15},
                              {3, 19}, {8, 24}, {16, 26}, {127, 31}};
    for (const auto &e : encoder)
        QTest::newRow(qPrintable(QStringLiteral("encoder %1").arg(e[0]))) << e[0] << true << e[1];
    const int decoder[][2] = {{0, 0}, {5, 0}, {-3, 3}, {-15, 15}, {-16, 16}, {-32, 21}, {-64, 26}, {-128, 31}, {-9999, 31}};
    for (const auto &d : decoder)
        QTest::newRow(qPrintable(QStringLiteral("decoder %1").arg(d[0]))) << d[0] << false << d[1];
}

void TestSeq2Seq::buckets()
{
    QFETCH(int, rel);
    QFETCH(bool, bidirectional);
    QFETCH(int, bucket);
    QCOMPARE(t5RelativeBucket(rel, bidirectional, 32, 128), std::int64_t(bucket));
}

void TestSeq2Seq::errors()
{
    auto model = Seq2SeqModel::loadFolder((kFixtures + "models/t5-relu-d40h4").toStdString());
    QVERIFY2(model.isOk(), msg(model.status().message()));
    QVERIFY(model->t5Config() && !model->bartConfig());
    QVERIFY(model->t5Config()->scaleDecoderOutputs && !model->t5Config()->gated);
    auto r = model->forward({1, 80}, {0});
    QVERIFY(!r.isOk() && r.status().message().find("source ids: id 80 at position 1 is outside 0..79") != std::string::npos);
    r = model->forward({1}, {});
    QVERIFY(!r.isOk() && r.status().message().find("decoder input ids: empty") != std::string::npos);
    const auto configError = [](const char *json) {
        auto c = parseT5Config(json, "cfg.json");
        return c.isOk() ? std::string() : c.status().message();
    };
    QVERIFY(configError(R"({"model_type": "bart"})").find("field 'model_type' is 'bart'") != std::string::npos);
    QVERIFY(configError(R"({"model_type": "t5", "feed_forward_proj": "gated-foo"})").find("'gated-foo'") != std::string::npos);
    QVERIFY(configError(R"({"model_type": "t5", "relative_attention_num_buckets": 2})")
                .find("field 'relative_attention_num_buckets' is 2") != std::string::npos);
    QVERIFY(configError(R"({"model_type": "t5", "architectures": ["T5EncoderModel"]})").find("T5EncoderModel") !=
            std::string::npos);
    auto gated = parseT5Config(R"({"model_type": "t5", "feed_forward_proj": "gated-gelu", "tie_word_embeddings": false})",
                               "cfg.json");
    QVERIFY(gated.isOk() && gated->gated && gated->activation == Activation::GeluNew && !gated->scaleDecoderOutputs);
    QVERIFY(isSeq2SeqFolder((kFixtures + "models/t5-gated-d48h3").toStdString()));
    QVERIFY(!isSeq2SeqFolder((kFixtures + "models/vit-cls-d48h3").toStdString()));
}

void TestSeq2Seq::marianPositions()
{
    // angle[p, j] = p / 10000^(2·(j // 2) / dim); sin of the even j in the first half, cos of the odd in the second.
    const std::vector<float> even = marianSinusoidalPositions(2, 4);
    const std::vector<double> row1 = {std::sin(1.0), std::sin(0.01), std::cos(1.0), std::cos(0.01)};
    QCOMPARE(even.size(), std::size_t(8));
    for (int j = 0; j < 4; ++j) {
        QCOMPARE(double(even[std::size_t(j)]), j < 2 ? 0.0 : 1.0);   // position 0
        QVERIFY(std::abs(double(even[std::size_t(4 + j)]) - row1[std::size_t(j)]) < 1e-7);
    }
    // Odd dim 3: two sine columns (j = 0, 2), one cosine (j = 1).
    const std::vector<float> odd = marianSinusoidalPositions(2, 3);
    QVERIFY(std::abs(double(odd[3]) - std::sin(1.0)) < 1e-7);
    QVERIFY(std::abs(double(odd[4]) - std::sin(std::pow(10000.0, -2.0 / 3.0))) < 1e-7);
    QVERIFY(std::abs(double(odd[5]) - std::cos(1.0)) < 1e-7);
}

void TestSeq2Seq::bartErrors()
{
    auto bart = Seq2SeqModel::loadFolder((kFixtures + "models/bart-d48-e4d3").toStdString());
    QVERIFY2(bart.isOk(), msg(bart.status().message()));
    QVERIFY(bart->bartConfig() && !bart->bartConfig()->marian && !bart->t5Config());
    const Seq2SeqShape &s = bart->shape();
    QCOMPARE(s.modelType, std::string("bart"));
    QCOMPARE(s.encoderHeads, std::int64_t(4));
    QCOMPARE(s.decoderHeads, std::int64_t(3));
    QCOMPARE(s.decoderDHead, std::int64_t(16));
    QCOMPARE(s.maxPositions, std::int64_t(24));
    // Learned positions end at max_position_embeddings.
    auto r = bart->forward(std::vector<std::int64_t>(25, 5), {2});
    QVERIFY(!r.isOk() && r.status().message().find("source ids: 25 tokens; the model takes at most 24 (config.json "
                                                   "max_position_embeddings)") != std::string::npos);
    auto split = Seq2SeqModel::loadFolder((kFixtures + "models/marian-split-d32").toStdString());
    QVERIFY2(split.isOk(), msg(split.status().message()));
    QCOMPARE(split->shape().vocabSize, std::int64_t(70));
    QCOMPARE(split->shape().decoderVocabSize, std::int64_t(60));
    QVERIFY(split->forward({65}, {59}).isOk());   // 65 is a source id only
    r = split->forward({65}, {59, 65});
    QVERIFY(!r.isOk() && r.status().message().find("decoder input ids: id 65 at position 1 is outside 0..59") != std::string::npos);

    const auto configError = [](const char *json) {
        auto c = parseBartConfig(json, "cfg.json");
        return c.isOk() ? std::string() : c.status().message();
    };
    QVERIFY(configError(R"({"model_type": "t5"})").find("cfg.json: field 'model_type' is 't5'; expected 'bart' or 'marian'") !=
            std::string::npos);
    QVERIFY(configError(R"({"model_type": "bart", "architectures": ["BartForSequenceClassification"]})")
                .find("this engine runs BartForConditionalGeneration") != std::string::npos);
    QVERIFY(configError(R"({"model_type": "bart", "d_model": 48, "encoder_attention_heads": 5})")
                .find("field 'encoder_attention_heads' is 5, which does not divide d_model 48") != std::string::npos);
    QVERIFY(configError(R"({"model_type": "bart", "scale_embedding": "yes"})").find("field 'scale_embedding'") != std::string::npos);
    QVERIFY(configError(R"({"model_type": "marian", "vocab_size": 10, "decoder_vocab_size": 8})")
                .find("field 'decoder_vocab_size' is 8 but the embeddings are shared") != std::string::npos);
    QVERIFY(configError(R"({"model_type": "bart", "activation_function": "foo"})").find("'foo'") != std::string::npos);
    auto marian = parseBartConfig(R"({"model_type": "marian"})", "cfg.json");   // MarianConfig's defaults
    QVERIFY2(marian.isOk(), msg(marian.status().message()));
    QVERIFY(marian->marian && marian->vocabSize == 58101 && marian->decoderStartTokenId == 58100 && marian->eosTokenId == 0);
    QVERIFY(isSeq2SeqFolder((kFixtures + "models/marian-d40-e4d2").toStdString()));
}

// Marian's SentencePiece tokenizer (source.spm / target.spm through libsentencepiece 0.1.97, vocab.json) against
// transformers' MarianTokenizer (PyPI sentencepiece 0.2.1) on the 240 strings of seq2seq_bart/marian_text.json
// (tools/make_marian_fixtures.py): source ids and tokens, target-side ids, and the target ids decoded.
void TestSeq2Seq::marianTokenizer()
{
    const std::string folder = (kFixtures + "models/marian-text-d32").toStdString();
    auto source = Tokenizer::fromFolder(folder);   // Auto: source.spm and no tokenizer.json
    auto target = Tokenizer::fromFolder(folder, TokenizerFormat::SentencePieceTarget);
    QVERIFY2(source.isOk(), msg(source.status().message()));
    QVERIFY2(target.isOk(), msg(target.status().message()));
    QCOMPARE(source->kind(), TokenizerKind::SentencePiece);
    QFile f(kFixtures + "seq2seq_bart/marian_text.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonArray strings = QJsonDocument::fromJson(f.readAll())["strings"].toArray();
    QVERIFY(strings.size() >= 200);
    int wrongIds = 0, wrongTokens = 0, wrongTarget = 0, wrongDecode = 0;
    for (const QJsonValue v : strings) {
        const std::string text = v["text"].toString().toStdString();
        auto e = source->encode(text);
        auto t = target->encode(text);
        QVERIFY2(e.isOk() && t.isOk(), text.c_str());
        std::vector<std::int64_t> got(e->ids.begin(), e->ids.end()), gotTarget(t->ids.begin(), t->ids.end());
        std::vector<std::string> tokens;
        for (std::size_t k = 0; k + 1 < e->tokens.size(); ++k) tokens.push_back(e->tokens[k]);   // tokenize(): no </s>
        std::vector<std::string> want;
        for (const QJsonValue x : v["tokens"].toArray()) want.push_back(x.toString().toStdString());
        const std::string decoded = target->decode(std::vector<std::int32_t>(t->ids.begin(), t->ids.end()));
        const bool bad = got != ids(v["ids"]) || tokens != want || gotTarget != ids(v["target_ids"]) ||
                         decoded != v["decoded"].toString().toStdString();
        wrongIds += got != ids(v["ids"]);
        wrongTokens += tokens != want;
        wrongTarget += gotTarget != ids(v["target_ids"]);
        wrongDecode += decoded != v["decoded"].toString().toStdString();
        if (bad) qWarning("differs: '%s' -> decoded '%s'", text.c_str(), decoded.c_str());
        // Offsets: a piece's bytes are its text; the appended </s> has none.
        QCOMPARE(e->begins.back(), std::size_t(0));
        QVERIFY(e->framing.back() == 1 && e->special.back() == 1);
    }
    qInfo("%lld strings: %d ids, %d tokens, %d target ids, %d decodes differ", static_cast<long long>(strings.size()),
          wrongIds, wrongTokens, wrongTarget, wrongDecode);
    QCOMPARE(wrongIds + wrongTokens + wrongTarget + wrongDecode, 0);
    // The pieces' byte offsets into the text: ">>fr<< the cat" gives the code, then ▁the over "the" (with its space).
    auto code = source->encode(">>fr<< the cat");
    QVERIFY(code.isOk());
    QCOMPARE(code->tokens[0], std::string(">>fr<<"));
    QCOMPARE(code->ends[0], std::size_t(6));
    QVERIFY(code->begins[1] >= 6 && code->ends[1] == 10);
    QVERIFY(!source->encodePair("a", "b").isOk());
    // A folder without vocab.json is refused naming the file.
    auto broken = Tokenizer::fromFolder((kFixtures + "models/marian-d40-e4d2").toStdString(), TokenizerFormat::SentencePieceSource);
    QVERIFY(!broken.isOk() && broken.status().message().find("source.spm") != std::string::npos);
}

// BART's byte-level BPE tokenizer.json (RoBERTa's post-processor: <s> … </s>) against transformers'
// BartTokenizerFast on the strings of tools/make_bart_text_fixture.py: ids and tokens, exactly.
void TestSeq2Seq::bartTokenizer()
{
    auto tok = Tokenizer::fromFolder((kFixtures + "models/bart-text-d32").toStdString());
    QVERIFY2(tok.isOk(), msg(tok.status().message()));
    QFile f(kFixtures + "seq2seq_bart/bart_text.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonArray strings = QJsonDocument::fromJson(f.readAll())["strings"].toArray();
    QVERIFY(strings.size() >= 70);
    int wrong = 0;
    for (const QJsonValue v : strings) {
        const std::string text = v["text"].toString().toStdString();
        auto e = tok->encode(text);
        QVERIFY2(e.isOk(), text.c_str());
        std::vector<std::string> want;
        for (const QJsonValue x : v["tokens"].toArray()) want.push_back(x.toString().toStdString());
        const bool bad = std::vector<std::int64_t>(e->ids.begin(), e->ids.end()) != ids(v["ids"]) || e->tokens != want;
        if (bad) qWarning("differs: '%s'", text.c_str());
        wrong += bad;
    }
    qInfo("%lld strings, %d differ", static_cast<long long>(strings.size()), wrong);
    QCOMPARE(wrong, 0);
}

QTEST_APPLESS_MAIN(TestSeq2Seq)
#include "tst_seq2seq.moc"
