// SPDX-License-Identifier: GPL-3.0-or-later
// What `info` and a `run` export say about every family (docs/cli.md, docs/json-format.md): family, GQA groups,
// RoPE and its scaling, each layer's window in Hugging Face's convention, soft-caps, tied embeddings; and a run on
// each family's fixture validates against docs/schema/run.schema.json with its per-layer mask.
#include <attnscope/export.h>

#include "jsonschema.h"
#include "tst_model_support.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace attn;

namespace {

QJsonObject parse(const std::string &text)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text), &error);
    if (error.error != QJsonParseError::NoError) qFatal("not JSON: %s", qPrintable(error.errorString()));
    return doc.object();
}

QJsonObject runSchema()
{
    QFile file(QStringLiteral(ATTNSCOPE_SCHEMA_DIR "/run.schema.json"));
    if (!file.open(QIODevice::ReadOnly)) qFatal("no run schema");
    return QJsonDocument::fromJson(file.readAll()).object();
}

OpenedModel open(const QString &fixture)
{
    auto m = openModel(test::fixtureModel(fixture).toStdString(), false);
    if (!m) qFatal("%s", m.status().message().c_str());
    return std::move(m).value();
}

// [window or 0 per layer] from info's attention_layers or a run's settings.mask.layers.
QList<int> windows(const QJsonArray &layers)
{
    QList<int> out;
    for (const QJsonValue &l : layers) out.push_back(l.toObject().value("window").toInt(0));
    return out;
}

} // namespace

