// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope-cli as scripts see it: exit codes, messages on stderr that name the option, `bench --json` lines that
// carry every documented field, `info` summaries, and `run` exports checked against docs/schema/run.schema.json
// and against what attention weights must be (rows sum to 1, masked entries exactly 0).

#include "jsonschema.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cmath>

namespace {

struct CliRun {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

CliRun runCli(const QStringList &args, int timeoutMs = 30000)
{
    QProcess process;
    process.start(QStringLiteral(ATTNSCOPE_CLI_PATH), args);
    CliRun run;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        run.err = "timed out";
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

// Bad arguments: exit 2, a message naming the option, nothing on stdout.
void expectBadArguments(const QStringList &args, const QString &names)
{
    const CliRun run = runCli(args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(names.toUtf8()), run.err.constData());
    QVERIFY(run.out.isEmpty());
}

const QString kFixtures = QStringLiteral(ATTNSCOPE_TEST_DATA_DIR "/fixtures/models/");
const QString kRandom = QStringLiteral("random:layers=2,heads=4,d_model=32,seed=1");

QJsonObject runSchema()
{
    QFile file(QStringLiteral(ATTNSCOPE_SCHEMA_DIR "/run.schema.json"));
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

// attention[layer][head] as an L x L matrix (empty when the head is null or the shape is wrong).
std::vector<std::vector<double>> matrix(const QJsonObject &doc, int layer, int head)
{
    std::vector<std::vector<double>> m;
    for (const QJsonValue &row : doc.value("attention").toArray().at(layer).toArray().at(head).toArray()) {
        m.emplace_back();
        for (const QJsonValue &x : row.toArray()) m.back().push_back(x.toDouble());
    }
    return m;
}


// Our own reader of the .npy files `run --tensors npy` writes: format 1.0, '<f4', C order. Empty on any surprise,
// with `why` saying which.
struct Npy {
    std::vector<qint64> shape;
    std::vector<float> data;
};
Npy readNpy(const QString &path, QString &why)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) { why = "cannot open " + path; return {}; }
    const QByteArray bytes = file.readAll();
    if (bytes.size() < 10 || !bytes.startsWith(QByteArray("\x93NUMPY", 6))) { why = "no magic"; return {}; }
    if (bytes[6] != 1 || bytes[7] != 0) { why = "not version 1.0"; return {}; }
    const int headerLength = quint8(bytes[8]) | (quint8(bytes[9]) << 8);
    if ((10 + headerLength) % 64 != 0) { why = "data not 64-byte aligned"; return {}; }
    const QByteArray header = bytes.mid(10, headerLength);
    if (!header.endsWith('\n')) { why = "header does not end in a newline"; return {}; }
    if (!header.contains("'descr': '<f4'") || !header.contains("'fortran_order': False")) { why = "header: " + header; return {}; }
    const qsizetype open = header.indexOf("'shape': ("), close = header.indexOf(')', open);
    if (open < 0 || close < 0) { why = "no shape"; return {}; }
    Npy npy;
    qint64 count = 1;
    for (const QByteArray &dim : header.mid(open + 10, close - open - 10).split(',')) {
        if (dim.trimmed().isEmpty()) continue;
        npy.shape.push_back(dim.trimmed().toLongLong());
        count *= npy.shape.back();
    }
    const QByteArray payload = bytes.mid(10 + headerLength);
    if (payload.size() != count * 4) { why = QString("payload %1 bytes for %2 floats").arg(payload.size()).arg(count); return {}; }
    npy.data.resize(std::size_t(count));
    for (qint64 k = 0; k < count; ++k) {
        quint32 bits = 0;
        for (int b = 0; b < 4; ++b) bits |= quint32(quint8(payload[k * 4 + b])) << (8 * b);   // little-endian
        npy.data[std::size_t(k)] = std::bit_cast<float>(bits);
    }
    return npy;
}

QJsonObject readJson(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}
} // namespace

class TestCli : public QObject {
    Q_OBJECT

private slots:
    void help_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::addRow("top-level --help") << QStringList{"--help"} << "bench";
        QTest::addRow("top-level --help lists run") << QStringList{"--help"} << "run";
        QTest::addRow("info --help") << QStringList{"info", "--help"} << "--model";
        QTest::addRow("run --help") << QStringList{"run", "--help"} << "--heads";
        QTest::addRow("bench --help") << QStringList{"bench", "--help"} << "--backend";
        QTest::addRow("--version") << QStringList{"--version"} << "attnscope-cli";
    }
    void help()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const CliRun run = runCli(args);
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(mentions.toUtf8()), run.out.constData());
    }

    void badArguments_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("names");
        QTest::addRow("no verb") << QStringList{} << "Usage";
        QTest::addRow("unknown verb") << QStringList{"frobnicate"} << "frobnicate";
        QTest::addRow("unknown option") << QStringList{"bench", "--bogus"} << "bogus";
        QTest::addRow("non-integer --n") << QStringList{"bench", "--n", "abc"} << "--n";
        QTest::addRow("zero --n") << QStringList{"bench", "--n", "0"} << "--n";
        QTest::addRow("missing value") << QStringList{"bench", "--d"} << "--d";
        QTest::addRow("negative --threads") << QStringList{"bench", "--threads", "-1"} << "--threads";
        QTest::addRow("unknown backend") << QStringList{"bench", "--backend", "gpu9"} << "--backend";
        QTest::addRow("unknown weights") << QStringList{"bench", "--weights", "some"} << "--weights";
        QTest::addRow("weights in memory mode") << QStringList{"bench", "--memory", "--weights", "all"} << "--weights";
        QTest::addRow("stray argument") << QStringList{"bench", "extra"} << "extra";
    }
    void badArguments()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, names);
        expectBadArguments(args, names);
    }

    void info_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("dModel");
        QTest::addColumn<QString>("head");
        QTest::addRow("gpt2-tiny") << kFixtures + "gpt2-tiny" << 2 << 4 << 64 << "causal_lm";
        QTest::addRow("bert-cls-d72h3") << kFixtures + "bert-cls-d72h3" << 2 << 3 << 72 << "classifier";
        QTest::addRow("bert-mlm") << kFixtures + "bert-mlm" << 2 << 4 << 48 << "masked_lm";
        QTest::addRow("random") << kRandom << 2 << 4 << 32 << "none";
    }
    void info()
    {
        QFETCH(QString, model);
        QFETCH(int, layers);
        QFETCH(int, heads);
        QFETCH(int, dModel);
        QFETCH(QString, head);
        const CliRun run = runCli({"info", "--model", model});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QJsonParseError parseError;
        const QJsonObject o = QJsonDocument::fromJson(run.out, &parseError).object();
        QVERIFY2(parseError.error == QJsonParseError::NoError, qPrintable(parseError.errorString()));
        QCOMPARE(o.value("layers").toInt(), layers);
        QCOMPARE(o.value("heads").toInt(), heads);
        QCOMPARE(o.value("d_model").toInt(), dModel);
        QCOMPARE(o.value("d_head").toInt(), dModel / heads);
        QCOMPARE(o.value("head").toString(), head);
        QCOMPARE(o.value("source").toString(), model);
        for (const char *key : {"name", "architecture", "architecture_class", "vocab_size", "max_positions",
                                "positional", "tokenizer", "special_tokens", "parameter_count", "labels"})
            QVERIFY2(o.contains(key), key);
        QVERIFY(o.value("parameter_count").toDouble() > 0);
        if (head == "classifier") QCOMPARE(o.value("labels").toArray().size(), 3);
        else QVERIFY(o.value("labels").isNull());
        // The fixtures have no tokenizer files: info still works and says why.
        if (!model.startsWith("random:")) QVERIFY(o.value("tokenizer_error").toString().contains("tokenizer"));
    }

    void modelErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("names");
        QTest::addRow("info unknown sample") << QStringList{"info", "--model", "sample:no-such-model"} << "no-such-model";
        QTest::addRow("info bad folder") << QStringList{"info", "--model", "/nonexistent/folder"} << "/nonexistent/folder";
        QTest::addRow("info pickle only") << QStringList{"info", "--model", "PICKLE"} << "pytorch_model.bin";
        QTest::addRow("run unknown sample")
            << QStringList{"run", "--model", "sample:no-such-model", "--text", "a", "--out", "-"} << "no-such-model";
        QTest::addRow("run bad folder")
            << QStringList{"run", "--model", "/nonexistent/folder", "--text", "a", "--out", "-"} << "/nonexistent/folder";
        QTest::addRow("run text without a tokenizer")
            << QStringList{"run", "--model", kFixtures + "gpt2-tiny", "--text", "a", "--out", "-"} << "tokenizer";
        QTest::addRow("run too long for the positions")
            << QStringList{"run", "--model", kFixtures + "gpt2-tiny", "--ids", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,"
                           "17,18,19,20,21,22,23,24,25", "--out", "-"} << "n_positions";
        QTest::addRow("run id outside the vocabulary")
            << QStringList{"run", "--model", kFixtures + "gpt2-tiny", "--ids", "1,500", "--out", "-"} << "500";
    }
    void modelErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, names);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        if (args.contains("PICKLE")) {
            QVERIFY(QFile::copy(kFixtures + "gpt2-tiny/config.json", dir.filePath("config.json")));
            QFile bin(dir.filePath("pytorch_model.bin"));
            QVERIFY(bin.open(QIODevice::WriteOnly));
            bin.write("not really a pickle");
            bin.close();
            args.replace(args.indexOf("PICKLE"), dir.path());
        }
        const CliRun run = runCli(args);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(names.toUtf8()), run.err.constData());
        QVERIFY(run.out.isEmpty());
    }

    void runBadArguments_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("names");
        const QStringList base{"run", "--model", kRandom, "--text", "abc", "--out", "-"};
        QTest::addRow("info without --model") << QStringList{"info"} << "--model";
        QTest::addRow("no --model") << QStringList{"run", "--text", "a", "--out", "-"} << "--model";
        QTest::addRow("no --out") << QStringList{"run", "--model", kRandom, "--text", "a"} << "--out";
        QTest::addRow("no input") << QStringList{"run", "--model", kRandom, "--out", "-"} << "--text";
        QTest::addRow("text and ids") << base + QStringList{"--ids", "1,2"} << "--ids";
        QTest::addRow("bad --ids") << QStringList{"run", "--model", kRandom, "--ids", "1,x", "--out", "-"} << "--ids";
        QTest::addRow("bad --mask") << base + QStringList{"--mask", "diagonal"} << "--mask";
        QTest::addRow("bad window") << base + QStringList{"--mask", "window:-3"} << "--mask";
        QTest::addRow("bad --backend") << base + QStringList{"--backend", "gpu9"} << "--backend";
        QTest::addRow("bad --heads") << base + QStringList{"--heads", "first"} << "--heads";
        QTest::addRow("--heads outside the model") << base + QStringList{"--heads", "0.1,5.0"} << "--heads";
        QTest::addRow("negative --pad") << base + QStringList{"--pad", "-1"} << "--pad";
        QTest::addRow("zero --top-k") << base + QStringList{"--top-k", "0"} << "--top-k";
        QTest::addRow("bad --threads") << base + QStringList{"--threads", "many"} << "--threads";
        QTest::addRow("--text-pair with --ids") << QStringList{"run", "--model", kRandom, "--ids", "1,2", "--text-pair", "b", "--out", "-"} << "--text-pair";
        QTest::addRow("--truncate with --ids") << QStringList{"run", "--model", kRandom, "--ids", "1,2", "--truncate", "--out", "-"} << "--truncate";
    }
    void runBadArguments()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, names);
        expectBadArguments(args, names);
    }

    // The shared option table (app/cli/options.cpp): a numeric option outside its range is a bad argument whose
    // message names the option, the value and the range, and --help shows the range.
    void optionRanges_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QStringList base{"run", "--model", kRandom, "--text", "abc", "--out", "-"};
        QTest::addRow("--pad above") << base + QStringList{"--pad", "70000"} << "--pad: 70000 is outside 0..65536";
        QTest::addRow("--pad below") << base + QStringList{"--pad", "-1"} << "--pad: -1 is outside 0..65536";
        QTest::addRow("--threads text") << base + QStringList{"--threads", "many"}
                                        << "--threads: 'many' is not an integer in 0..4096";
        QTest::addRow("--top-k zero") << base + QStringList{"--top-k", "0"} << "--top-k: 0 is outside 1..100000";
        QTest::addRow("bench --n zero") << QStringList{"bench", "--n", "0"} << "--n: 0 is outside 1..16777216";
        QTest::addRow("bench --max-seconds") << QStringList{"bench", "--max-seconds", "-2.5"}
                                             << "--max-seconds: -2.5 is outside 0..1000000";
        QTest::addRow("equivariance --threads") << QStringList{"equivariance", "--model", kRandom, "--text", "ab",
                                                               "--threads", "5000", "--out", "-"}
                                                << "--threads: 5000 is outside 0..4096";
    }
    void optionRanges()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const CliRun run = runCli(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
        QVERIFY(run.out.isEmpty());
    }
    void helpShowsRanges_data()
    {
        QTest::addColumn<QString>("verb");
        QTest::addColumn<QString>("range");
        QTest::addRow("run --pad") << "run" << "(0..65536; default 0)";
        QTest::addRow("run --threads") << "run" << "(0..4096; default 0)";
        QTest::addRow("bench --n") << "bench" << "(1..16777216; default 1024)";
        QTest::addRow("faithfulness --seed") << "faithfulness" << "(>= 0; default 42)";
        QTest::addRow("figure --dpi") << "figure" << "(48..1200; default 192)";
    }
    void helpShowsRanges()
    {
        QFETCH(QString, verb);
        QFETCH(QString, range);
        const CliRun run = runCli({verb, "--help"});
        QCOMPARE(run.exitCode, 0);
        // Qt wraps long descriptions; the range may be split across lines.
        QVERIFY2(QString::fromUtf8(run.out).simplified().contains(range), run.out.constData());
    }

    void runExport_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mask");       // the effective structure: which entries must be 0
        QTest::addColumn<int>("window");
        QTest::addColumn<int>("padding");
        QTest::addColumn<QString>("outputs");
        QTest::addRow("random bidirectional") << QStringList{"--model", kRandom, "--text", "hello world"}
                                              << "bidirectional" << -1 << 0 << "none";
        QTest::addRow("random causal override") << QStringList{"--model", kRandom, "--text", "hello", "--mask", "causal"}
                                                << "causal" << -1 << 0 << "none";
        QTest::addRow("random window:1, reference") << QStringList{"--model", kRandom, "--text", "abcdefg", "--mask",
                                                                   "window:1", "--backend", "reference"}
                                                    << "window" << 1 << 0 << "none";
        QTest::addRow("random pad 2") << QStringList{"--model", kRandom, "--text", "abc", "--pad", "2"}
                                      << "bidirectional" << -1 << 2 << "none";
        QTest::addRow("gpt2-tiny causal, pad 2") << QStringList{"--model", kFixtures + "gpt2-tiny", "--ids", "5,6,7,8,9",
                                                                "--pad", "2", "--top-k", "3"}
                                                 << "causal" << -1 << 2 << "causal_lm";
        QTest::addRow("gpt2-tiny causal-window:2, unfused")
            << QStringList{"--model", kFixtures + "gpt2-tiny", "--ids", "5,6,7,8,9,10", "--mask", "causal-window:2",
                           "--backend", "unfused"}
            << "causal_window" << 2 << 0 << "causal_lm";
        QTest::addRow("bert-cls") << QStringList{"--model", kFixtures + "bert-cls-d72h3", "--ids", "2,10,11,12,3"}
                                  << "bidirectional" << -1 << 0 << "classifier";
        QTest::addRow("bert-mlm causal override, pad 1")
            << QStringList{"--model", kFixtures + "bert-mlm", "--ids", "2,10,11,3", "--mask", "causal", "--pad", "1"}
            << "causal" << -1 << 1 << "masked_lm";
    }
    void runExport()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mask);
        QFETCH(int, window);
        QFETCH(int, padding);
        QFETCH(QString, outputs);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath("run.json");
        const CliRun run = runCli(QStringList{"run"} + args + QStringList{"--out", path});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY(!QFile::exists(path + ".tmp"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonParseError parseError;
        const QJsonObject doc = QJsonDocument::fromJson(file.readAll(), &parseError).object();
        QVERIFY2(parseError.error == QJsonParseError::NoError, qPrintable(parseError.errorString()));

        const QStringList problems = attn::test::validateJsonSchema(doc, runSchema());
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        QVERIFY(!runSchema().isEmpty());

        const QJsonObject model = doc.value("model").toObject(), input = doc.value("input").toObject();
        const QJsonObject settings = doc.value("settings").toObject();
        const int layers = model.value("layers").toInt(), heads = model.value("heads").toInt();
        const int L = input.value("length").toInt();
        QCOMPARE(input.value("tokens").toArray().size(), L);
        QCOMPARE(input.value("token_ids").toArray().size(), L);
        QCOMPARE(input.value("padding").toInt(), padding);
        QCOMPARE(settings.value("mask").toObject().value("kind").toString(), mask);
        QCOMPARE(settings.value("mask").toObject().value("padding_keys").toInt(), padding);
        QCOMPARE(settings.value("dtype").toString(), QStringLiteral("float32"));
        QCOMPARE(doc.value("outputs").toObject().value("kind").toString(), outputs);
        QVERIFY(doc.value("analyses").isObject());
        for (int k = L - padding; k < L; ++k) {
            QCOMPARE(input.value("special").toArray().at(k).toInt(), 1);
            QCOMPARE(input.value("attention_mask").toArray().at(k).toInt(), 0);
        }

        const QJsonArray attention = doc.value("attention").toArray();
        QCOMPARE(attention.size(), layers);
        for (int layer = 0; layer < layers; ++layer) {
            QCOMPARE(attention.at(layer).toArray().size(), heads);
            for (int head = 0; head < heads; ++head) {
                const auto P = matrix(doc, layer, head);
                QCOMPARE(int(P.size()), L);
                for (int i = 0; i < L; ++i) {
                    QCOMPARE(int(P[i].size()), L);
                    double sum = 0.0;
                    for (int j = 0; j < L; ++j) {
                        const bool padKey = j >= L - padding;
                        const bool masked = padKey || ((mask == "causal" || mask == "causal_window") && j > i) ||
                                            (window >= 0 && std::abs(i - j) > window);
                        if (masked) QVERIFY2(P[i][j] == 0.0, qPrintable(QStringLiteral("%1.%2 [%3][%4] = %5")
                                                                            .arg(layer).arg(head).arg(i).arg(j).arg(P[i][j])));
                        QVERIFY(P[i][j] >= 0.0 && P[i][j] <= 1.0);
                        sum += P[i][j];
                    }
                    QVERIFY2(std::abs(sum - 1.0) < 1e-5, qPrintable(QStringLiteral("row %1 sums to %2").arg(i).arg(sum)));
                }
            }
        }
        const QJsonObject out = doc.value("outputs").toObject();
        if (outputs == "classifier") {
            double sum = 0.0;
            for (const QJsonValue &p : out.value("probabilities").toArray()) sum += p.toDouble();
            QVERIFY(std::abs(sum - 1.0) < 1e-5);
            QCOMPARE(out.value("labels").toArray().size(), 3);
        }
        if (outputs == "causal_lm") {
            QCOMPARE(out.value("top_k").toArray().size(), args.contains("--top-k") ? 3 : 5);
            QCOMPARE(out.value("position").toInt(), L - padding - 1);   // the last real token
            QCOMPARE(out.value("argmax").toArray().size(), L);
        }
    }

    // A sentence pair on the BERT sample: the pair template's tokens, token types 0 then 1, which text each token's
    // offsets point into; a text longer than the positions is refused, or cut with --truncate.
    void runPairAndTruncate()
    {
        const QString model = QStringLiteral("sample:rationale-bert");
        const CliRun run = runCli({"run", "--model", model, "--text", "the plot was excellent", "--text-pair", "the dog",
                                   "--out", "-"});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(run.out).object();
        const QStringList problems = attn::test::validateJsonSchema(doc, runSchema());
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        const QJsonObject input = doc.value("input").toObject();
        QCOMPARE(input.value("text_pair").toString(), QStringLiteral("the dog"));
        QCOMPARE(input.value("truncated").toBool(), false);
        const QJsonArray tokens = input.value("tokens").toArray(), types = input.value("token_type_ids").toArray();
        const QJsonArray seq = input.value("sequence_ids").toArray(), offsets = input.value("offsets").toArray();
        QCOMPARE(tokens.last().toString(), QStringLiteral("[SEP]"));
        int seps = 0;
        for (int i = 0; i < tokens.size(); ++i) {
            QCOMPARE(types.at(i).toInt(), seps >= 1 && tokens.at(i).toString() != QLatin1String("[CLS]") ? 1 : 0);
            if (tokens.at(i).toString() == QLatin1String("[SEP]")) {
                ++seps;
                QCOMPARE(seq.at(i).toInt(), -1);
                continue;
            }
            if (i == 0) continue;
            const QString source = seps == 0 ? QStringLiteral("the plot was excellent") : QStringLiteral("the dog");
            QCOMPARE(seq.at(i).toInt(), seps == 0 ? 0 : 1);
            const QJsonArray o = offsets.at(i).toArray();
            QCOMPARE(source.mid(o.at(0).toInt(), o.at(1).toInt() - o.at(0).toInt()), tokens.at(i).toString());
        }
        QCOMPARE(seps, 2);

        QString longText;
        for (int i = 0; i < 300; ++i) longText += QStringLiteral("film ");
        const CliRun refused = runCli({"run", "--model", model, "--text", longText, "--out", "-"});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("truncation keeps the first 128"), refused.err.constData());
        const CliRun cut = runCli({"run", "--model", model, "--text", longText, "--truncate", "--out", "-"});
        QVERIFY2(cut.exitCode == 0, cut.err.constData());
        const QJsonObject cutDoc = QJsonDocument::fromJson(cut.out).object();
        QVERIFY(attn::test::validateJsonSchema(cutDoc, runSchema()).isEmpty());
        const QJsonObject cutInput = cutDoc.value("input").toObject();
        QCOMPARE(cutInput.value("length").toInt(), 128);
        QCOMPARE(cutInput.value("truncated").toBool(), true);
        QCOMPARE(cutInput.value("untruncated_length").toInt(), 302);   // 300 words and [CLS] [SEP]
        QCOMPARE(cutInput.value("tokens").toArray().last().toString(), QStringLiteral("[SEP]"));

        // A model without a tokenizer has no pair template: an error naming it.
        const CliRun random = runCli({"run", "--model", kRandom, "--text", "a", "--text-pair", "b", "--out", "-"});
        QCOMPARE(random.exitCode, 1);
        QVERIFY2(random.err.contains("no pair template"), random.err.constData());
    }

    void runHeadSubset()
    {
        const CliRun run = runCli({"run", "--model", kRandom, "--text", "heads", "--heads", "0.1,1.3", "--out", "-"});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(run.out).object();
        QVERIFY(attn::test::validateJsonSchema(doc, runSchema()).isEmpty());
        const QJsonArray attention = doc.value("attention").toArray();
        QCOMPARE(attention.size(), 2);
        for (int layer = 0; layer < 2; ++layer)
            for (int head = 0; head < 4; ++head) {
                const bool captured = (layer == 0 && head == 1) || (layer == 1 && head == 3);
                QCOMPARE(attention.at(layer).toArray().at(head).isArray(), captured);
                QCOMPARE(attention.at(layer).toArray().at(head).isNull(), !captured);
            }
        const QJsonObject settings = doc.value("settings").toObject();
        QCOMPARE(settings.value("all_heads").toBool(), false);
        QCOMPARE(settings.value("heads").toArray(), (QJsonArray{QJsonArray{0, 1}, QJsonArray{1, 3}}));
    }

    void runUnwritableOutput_data()
    {
        QTest::addColumn<QString>("relative");
        QTest::addRow("missing folder") << "no/such/folder/run.json";
        QTest::addRow("a folder") << "existing-folder";
    }
    void runUnwritableOutput()
    {
        QFETCH(QString, relative);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QDir(dir.path()).mkdir("existing-folder"));
        const QString path = dir.filePath(relative);
        const CliRun run = runCli({"run", "--model", kRandom, "--text", "abc", "--out", path});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(path.toUtf8()), run.err.constData());
        QVERIFY(!QFile::exists(path + ".tmp"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList{"existing-folder"});
    }

    void runReplacesAtomically()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath("run.json");
        QFile old(path);
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("old contents");
        old.close();
        const CliRun run = runCli({"run", "--model", kRandom, "--text", "abc", "--out", path});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QFile now(path);
        QVERIFY(now.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(now.readAll()).object().value("format").toString(), QStringLiteral("attnscope"));
    }

    // --tensors npy: the same weights, bit for bit, in a .npy beside the JSON; NaN for heads not exported.
    void runNpy_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("flag");
        QTest::addRow("random, two heads") << QStringList{"--model", kRandom, "--text", "attend!", "--heads", "1.2,0.0"}
                                           << "--npy";
        QTest::addRow("gpt2-tiny, pad 2") << QStringList{"--model", kFixtures + "gpt2-tiny", "--ids", "2,7,11,5", "--pad", "2"}
                                          << "--tensors=npy";
    }
    void runNpy()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, flag);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString arrays = dir.filePath("arrays.json"), side = dir.filePath("side.json");
        CliRun run = runCli(QStringList{"run"} + args + QStringList{"--out", arrays});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        run = runCli(QStringList{"run"} + args + QStringList{flag, "--out", side});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files, QDir::Name),
                 (QStringList{"arrays.json", "side.attention.npy", "side.json"}));

        const QJsonObject a = readJson(arrays), b = readJson(side);
        const QStringList problems = attn::test::validateJsonSchema(b, runSchema());
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        QVERIFY(attn::test::validateJsonSchema(a, runSchema()).isEmpty());
        for (const QString &key : {"model", "input", "settings", "outputs"}) QCOMPARE(b.value(key), a.value(key));
        const QJsonObject ref = b.value("attention").toObject();
        QCOMPARE(ref.value("npy").toString(), QStringLiteral("side.attention.npy"));
        QCOMPARE(ref.value("dtype").toString(), QStringLiteral("float32"));
        QCOMPARE(ref.value("missing").toString(), QStringLiteral("nan"));
        const int layers = a.value("model").toObject().value("layers").toInt();
        const int heads = a.value("model").toObject().value("heads").toInt();
        const int L = a.value("input").toObject().value("length").toInt();
        // Every head: [layers, heads, n, n]. Some heads (--heads): only those, [k, n, n] in the order of "heads".
        const QJsonArray capturedHeads = b.value("settings").toObject().value("heads").toArray();
        const bool every = capturedHeads.size() == layers * heads;
        QCOMPARE(ref.contains("heads"), !every);
        if (!every) QCOMPARE(ref.value("heads").toArray(), capturedHeads);
        const std::vector<qint64> shape = every ? std::vector<qint64>{layers, heads, L, L}
                                                : std::vector<qint64>{qint64(capturedHeads.size()), L, L};
        QJsonArray shapeJson;
        for (qint64 v : shape) shapeJson.append(v);
        QCOMPARE(ref.value("shape").toArray(), shapeJson);

        QFile npyFile(dir.filePath("side.attention.npy"));
        QVERIFY(npyFile.open(QIODevice::ReadOnly));
        QCOMPARE(ref.value("sha256").toString(),
                 QString::fromLatin1(QCryptographicHash::hash(npyFile.readAll(), QCryptographicHash::Sha256).toHex()));
        QString why;
        const Npy npy = readNpy(dir.filePath("side.attention.npy"), why);
        QVERIFY2(!npy.data.empty(), qPrintable(why));
        QCOMPARE(npy.shape, shape);
        const QJsonArray attention = a.value("attention").toArray();
        int captured = 0;
        for (int layer = 0; layer < layers; ++layer)
            for (int head = 0; head < heads; ++head) {
                const QJsonValue h = attention.at(layer).toArray().at(head);
                if (h.isNull()) continue;
                qsizetype block = every ? qsizetype(layer) * heads + head : -1;
                for (qsizetype k = 0; !every && k < capturedHeads.size(); ++k)
                    if (capturedHeads.at(k).toArray() == QJsonArray{layer, head}) block = k;
                QVERIFY(block >= 0);
                const float *weights = npy.data.data() + std::size_t(block) * std::size_t(L) * L;
                ++captured;
                for (int i = 0; i < L; ++i)
                    for (int j = 0; j < L; ++j) {
                        const float fromJson = float(h.toArray().at(i).toArray().at(j).toDouble());
                        QCOMPARE(std::bit_cast<quint32>(weights[i * L + j]), std::bit_cast<quint32>(fromJson));
                    }
            }
        QCOMPARE(captured, capturedHeads.size());
        QCOMPARE(npy.data.size(), std::size_t(captured) * std::size_t(L) * L);   // nothing but the captured heads
    }

    void runNpyBadArgumentsAndFailures()
    {
        expectBadArguments({"run", "--model", kRandom, "--text", "abc", "--npy", "--out", "-"}, "--tensors");
        expectBadArguments({"run", "--model", kRandom, "--text", "abc", "--analyses", "stats,bogus", "--out", "-"}, "--analyses");
        expectBadArguments({"run", "--model", kRandom, "--text", "abc", "--tensors", "csv", "--out", "x.json"}, "--tensors");
        // The JSON cannot replace a folder: the .npy written before it is taken away again, nothing is left.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QDir(dir.path()).mkdir("run.json"));
        CliRun run = runCli({"run", "--model", kRandom, "--text", "abc", "--npy", "--out", dir.filePath("run.json")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("run.json"), run.err.constData());
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList{"run.json"});
        // The .npy cannot be written: no JSON either.
        run = runCli({"run", "--model", kRandom, "--text", "abc", "--npy", "--out", dir.filePath("no-such/run.json")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY(!QFileInfo::exists(dir.filePath("no-such")));
    }

    // `map` against `run`: the grid's block masses and maxima, and a window's weights, equal the block sums, maxima
    // and entries of the weights the whole forward exports (reference backend), on Gemma 2's sliding layer 0 (window
    // 4, soft-cap, grouped K/V) and its full layer 1. 37 tokens in 5 blocks of 7 or 8.
    void mapMatchesRun()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString model = kFixtures + "gemma2-softcap";
        QStringList idList;
        for (int i = 0; i < 37; ++i) idList << QString::number((i * 23 + 7) % 61);
        const QString ids = idList.join(',');
        const int L = 37, G = 5;
        for (const char *head : {"0.2", "1.1"}) {
            const CliRun run = runCli({"run", "--model", model, "--ids", ids, "--heads", head, "--backend", "reference",
                                       "--out", "-"});
            QVERIFY2(run.exitCode == 0, run.err.constData());
            const QJsonObject doc = QJsonDocument::fromJson(run.out).object();
            const int layer = QString(head).section('.', 0, 0).toInt(), h = QString(head).section('.', 1, 1).toInt();
            const auto P = matrix(doc, layer, h);
            QCOMPARE(int(P.size()), L);

            const QString grid = dir.filePath(QStringLiteral("grid-%1.npy").arg(head));
            CliRun map = runCli({"map", "--model", model, "--ids", ids, "--head", head, "--grid", QString::number(G),
                                 "--out", grid});
            QVERIFY2(map.exitCode == 0, map.err.constData());
            QVERIFY(map.out.isEmpty());   // nothing on stdout without --json
            QString why;
            const Npy mass = readNpy(grid, why);
            QVERIFY2(!mass.data.empty(), qPrintable(why));
            const Npy max = readNpy(QString(grid).replace(".npy", ".max.npy"), why);
            QVERIFY2(!max.data.empty(), qPrintable(why));
            QCOMPARE(mass.shape, (std::vector<qint64>{G, G}));
            QCOMPARE(max.shape, (std::vector<qint64>{G, G}));
            for (int a = 0; a < G; ++a)
                for (int b = 0; b < G; ++b) {
                    double sum = 0.0, top = 0.0;
                    for (int i = a * L / G; i < (a + 1) * L / G; ++i)
                        for (int j = b * L / G; j < (b + 1) * L / G; ++j) sum += P[i][j], top = std::max(top, P[i][j]);
                    QVERIFY2(std::fabs(mass.data[a * G + b] - sum) < 1e-5, qPrintable(QStringLiteral("%1 block %2,%3").arg(head).arg(a).arg(b)));
                    QVERIFY(std::fabs(max.data[a * G + b] - top) < 1e-6);
                }

            const QString windowFile = dir.filePath(QStringLiteral("window-%1.npy").arg(head));
            map = runCli({"map", "--model", model, "--ids", ids, "--head", head, "--window", "3:20,9:37", "--json",
                          "--out", windowFile});
            QVERIFY2(map.exitCode == 0, map.err.constData());
            const QJsonObject line = QJsonDocument::fromJson(map.out).object();
            QCOMPARE(line.value("n").toInt(), L);
            QVERIFY(line.value("grid").isNull());
            QCOMPARE(line.value("window").toArray(), (QJsonArray{3, 20, 9, 37}));
            const Npy window = readNpy(windowFile, why);
            QVERIFY2(!window.data.empty(), qPrintable(why));
            QCOMPARE(window.shape, (std::vector<qint64>{17, 28}));
            for (int i = 3; i < 20; ++i)
                for (int j = 9; j < 37; ++j) QVERIFY(std::fabs(window.data[(i - 3) * 28 + (j - 9)] - P[i][j]) < 2e-6);
            QVERIFY(!QFileInfo::exists(QString(windowFile).replace(".npy", ".max.npy")));
        }
    }

    // `map --n`: seeded ids (the same seed, the same bytes; another seed, another map), every block row of the grid
    // sums to its number of queries, and the --json line carries the documented fields.
    void mapRandomIdsAndJson()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto mapFile = [&](const QString &name, const QStringList &extra) {
            const QString path = dir.filePath(name);
            const CliRun run = runCli(QStringList{"map", "--model", kRandom, "--n", "1000", "--head", "1.3", "--grid", "64",
                                                  "--out", path} + extra);
            return std::make_pair(run, path);
        };
        const auto [first, a] = mapFile("a.npy", {"--json", "--threads", "2"});
        QVERIFY2(first.exitCode == 0, first.err.constData());
        const QJsonObject line = QJsonDocument::fromJson(first.out.trimmed()).object();
        for (const char *key : {"n", "grid", "layer", "head", "mask", "ms_forward", "ms_first_view", "peak_rss_mib", "threads",
                                "out", "max_out", "rows_without_keys"})
            QVERIFY2(line.contains(key), key);
        QCOMPARE(line.value("n").toInt(), 1000);
        QCOMPARE(line.value("grid").toInt(), 64);
        QCOMPARE(line.value("threads").toInt(), 2);
        QVERIFY(line.value("ms_first_view").toDouble() >= line.value("ms_forward").toDouble());
        QVERIFY(line.value("peak_rss_mib").toDouble() > 0.0);
        QString why;
        const Npy grid = readNpy(a, why);
        QVERIFY2(!grid.data.empty(), qPrintable(why));
        for (int r = 0; r < 64; ++r) {
            double sum = 0.0;
            for (int c = 0; c < 64; ++c) sum += grid.data[r * 64 + c];
            const int rows = (r + 1) * 1000 / 64 - r * 1000 / 64;
            QVERIFY2(std::fabs(sum - rows) < 1e-3 * rows, qPrintable(QStringLiteral("row %1: %2").arg(r).arg(sum)));
        }
        const auto [same, b] = mapFile("b.npy", {"--threads", "1"});
        QVERIFY2(same.exitCode == 0, same.err.constData());
        const auto bytes = [](const QString &path) {
            QFile f(path);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        };
        QCOMPARE(bytes(b), bytes(a));   // the thread count changes nothing
        const auto [other, c] = mapFile("c.npy", {"--seed", "7"});
        QVERIFY2(other.exitCode == 0, other.err.constData());
        QVERIFY(bytes(c) != bytes(a));
        // Causal: the first query block's mass lies on and left of the diagonal only.
        const auto [causal, d] = mapFile("d.npy", {"--mask", "causal"});
        QVERIFY2(causal.exitCode == 0, causal.err.constData());
        const Npy lower = readNpy(d, why);
        QVERIFY2(!lower.data.empty(), qPrintable(why));
        for (int r = 0; r < 64; ++r)
            for (int col = r + 1; col < 64; ++col) QCOMPARE(lower.data[r * 64 + col], 0.0f);
    }

    void mapBadArguments()
    {
        const QStringList base{"map", "--model", kRandom, "--out", "x.npy"};
        expectBadArguments(base + QStringList{"--n", "10", "--head", "2.0"}, "--head");
        expectBadArguments(base + QStringList{"--n", "10", "--head", "0.4"}, "--head");
        expectBadArguments(base + QStringList{"--n", "10", "--head", "0.1,0.2"}, "--head");
        expectBadArguments(base + QStringList{"--n", "10", "--head", "0.1", "--window", "0:11,0:5"}, "--window");
        expectBadArguments(base + QStringList{"--n", "10", "--head", "0.1", "--window", "5:5,0:3"}, "--window");
        expectBadArguments(base + QStringList{"--n", "10", "--head", "0.1", "--window", "0-3,0:3"}, "--window");
        expectBadArguments(base + QStringList{"--n", "10", "--ids", "1,2", "--head", "0.1"}, "--ids");
        expectBadArguments(base + QStringList{"--ids", "1,2", "--seed", "3", "--head", "0.1"}, "--seed");
        expectBadArguments(base + QStringList{"--n", "10", "--head", "0.1", "--grid", "0"}, "--grid");
        expectBadArguments({"map", "--model", kRandom, "--n", "10", "--head", "0.1", "--out", "-"}, "--out");
        expectBadArguments({"map", "--model", kRandom, "--n", "10", "--head", "0.1"}, "--out");
        QVERIFY(!QFileInfo::exists("x.npy"));
    }

    // Scripts: stderr is not a terminal under QProcess, so no progress unless asked; --quiet leaves it empty on
    // success; errors still print, with the same exit codes.
    void quietAndProgress_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addRow("run") << QStringList{"run", "--model", kRandom, "--text", "abc", "--out", "-"};
        QTest::addRow("run --npy") << QStringList{"run", "--model", kRandom, "--text", "abc", "--npy", "--out", "OUT"};
        QTest::addRow("equivariance") << QStringList{"equivariance", "--model", kRandom, "--text", "abcd", "--out", "-"};
        QTest::addRow("faithfulness")
            << QStringList{"faithfulness", "--model", "sample:rationale-bert", "--text", "a fine seat", "--tests", "none",
                           "--randomization", "none", "--random-seeds", "1", "--out", "-"};
        QTest::addRow("bench") << QStringList{"bench", "--n", "33", "--d", "16", "--heads", "1", "--reps", "1",
                                              "--threads", "1", "--gemm-size", "32", "--backend", "tiled"};
    }
    void quietAndProgress()
    {
        QFETCH(QStringList, args);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        args.replaceInStrings(QRegularExpression("^OUT$"), dir.filePath("out.json"));
        CliRun run = runCli(args);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.err.isEmpty(), run.err.constData());   // not a terminal: no progress
        run = runCli(args + QStringList{"--quiet"});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.err.isEmpty(), run.err.constData());
        QVERIFY(!run.out.isEmpty() || QFileInfo::exists(dir.filePath("out.json")));
        run = runCli(args + QStringList{"--progress"});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.err.startsWith("attnscope-cli " + args.first().toUtf8() + ": "), run.err.constData());
        expectBadArguments(args + QStringList{"--quiet", "--progress"}, "--quiet");
    }

    void quietKeepsErrorsAndTiming()
    {
        CliRun run = runCli({"run", "--model", "random:layers=0", "--text", "abc", "--out", "-", "--quiet"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY(run.err.contains("--model"));
        expectBadArguments({"run", "--model", kRandom, "--text", "abc", "--mask", "sideways", "--out", "-", "--quiet"}, "--mask");
        expectBadArguments({"equivariance", "--model", kRandom, "--text", "abc", "--perm", "bogus", "--out", "-", "--quiet"}, "--perm");
        // --timing was asked for: it stays, even with --quiet.
        run = runCli({"faithfulness", "--model", "sample:rationale-bert", "--text", "a fine seat", "--tests", "none", "--randomization", "none",
                      "--random-seeds", "1", "--timing", "--quiet", "--out", "-"});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.err.startsWith("faithfulness: ") && run.err.count('\n') == 1, run.err.constData());
    }

    void benchJson_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<int>("lines");
        QTest::addRow("n=97 d=16 tiled+unfused") << QStringList{} << 2;
        QTest::addRow("n=97 d=16 causal tiled") << QStringList{"--causal", "--backend", "tiled"} << 1;
        QTest::addRow("n=97 d=16 unfused, weights of one head")
            << QStringList{"--backend", "unfused", "--weights", "one"} << 1;
    }
    void benchJson()
    {
        QFETCH(QStringList, extra);
        QFETCH(int, lines);
        const QStringList args = QStringList{"bench", "--n", "97", "--d", "16", "--heads", "2", "--reps", "2",
                                             "--threads", "2", "--gemm-size", "128", "--json"} + extra;
        const CliRun run = runCli(args);
        QVERIFY2(run.exitCode == 0, run.err.constData());

        const QList<QByteArray> jsonLines = run.out.trimmed().split('\n');
        QCOMPARE(jsonLines.size(), lines);
        const QStringList required = {"backend", "n", "d", "heads", "batch", "causal", "threads", "ms_median",
                                      "ms_p10", "ms_p90", "gflops", "gemm_ceiling_gflops", "gemm_ceiling_source",
                                      "ratio_to_gemm", "peak_rss_mib", "max_abs_err_vs_fp64", "naive_fp32_err",
                                      "qkvo_mib", "validated"};
        for (const QByteArray &line : jsonLines) {
            QJsonParseError parseError;
            const QJsonDocument doc = QJsonDocument::fromJson(line, &parseError);
            QVERIFY2(doc.isObject(), qPrintable(parseError.errorString() + ": " + line));
            const QJsonObject o = doc.object();
            for (const QString &key : required) QVERIFY2(o.contains(key), qPrintable(key + " missing: " + line));
            QCOMPARE(o.value("n").toInt(), 97);
            QCOMPARE(o.value("d").toInt(), 16);
            QCOMPARE(o.value("heads").toInt(), 2);
            QCOMPARE(o.value("causal").toBool(), extra.contains("--causal"));
            QVERIFY(o.value("validated").toBool());
            QVERIFY2(o.value("max_abs_err_vs_fp64").toDouble() < 1e-5, line.constData());
            QVERIFY(o.value("ms_median").toDouble() > 0.0);
            QVERIFY(o.value("ms_p10").toDouble() <= o.value("ms_p90").toDouble());
            QVERIFY(o.value("gflops").toDouble() > 0.0);
            QVERIFY(o.value("gemm_ceiling_gflops").toDouble() > 0.0);
            QVERIFY(!o.value("gemm_ceiling_source").toString().isEmpty());
            QVERIFY(o.value("peak_rss_mib").toDouble() > 0.0);
        }
    }

    void memoryModeSkipsUnfused()
    {
        const CliRun run = runCli({"bench", "--memory", "--n", "300", "--d", "16", "--heads", "1", "--reps", "1",
                                   "--gemm-size", "64", "--json"});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QList<QByteArray> jsonLines = run.out.trimmed().split('\n');
        QCOMPARE(jsonLines.size(), 2);   // tiled timed, unfused skipped with a reason
        bool sawSkip = false;
        for (const QByteArray &line : jsonLines) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            QCOMPARE(o.value("mode").toString(), QStringLiteral("memory"));
            QVERIFY(o.contains("rss_target_mib"));
            if (o.value("skipped").toBool()) {
                sawSkip = true;
                QCOMPARE(o.value("backend").toString(), QStringLiteral("unfused"));
            } else {
                QVERIFY(o.value("validation_rows").isDouble());   // sampled rows, never the full oracle
            }
        }
        QVERIFY(sawSkip);
    }

    void benchModelValidatesThenTimes()
    {
        const CliRun run = runCli({"bench", "--model", kFixtures + "gpt2-tiny", "--n", "12", "--weights", "all",
                                   "--reps", "2", "--threads", "1", "--json"});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(run.out.trimmed()).object();
        QCOMPARE(o.value("mode").toString(), QStringLiteral("model"));
        QCOMPARE(o.value("n").toInt(), 12);
        QVERIFY(o.value("validated").toBool());
        QVERIFY(o.value("max_abs_logit_err_vs_reference").toDouble() <= 1e-4);
        QVERIFY(o.value("ms_median").toDouble() > 0.0);

        const CliRun bad = runCli({"bench", "--model", kFixtures + "gpt2-tiny", "--weights", "one"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("--weights"));
        const CliRun missing = runCli({"bench", "--model", "sample:no-such-model"});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY(missing.err.contains("no-such-model"));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
