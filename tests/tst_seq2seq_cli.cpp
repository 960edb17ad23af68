// SPDX-License-Identifier: GPL-3.0-or-later
// `attnscope-cli run` on an encoder–decoder folder (app/cli/verb_seq2seq.cpp, seq2seqrun.h), run with QProcess as
// scripts do, against transformers: tests/fixtures/models/t5-text-d32h4 (a tiny T5 with a Unigram tokenizer.json)
// and tests/fixtures/seq2seq/text.json (tools/make_seq2seq_text_fixture.py): the tokenizer's ids, greedy
// generate() sequences, and the eager attentions of teacher-forced passes on a tokenized target; and the --ids /
// --target-ids route on the t5-gated fixture (tests/fixtures/seq2seq/index.json) and on the BART and Marian fixtures
// (tests/fixtures/seq2seq_bart/index.json, tools/make_bart_fixtures.py: eager attentions and greedy generate()).
// Documents are checked against docs/schema/seq2seq.schema.json.
#include "jsonschema.h"

#include <attnscope/npy.h>

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

namespace {

const QString kFixtures = QStringLiteral(ATTNSCOPE_TEST_DATA_DIR "/fixtures/");
const QString kTextModel = kFixtures + "models/t5-text-d32h4";

struct CliRun {
    int exitCode = -1;
    QByteArray out, err;
};

CliRun runCli(const QStringList &args)
{
    QProcess p;
    p.start(QStringLiteral(ATTNSCOPE_CLI_PATH), args);
    CliRun r;
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished();
        r.err = "timed out";
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

QJsonObject readJson(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
}

QJsonArray slice(const QJsonArray &a, qsizetype from, qsizetype count)
{
    QJsonArray out;
    for (qsizetype i = from; i < from + count && i < a.size(); ++i) out.append(a[i]);
    return out;
}

QString idList(const QJsonArray &a)
{
    QStringList s;
    for (const QJsonValue v : a) s << QString::number(v.toInteger());
    return s.join(QLatin1Char(','));
}

// A run that must succeed: its document, valid against the schema.
QJsonObject runDocument(const QStringList &args)
{
    const CliRun r = runCli(QStringList{"run"} + args + QStringList{"--out", "-"});
    if (r.exitCode != 0) {
        qWarning("%s", r.err.constData());
        return {};
    }
    const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
    const QStringList problems =
        attn::test::validateJsonSchema(doc, readJson(QStringLiteral(ATTNSCOPE_SCHEMA_DIR "/seq2seq.schema.json")));
    if (!problems.isEmpty()) {
        qWarning("%s", qPrintable(problems.join('\n')));
        return {};
    }
    return doc;
}

// max |doc[layer][head][i][j] − want[layer][head·rows·cols + ...]|; +inf when the shapes disagree.
double attentionError(const QJsonArray &doc, const QJsonArray &want)
{
    if (doc.size() != want.size()) return INFINITY;
    double err = 0;
    for (qsizetype l = 0; l < doc.size(); ++l) {
        QJsonArray flat;
        for (const QJsonValue head : doc[l].toArray())
            for (const QJsonValue row : head.toArray())
                for (const QJsonValue x : row.toArray()) flat.append(x);
        const QJsonArray w = want[l].toArray();
        if (flat.size() != w.size()) return INFINITY;
        for (qsizetype k = 0; k < flat.size(); ++k) err = std::max(err, std::abs(flat[k].toDouble() - w[k].toDouble()));
    }
    return err;
}


// `run --text` on an encoder–decoder against a from-text fixture: per generation case the source ids and greedy
// generation (8 tokens), per pair the labels, the decoder input and the three kinds' attentions (<= 1e-5).
void fromTextMatches(const QString &model, const QString &answersPath)
{
    const QJsonObject answers = readJson(answersPath);
    QVERIFY(!answers.isEmpty());
    for (const QJsonValue g : answers["generation"].toArray()) {
        const QJsonObject doc = runDocument({"--model", model, "--text", g["text"].toString(), "--max-new-tokens", "8"});
        QVERIFY(!doc.isEmpty());
        QCOMPARE(doc["input"]["token_ids"].toArray(), g["ids"].toArray());
        QCOMPARE(doc["outputs"]["generated"]["ids"].toArray(), g["generated_8"].toArray());
    }
    for (const QJsonValue p : answers["pairs"].toArray()) {
        const QJsonObject doc = runDocument({"--model", model, "--text", p["source"].toString(), "--target-text",
                                             p["target"].toString()});
        QVERIFY(!doc.isEmpty());
        if (p.toObject().contains("input_ids")) QCOMPARE(doc["input"]["token_ids"].toArray(), p["input_ids"].toArray());
        QCOMPARE(doc["input"]["labels"].toArray(), p["labels"].toArray());
        QCOMPARE(doc["input"]["target_ids"].toArray(), p["decoder_input_ids"].toArray());
        const double enc = attentionError(doc["attention"].toArray(), p["encoder_attentions"].toArray());
        const double dec = attentionError(doc["decoder_attention"].toArray(), p["decoder_attentions"].toArray());
        const double cross = attentionError(doc["cross_attention"].toArray(), p["cross_attentions"].toArray());
        qInfo("%s: encoder %.3g, decoder %.3g, cross %.3g", qPrintable(p["source"].toString()), enc, dec, cross);
        QVERIFY(enc <= 1e-5 && dec <= 1e-5 && cross <= 1e-5);
    }
}

} // namespace

class TestSeq2SeqCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        m_text = readJson(kFixtures + "seq2seq/text.json");
        QVERIFY2(!m_text.isEmpty(), "tests/fixtures/seq2seq/text.json missing");
    }

    // Without a target: greedy generation equals transformers' generate(), token for token, and the attentions
    // come from one pass over [start] + generated[:-1].
    void greedyGenerationMatchesTransformers_data()
    {
        QTest::addColumn<int>("index");
        const QJsonArray cases = readJson(kFixtures + "seq2seq/text.json")["generation"].toArray();
        for (qsizetype i = 0; i < cases.size(); ++i)
            QTest::addRow("%s, %d new", qPrintable(cases[i]["text"].toString()), cases[i]["max_new_tokens"].toInt()) << int(i);
    }
    void greedyGenerationMatchesTransformers()
    {
        QFETCH(int, index);
        const QJsonObject c = m_text["generation"].toArray()[index].toObject();
        const QJsonObject doc = runDocument({"--model", kTextModel, "--text", c["text"].toString(), "--max-new-tokens",
                                             QString::number(c["max_new_tokens"].toInt())});
        QVERIFY(!doc.isEmpty());
        const QJsonObject input = doc["input"].toObject();
        QCOMPARE(input["token_ids"].toArray(), c["input_ids"].toArray());   // the tokenizer, as HF's
        const QJsonArray sequence = c["sequence"].toArray();                 // start token first
        const QJsonObject generated = doc["outputs"]["generated"].toObject();
        QCOMPARE(generated["ids"].toArray(), slice(sequence, 1, sequence.size() - 1));
        QCOMPARE(generated["stopped_at_eos"].toBool(), sequence.last().toInteger() == 1);
        QCOMPARE(input["target_from"].toString(), QStringLiteral("generated"));
        QCOMPARE(input["target_ids"].toArray(), slice(sequence, 0, sequence.size() - 1));
        QCOMPARE(doc["settings"]["decoding"].toString(), QStringLiteral("greedy"));
        // Row t of the pass predicts generated token t.
        QCOMPARE(doc["outputs"]["argmax"].toArray(), generated["ids"].toArray());
        const int T = input["target_length"].toInt(), S = input["length"].toInt();
        QCOMPARE(T, int(sequence.size()) - 1);
        QCOMPARE(doc["cross_attention"][0][0].toArray().size(), T);
        QCOMPARE(doc["cross_attention"][0][0][0].toArray().size(), S);
    }

    // A target text: labels as HF's tokenizer gives them, the decoder input shifted right, and the three attention
    // kinds of that pass as transformers computes them.
    void teacherForcedOnTargetText_data()
    {
        QTest::addColumn<int>("index");
        QTest::addColumn<QString>("backend");
        const QJsonArray cases = readJson(kFixtures + "seq2seq/text.json")["teacher_forced"].toArray();
        for (qsizetype i = 0; i < cases.size(); ++i)
            for (const char *b : {"reference", "tiled"})
                QTest::addRow("%s → %s, %s", qPrintable(cases[i]["text"].toString()),
                              qPrintable(cases[i]["target_text"].toString()), b) << int(i) << QString(b);
    }
    void teacherForcedOnTargetText()
    {
        QFETCH(int, index);
        QFETCH(QString, backend);
        const QJsonObject c = m_text["teacher_forced"].toArray()[index].toObject();
        const QJsonObject doc = runDocument({"--model", kTextModel, "--text", c["text"].toString(), "--target-text",
                                             c["target_text"].toString(), "--backend", backend});
        QVERIFY(!doc.isEmpty());
        const QJsonObject input = doc["input"].toObject();
        QCOMPARE(input["token_ids"].toArray(), c["input_ids"].toArray());
        QCOMPARE(input["labels"].toArray(), c["labels"].toArray());
        QCOMPARE(input["target_ids"].toArray(), c["decoder_input_ids"].toArray());
        QCOMPARE(input["target_tokens"].toArray().last().toString().isEmpty(), false);
        QVERIFY(doc["outputs"]["generated"].isNull());
        QCOMPARE(doc["settings"]["decoding"].toString(), QStringLiteral("teacher_forced"));
        QCOMPARE(doc["settings"]["backend"]["used"].toString(), backend);
        const double enc = attentionError(doc["attention"].toArray(), c["encoder_attentions"].toArray());
        const double dec = attentionError(doc["decoder_attention"].toArray(), c["decoder_attentions"].toArray());
        const double cross = attentionError(doc["cross_attention"].toArray(), c["cross_attentions"].toArray());
        qInfo("encoder %.3g, decoder %.3g, cross %.3g", enc, dec, cross);
        QVERIFY(enc <= 1e-5 && dec <= 1e-5 && cross <= 1e-5);
        QCOMPARE(doc["outputs"]["argmax"].toArray(), c["logits_argmax"].toArray());
        // Rows of every kind sum to 1.
        for (const char *kind : {"attention", "decoder_attention", "cross_attention"})
            for (const QJsonValue layer : doc[kind].toArray())
                for (const QJsonValue head : layer.toArray())
                    for (const QJsonValue row : head.toArray()) {
                        double sum = 0;
                        for (const QJsonValue x : row.toArray()) sum += x.toDouble();
                        QVERIFY2(std::abs(sum - 1.0) < 1e-5, kind);
                    }
    }

    // Ids in, exactly as given (a folder without tokenizer files), against the engine's parity fixture.
    void idsAndTargetIdsAsGiven()
    {
        QFile f(kFixtures + "seq2seq/index.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject c = QJsonDocument::fromJson(f.readAll())["cases"].toArray()[0].toObject();
        const QJsonObject doc = runDocument({"--model", kFixtures + "models/" + c["model"].toString(), "--ids",
                                             idList(c["input_ids"].toArray()), "--target-ids",
                                             idList(c["decoder_input_ids"].toArray())});
        QVERIFY(!doc.isEmpty());
        QCOMPARE(doc["input"]["target_ids"].toArray(), c["decoder_input_ids"].toArray());
        QCOMPARE(doc["input"]["target_from"].toString(), QStringLiteral("ids"));
        QCOMPARE(doc["input"]["tokens"][0].toString(), QStringLiteral("#%1").arg(c["input_ids"][0].toInteger()));
        QCOMPARE(doc["model"]["decoder_layers"].toInt(), 3);
        QCOMPARE(doc["model"]["layers"].toInt(), 2);
        QCOMPARE(doc["decoder_attention"].toArray().size(), 3);
        QCOMPARE(doc["attention"].toArray().size(), 2);
        QCOMPARE(doc["settings"]["all_heads"].toBool(), true);

        // --heads: only those heads, the others null; a bare L.H is every kind's.
        const QJsonObject some = runDocument({"--model", kFixtures + "models/" + c["model"].toString(), "--ids",
                                              idList(c["input_ids"].toArray()), "--target-ids",
                                              idList(c["decoder_input_ids"].toArray()), "--heads", "enc:1.2,cross:2.0,0.1"});
        QVERIFY(!some.isEmpty());
        const auto captured = [&](const char *kind, int layer, int head) { return some[kind][layer][head].isArray(); };
        QVERIFY(captured("attention", 1, 2) && captured("attention", 0, 1) && !captured("attention", 0, 0));
        QVERIFY(captured("cross_attention", 2, 0) && captured("cross_attention", 0, 1) && !captured("cross_attention", 1, 1));
        QVERIFY(captured("decoder_attention", 0, 1) && !captured("decoder_attention", 2, 0));
        QCOMPARE(some["cross_attention"][2][0], doc["cross_attention"][2][0]);   // the same weights as with every head
        QCOMPARE(some["settings"]["heads"]["encoder"].toArray(), (QJsonArray{QJsonArray{1, 2}, QJsonArray{0, 1}}));
    }

    // BART and Marian through the CLI: the three kinds' weights equal transformers' (stacks with different head
    // counts and, for marian-split, different vocabularies), greedy generation equals generate().
    void bartAndMarianMatchTransformers_data()
    {
        QTest::addColumn<QString>("caseName");
        for (const char *c : {"bart-full", "marian-plain", "marian-split"}) QTest::newRow(c) << QString(c);
    }
    void bartAndMarianMatchTransformers()
    {
        QFETCH(QString, caseName);
        const QJsonObject index = readJson(kFixtures + "seq2seq_bart/index.json");
        QJsonObject c;
        for (const QJsonValue v : index["cases"].toArray())
            if (v["case"].toString() == caseName) c = v.toObject();
        QVERIFY(!c.isEmpty());
        const QString model = kFixtures + "models/" + c["model"].toString();
        const QJsonObject doc = runDocument({"--model", model, "--ids", idList(c["input_ids"].toArray()), "--target-ids",
                                             idList(c["decoder_input_ids"].toArray())});
        QVERIFY(!doc.isEmpty());
        const QJsonObject config = readJson(model + "/config.json");
        QCOMPARE(doc["model"]["architecture"].toString(), config["model_type"].toString());
        QCOMPARE(doc["model"]["heads"].toInt(), config["encoder_attention_heads"].toInt());
        QCOMPARE(doc["model"]["decoder_heads"].toInt(), config["decoder_attention_heads"].toInt());
        QCOMPARE(doc["model"]["decoder_layers"].toInt(), config["decoder_layers"].toInt());
        const qsizetype V = config.contains("decoder_vocab_size") && !config["decoder_vocab_size"].isNull()
                                ? config["decoder_vocab_size"].toInt() : config["vocab_size"].toInt();
        QCOMPARE(doc["model"]["decoder_vocab_size"].toInteger(), V);
        for (const char *kind : {"attention", "decoder_attention", "cross_attention"}) {
            // transformers' float64 pass (its float32 one is up to 7.4e-6 off it on these peaked fixtures)
            const char *file = kind == std::string("attention") ? "encoder_attentions_f64.npy"
                               : kind == std::string("decoder_attention") ? "decoder_attentions_f64.npy" : "cross_attentions_f64.npy";
            auto want = attn::readNpyFloat32((kFixtures + "seq2seq_bart/" + caseName + "/" + file).toStdString());
            QVERIFY(want.isOk());
            QJsonArray flat, perLayer;
            const QJsonArray layers = doc[kind].toArray();
            QCOMPARE(qsizetype(want->shape[0]), layers.size());
            const std::size_t per = want->values.size() / std::size_t(want->shape[0]);
            for (qsizetype l = 0; l < layers.size(); ++l) {
                QJsonArray w;
                for (std::size_t k = 0; k < per; ++k) w.append(double(want->values[std::size_t(l) * per + k]));
                perLayer.append(w);
            }
            const double err = attentionError(layers, perLayer);
            qInfo("%s %s: %.3g", qPrintable(caseName), kind, err);
            QVERIFY(err <= 1e-5);
        }
        // Greedy: generate() made generated_8 (at most 8 new tokens; it stops after EOS).
        const QJsonObject gen = runDocument({"--model", model, "--ids", idList(c["input_ids"].toArray()), "--max-new-tokens", "8"});
        QVERIFY(!gen.isEmpty());
        QCOMPARE(gen["outputs"]["generated"]["ids"].toArray(), c["generated_8"].toArray());
        QCOMPARE(gen["outputs"]["generated"]["stopped_at_eos"].toBool(),
                 c["generated_8"].toArray().last().toInteger() == config["eos_token_id"].toInteger());
    }

    // Marian from text (tests/fixtures/models/marian-text-d32: source.spm, target.spm, vocab.json and no
    // tokenizer.json; seq2seq_bart/marian_text.json): the source ids, greedy generate(), and on a target text the
    // labels (target.spm), the shifted decoder input and the three kinds' eager attentions.
    void marianFromText()
    {
        const QString model = kFixtures + "models/marian-text-d32";
        fromTextMatches(model, kFixtures + "seq2seq_bart/marian_text.json");
        const CliRun info = runCli({"info", "--model", model});
        QVERIFY2(info.exitCode == 0, info.err.constData());
        const QJsonObject described = QJsonDocument::fromJson(info.out).object();
        QCOMPARE(described["tokenizer"].toObject()["kind"].toString(), QStringLiteral("sentencepiece"));
    }

    // BART from text: its tokenizer.json on the source and (for --target-text) on the target, labels <s> … </s>,
    // the decoder input [</s>] + labels[:-1] as shift_tokens_right; attentions and greedy generation against
    // transformers (tests/fixtures/seq2seq_bart/bart_text.json, tools/make_bart_text_fixture.py).
    void bartFromText()
    {
        fromTextMatches(kFixtures + "models/bart-text-d32", kFixtures + "seq2seq_bart/bart_text.json");
    }

    // `info` on an encoder–decoder folder describes both stacks instead of refusing model_type t5.
    void info()
    {
        const CliRun r = runCli({"info", "--model", kTextModel});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject info = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(info["architecture"].toString(), QStringLiteral("t5"));
        const QJsonObject config = readJson(kTextModel + "/config.json");
        QCOMPARE(info["layers"].toInt(), config["num_layers"].toInt());
        QCOMPARE(info["decoder_layers"].toInt(), config["num_decoder_layers"].toInt());
        QCOMPARE(info["heads"].toInt(), config["num_heads"].toInt());
        QCOMPARE(info["d_head"].toInt(), config["d_kv"].toInt());
        QCOMPARE(info["feed_forward"].toString(), QStringLiteral("gated-gelu_new"));
        QCOMPARE(info["tokenizer"]["kind"].toString(), QStringLiteral("unigram"));
        const CliRun bare = runCli({"info", "--model", kFixtures + "models/t5-gated-d48h3"});
        QVERIFY2(bare.exitCode == 0, bare.err.constData());
        QVERIFY(QJsonDocument::fromJson(bare.out).object()["tokenizer"].isNull());
        const CliRun bart = runCli({"info", "--model", kFixtures + "models/bart-d48-e4d3"});
        QVERIFY2(bart.exitCode == 0, bart.err.constData());
        const QJsonObject b = QJsonDocument::fromJson(bart.out).object();
        QCOMPARE(b["family"].toString(), QStringLiteral("BART"));
        QCOMPARE(b["positional"].toString(), QStringLiteral("learned"));
        QCOMPARE(b["heads"].toInt(), 4);
        QCOMPARE(b["decoder_heads"].toInt(), 3);
        QCOMPARE(b["decoder_d_head"].toInt(), 16);
        const CliRun marian = runCli({"info", "--model", kFixtures + "models/marian-d40-e4d2"});
        QVERIFY2(marian.exitCode == 0, marian.err.constData());
        QCOMPARE(QJsonDocument::fromJson(marian.out).object()["positional"].toString(), QStringLiteral("sinusoidal"));
        QCOMPARE(QJsonDocument::fromJson(marian.out).object()["feed_forward"].toString(), QStringLiteral("silu"));
    }

    // --npy: one float32 file per kind beside the JSON, holding exactly the weights the JSON would hold, named with
    // their digests; with --heads only those heads, in the order given.
    void npyFiles()
    {
        const QStringList source{"--model", kTextModel, "--text", "the cat sat on the mat", "--target-text", "a cat sat on a mat"};
        const QJsonObject inline_ = runDocument(source);
        QVERIFY(!inline_.isEmpty());
        QTemporaryDir dir;
        const QString json = dir.filePath("t5.json");
        for (const bool some : {false, true}) {
            QStringList args = QStringList{"run"} + source + QStringList{"--npy", "--out", json};
            if (some) args << "--heads" << "cross:1.2,0.3";
            const CliRun r = runCli(args);
            QVERIFY2(r.exitCode == 0, r.err.constData());
            const QJsonObject doc = readJson(json);
            QVERIFY(attn::test::validateJsonSchema(doc, readJson(QStringLiteral(ATTNSCOPE_SCHEMA_DIR "/seq2seq.schema.json"))).isEmpty());
            for (const char *kind : {"attention", "decoder_attention", "cross_attention"}) {
                const QJsonObject ref = doc[kind].toObject();
                QCOMPARE(ref["npy"].toString(), QStringLiteral("t5.%1.npy").arg(QLatin1String(kind)));
                QFile file(dir.filePath(ref["npy"].toString()));
                QVERIFY(file.open(QIODevice::ReadOnly));
                const QByteArray bytes = file.readAll();
                QCOMPARE(QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()), ref["sha256"].toString());
                auto npy = attn::parseNpyFloat32(std::string_view(bytes.constData(), std::size_t(bytes.size())), kind);
                QVERIFY2(npy.isOk(), npy.status().message().c_str());
                QJsonArray shape;
                for (std::int64_t d : npy->shape) shape.append(qint64(d));
                QCOMPARE(shape, ref["shape"].toArray());
                // The heads in file order: every head layer-major, or the chosen ones as listed.
                QList<QPair<int, int>> heads;
                if (ref.contains("heads")) {
                    for (const QJsonValue h : ref["heads"].toArray()) heads << qMakePair(h[0].toInt(), h[1].toInt());
                } else {
                    const QJsonArray all = inline_[kind].toArray();
                    for (int l = 0; l < all.size(); ++l)
                        for (int h = 0; h < all[l].toArray().size(); ++h) heads << qMakePair(l, h);
                }
                const int layers = inline_[kind].toArray().size(), perLayer = inline_[kind][0].toArray().size();
                QCOMPARE(heads.size(), !some ? layers * perLayer : QLatin1String(kind) == QLatin1String("cross_attention") ? 2 : 1);
                std::size_t k = 0;
                for (const auto &[l, h] : heads)
                    for (const QJsonValue row : inline_[kind][l][h].toArray())
                        for (const QJsonValue x : row.toArray()) {
                            QVERIFY(k < npy->values.size());
                            QCOMPARE(double(npy->values[k++]), double(float(x.toDouble())));
                        }
                QCOMPARE(k, npy->values.size());
            }
            if (some) {
                QCOMPARE(doc["cross_attention"]["heads"].toArray(), (QJsonArray{QJsonArray{1, 2}, QJsonArray{0, 3}}));
                QCOMPARE(doc["attention"]["heads"].toArray(), (QJsonArray{QJsonArray{0, 3}}));
            }
        }
        const CliRun toStdout = runCli(QStringList{"run"} + source + QStringList{"--npy", "--out", "-"});
        QCOMPARE(toStdout.exitCode, 2);
    }

    void badArguments_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("names");
        const QStringList t5{"run", "--model", kTextModel, "--out", "-"};
        QTest::addRow("target on a decoder-only model")
            << QStringList{"run", "--model", "sample:induction-gpt2", "--text", "bo he", "--target-text", "so", "--out", "-"}
            << 2 << "not an encoder-decoder";
        QTest::addRow("both targets") << t5 + QStringList{"--text", "the cat", "--target-text", "a", "--target-ids", "0,4"}
                                      << 2 << "--target-ids";
        QTest::addRow("max-new-tokens with a target") << t5 + QStringList{"--text", "the cat", "--target-ids", "0,4", "--max-new-tokens", "3"}
                                                      << 2 << "--max-new-tokens";
        QTest::addRow("max-new-tokens 0") << t5 + QStringList{"--text", "the cat", "--max-new-tokens", "0"} << 2 << "--max-new-tokens";
        QTest::addRow("no source") << t5 << 2 << "--text";
        QTest::addRow("source id outside the vocabulary") << t5 + QStringList{"--ids", "4,999"} << 2 << "999";
        QTest::addRow("bad target ids") << t5 + QStringList{"--ids", "4", "--target-ids", "0,x"} << 2 << "--target-ids";
        QTest::addRow("--heads outside the decoder") << t5 + QStringList{"--ids", "4", "--heads", "dec:2.0"} << 2 << "--heads";
        QTest::addRow("--heads unknown kind") << t5 + QStringList{"--ids", "4", "--heads", "self:0.0"} << 2 << "--heads";
        QTest::addRow("text without a tokenizer")
            << QStringList{"run", "--model", kFixtures + "models/t5-gated-d48h3", "--text", "a", "--out", "-"} << 1 << "tokenizer";
    }
    void badArguments()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, names);
        const CliRun r = runCli(args);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(names.toUtf8()), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }

private:
    QJsonObject m_text;
};

QTEST_GUILESS_MAIN(TestSeq2SeqCli)
#include "tst_seq2seq_cli.moc"
