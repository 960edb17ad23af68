// SPDX-License-Identifier: GPL-3.0-or-later
// T5 encoder–decoder (seq2seq.h) against Hugging Face transformers, teacher-forced: tiny random-weight
// T5ForConditionalGeneration checkpoints (tests/fixtures/models/t5-*, tools/make_seq2seq_fixtures.py), the same
// input_ids and decoder_input_ids in: encoder, decoder and cross-attentions ≤ 1e-5, encoder output and logits
// ≤ 1e-4, on the reference and tiled backends. Relative-position buckets against the reference table; refusals.

#include <attnscope/npy.h>
#include <attnscope/seq2seq.h>

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

QJsonObject caseEntry(const QString &name)
{
    QFile f(kFixtures + "seq2seq/index.json");
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
    auto r = readNpyFloat32((kFixtures + "seq2seq/" + caseName + "/" + file).toStdString());
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
};

void TestSeq2Seq::parity_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QString>("backend");
    for (const char *c : {"t5-gated-long", "t5-gated-one", "t5-relu-plain"})
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
    QVERIFY2(!entry.isEmpty(), "tests/fixtures/seq2seq/index.json: case missing");
    auto model = T5Model::loadFolder((kFixtures + "models/" + entry["model"].toString()).toStdString());
    QVERIFY2(model.isOk(), msg(model.status().message()));
    Seq2SeqOptions o;
    o.backend = *parseBackend(backend.toStdString());
    auto r = model->forward(ids(entry["input_ids"]), ids(entry["decoder_input_ids"]), o);
    QVERIFY2(r.isOk(), msg(r.status().message()));
    QCOMPARE(backendName(r->backend), backend.toStdString());
    const T5Config &c = model->config();
    QCOMPARE(r->encoderAttentions.size(), std::size_t(c.layers * c.heads));
    QCOMPARE(r->crossAttentions.size(), std::size_t(c.decoderLayers * c.heads));
    const double enc = stackedError(r->encoderAttentions, fixture(caseName, "encoder_attentions.npy"));
    const double dec = stackedError(r->decoderAttentions, fixture(caseName, "decoder_attentions.npy"));
    const double cross = stackedError(r->crossAttentions, fixture(caseName, "cross_attentions.npy"));
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
    auto model = T5Model::loadFolder((kFixtures + "models/t5-relu-d40h4").toStdString());
    QVERIFY2(model.isOk(), msg(model.status().message()));
    QVERIFY(model->config().scaleDecoderOutputs && !model->config().gated);
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
    QVERIFY(isT5Folder((kFixtures + "models/t5-gated-d48h3").toStdString()));
    QVERIFY(!isT5Folder((kFixtures + "models/vit-cls-d48h3").toStdString()));
}

QTEST_APPLESS_MAIN(TestSeq2Seq)
#include "tst_seq2seq.moc"