class TestModelExport : public QObject {
    Q_OBJECT

private slots:
    void info_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("family");
        QTest::addColumn<int>("groups");          // kv_groups entries
        QTest::addColumn<QList<int>>("windows");  // attention_layers[].window (0: null)
        QTest::addColumn<QString>("rope");        // rope.type, "" when null
        QTest::addColumn<double>("attnCap");      // 0: null
        QTest::addColumn<bool>("tied");
        QTest::addRow("gpt2") << "gpt2-tiny" << "GPT-2" << 4 << QList<int>{0, 0} << "" << 0.0 << true;
        QTest::addRow("llama3") << "llama3-rope" << "Llama" << 1 << QList<int>{0, 0} << "llama3" << 0.0 << true;
        QTest::addRow("qwen2") << "qwen2-layertypes" << "Qwen2" << 2 << QList<int>{0, 5} << "default" << 0.0 << false;
        QTest::addRow("gemma2") << "gemma2-softcap" << "Gemma 2" << 2 << QList<int>{4, 0} << "default" << 4.0 << true;
        QTest::addRow("gemma3") << "gemma3-text" << "Gemma 3" << 2 << QList<int>{4, 4, 4, 4, 4, 0} << "linear" << 0.0 << true;
        QTest::addRow("phi3 longrope") << "phi3-longrope" << "Phi-3" << 4 << QList<int>{0, 0} << "longrope" << 0.0 << false;
        QTest::addRow("neox") << "neox-parallel" << "GPT-NeoX" << 4 << QList<int>{0, 0} << "default" << 0.0 << false;
    }
    void info()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, family);
        QFETCH(int, groups);
        QFETCH(QList<int>, windows);
        QFETCH(QString, rope);
        QFETCH(double, attnCap);
        QFETCH(bool, tied);
        const QJsonObject j = parse(modelInfoJson(open(fixture)));
        QCOMPARE(j.value("family").toString(), family);
        QCOMPARE(j.value("kv_groups").toArray().size(), groups);
        QCOMPARE(j.value("kv_heads").toInt(), groups);
        QCOMPARE(::windows(j.value("attention_layers").toArray()), windows);
        QCOMPARE(j.value("rope").toObject().value("type").toString(), rope);
        QCOMPARE(j.value("softcap").toObject().value("attention").toDouble(0.0), attnCap);
        QCOMPARE(j.value("tied_embeddings").toBool(), tied);
        QVERIFY(j.value("load_seconds").isDouble() && j.value("load_seconds").toDouble() >= 0.0);   // a measurement: no bound
        for (const QJsonValue &l : j.value("attention_layers").toArray())
            QCOMPARE(l.toObject().value("attention").toString(), l.toObject().value("window").isNull() ? "full" : "sliding");
    }

    void infoDetails()
    {
        const QJsonObject g3 = parse(modelInfoJson(open("gemma3-text")));
        const QJsonObject rope = g3.value("rope").toObject();
        QCOMPARE(rope.value("theta").toDouble(), 1e6);
        QCOMPARE(rope.value("factor").toDouble(), 8.0);
        QCOMPARE(rope.value("local").toObject().value("theta").toDouble(), 1e4);
        QCOMPARE(g3.value("attention_layers").toArray()[0].toObject().value("rope").toString(), QString("local"));
        QCOMPARE(g3.value("attention_layers").toArray()[5].toObject().value("rope").toString(), QString("global"));
        QCOMPARE(g3.value("norm").toString(), QString("rms_norm_plus_one"));
        const QJsonObject g2 = parse(modelInfoJson(open("gemma2-softcap")));
        QCOMPARE(g2.value("softcap").toObject().value("final").toDouble(), 3.0);
        QCOMPARE(float(g2.value("attention_layers").toArray()[0].toObject().value("scale").toDouble()), float(1.0 / std::sqrt(20.0)));
        const QJsonObject gemma = parse(modelInfoJson(open("gemma-d72")));
        QCOMPARE(gemma.value("embedding_scale").toDouble(), 8.5);
        const QJsonObject llama = parse(modelInfoJson(open("llama-gqa-d48h4")));
        QCOMPARE(llama.value("kv_groups").toArray()[1].toArray(), (QJsonArray{2, 3}));
        const QJsonObject yarn = parse(modelInfoJson(open("llama-rope-yarn")));
        QCOMPARE(float(yarn.value("rope").toObject().value("attention_factor").toDouble()), float(0.1 * std::log(4.0) + 1.0));
        QVERIFY(parse(modelInfoJson(open("bert-mlm"))).value("rope").isNull());
    }

    void run_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("mask");
        QTest::addColumn<QStringList>("kinds");   // settings.mask.layers[].kind
        QTest::addColumn<QList<int>>("windows");
        for (const char *f : {"llama-gqa-d48h4", "llama3-rope", "llama-rope-linear", "llama-rope-dynamic", "llama-rope-yarn",
                              "smollm2-d36h3", "qwen3-qknorm", "gemma-d72", "phi3-longrope", "neox-parallel", "neox-serial"})
            QTest::addRow("%s", f) << f << "model" << QStringList{"causal", "causal"} << QList<int>{0, 0};
        QTest::addRow("mistral") << "mistral-window4" << "model" << QStringList{"sliding", "sliding"} << QList<int>{4, 4};
        QTest::addRow("qwen2") << "qwen2-layertypes" << "model" << QStringList{"causal", "sliding"} << QList<int>{0, 5};
        QTest::addRow("phi3") << "phi3-fused" << "model" << QStringList{"sliding", "sliding"} << QList<int>{5, 5};
        QTest::addRow("gemma3") << "gemma3-text" << "model" << QStringList{"sliding", "sliding", "sliding", "sliding", "sliding", "causal"}
                                << QList<int>{4, 4, 4, 4, 4, 0};
        QTest::addRow("qwen2 --mask causal") << "qwen2-layertypes" << "causal" << QStringList{"causal", "causal"} << QList<int>{0, 0};
        QTest::addRow("qwen2 --mask causal-window:2") << "qwen2-layertypes" << "causal-window:2"
                                                      << QStringList{"causal_window", "causal_window"} << QList<int>{3, 3};
        for (const char *f : {"roberta-mlm", "roberta-cls", "distilbert-mlm", "distilbert-cls"})
            QTest::addRow("%s", f) << f << "model" << QStringList{"bidirectional", "bidirectional"} << QList<int>{0, 0};
    }
    void run()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, mask);
        QFETCH(QStringList, kinds);
        QFETCH(QList<int>, windows);
        const OpenedModel m = open(fixture);
        RunRequest request;
        request.ids = {3, 5, 7, 9, 11, 13, 4, 6};
        auto choice = parseMaskChoice(mask.toStdString());
        QVERIFY(choice.isOk());
        request.mask = *choice;
        auto data = runModel(m, request);
        QVERIFY2(data.isOk(), data.status().message().c_str());
        const QJsonObject doc = parse(runExportJson(m, request, *data, std::nullopt));
        const QStringList problems = test::validateJsonSchema(doc, runSchema());
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join("\n")));
        const QJsonArray layers = doc.value("settings").toObject().value("mask").toObject().value("layers").toArray();
        QStringList got;
        for (const QJsonValue &l : layers) got.push_back(l.toObject().value("kind").toString());
        QCOMPARE(got, kinds);
        QCOMPARE(::windows(layers), windows);
        QCOMPARE(doc.value("model").toObject().value("family").toString(), QString::fromStdString(m.model.config().family));
    }
};

QTEST_GUILESS_MAIN(TestModelExport)
#include "tst_model_export.moc"
