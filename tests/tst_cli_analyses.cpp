// SPDX-License-Identifier: GPL-3.0-or-later
// The `equivariance` and `faithfulness` verbs of the built attnscope-cli, run with QProcess as scripts run them:
// every example of docs/cli.md's sections for them, their exports checked against docs/schema, exit codes
// and messages for bad arguments and failing inputs.
#include "jsonschema.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out, err;
};

Run runCli(const QStringList &args, const QString &dir = {})
{
    QProcess p;
    if (!dir.isEmpty()) p.setWorkingDirectory(dir);
    p.start(QStringLiteral(ATTNSCOPE_CLI_PATH), args);
    if (!p.waitForFinished(240000)) qFatal("attnscope-cli did not finish: %s", qPrintable(args.join(' ')));
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}

// A shell line's words: whitespace-separated, double or single quotes group (no escapes in our examples).
QStringList shellWords(const QString &line)
{
    QStringList words;
    QString cur;
    QChar quote;
    bool inWord = false;
    for (QChar c : line) {
        if (!quote.isNull()) {
            if (c == quote) quote = QChar();
            else cur += c;
        } else if (c == '"' || c == '\'') {
            quote = c;
            inWord = true;
        } else if (c.isSpace()) {
            if (inWord) words << cur, cur.clear(), inWord = false;
        } else {
            cur += c;
            inWord = true;
        }
    }
    if (inWord) words << cur;
    return words;
}

QJsonObject schema(const QString &name)
{
    QFile f(QStringLiteral(ATTNSCOPE_SCHEMA_DIR "/") + name);
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(name));
    return QJsonDocument::fromJson(f.readAll()).object();
}

// The verb's examples in docs/cli.md: lines of ```sh blocks that start with "attnscope-cli VERB ".
QStringList examplesOf(const QString &verb)
{
    QFile f(QStringLiteral(ATTNSCOPE_DOCS_DIR "/cli.md"));
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read docs/cli.md");
    QStringList lines;
    bool inSh = false;
    for (const QString &line : QString::fromUtf8(f.readAll()).split('\n')) {
        if (line.startsWith(QLatin1String("```"))) {
            inSh = !inSh && line.trimmed() == QLatin1String("```sh");
            continue;
        }
        if (inSh && line.startsWith(QStringLiteral("attnscope-cli %1 ").arg(verb))) lines << line;
    }
    return lines;
}

} // namespace

class TestCliAnalyses : public QObject {
    Q_OBJECT
private slots:
    void docExamples_data();
    void docExamples();
    void help_data();
    void help();
    void badArguments_data();
    void badArguments();
    void equivarianceNumbers();
    void faithfulnessDefaultsRecorded();
    void faithfulnessRandomizationOption();
};

void TestCliAnalyses::docExamples_data()
{
    QTest::addColumn<QString>("verb");
    QTest::addColumn<QString>("line");
    for (const QString verb : {QStringLiteral("equivariance"), QStringLiteral("faithfulness")}) {
        const QStringList lines = examplesOf(verb);
        QVERIFY2(lines.size() >= 3, qPrintable(verb));
        for (int i = 0; i < lines.size(); ++i) QTest::addRow("%s %d", qPrintable(verb), i) << verb << lines[i];
    }
}

void TestCliAnalyses::docExamples()
{
    QFETCH(QString, verb);
    QFETCH(QString, line);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QStringList words = shellWords(line);
    QCOMPARE(words.first(), QStringLiteral("attnscope-cli"));
    const Run r = runCli(words.mid(1), dir.path());
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const qsizetype outAt = words.indexOf(QStringLiteral("--out"));
    QVERIFY(outAt > 0);
    QByteArray json = r.out;
    if (words[outAt + 1] != QLatin1String("-")) {
        QFile f(dir.filePath(words[outAt + 1]));
        QVERIFY(f.open(QIODevice::ReadOnly));
        json = f.readAll();
        QVERIFY(!QFile::exists(dir.filePath(words[outAt + 1] + ".tmp")));
    }
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &err);
    QCOMPARE(err.error, QJsonParseError::NoError);
    const QStringList problems = attn::test::validateJsonSchema(doc.object(), schema(verb + ".schema.json"));
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
    QCOMPARE(doc.object().value("kind").toString(), verb);
    if (line.contains(QLatin1String("--timing"))) QVERIFY(r.err.contains("forward passes"));
}

void TestCliAnalyses::help_data()
{
    QTest::addColumn<QString>("verb");
    QTest::addColumn<QString>("mentions");
    QTest::addRow("equivariance") << "equivariance" << "--perm";
    QTest::addRow("faithfulness") << "faithfulness" << "--methods";
}

void TestCliAnalyses::help()
{
    QFETCH(QString, verb);
    QFETCH(QString, mentions);
    const Run r = runCli({verb, QStringLiteral("--help")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.startsWith(QStringLiteral("Usage: attnscope-cli %1").arg(verb).toUtf8()));
    QVERIFY(r.out.contains(mentions.toUtf8()));
    const Run all = runCli({QStringLiteral("--help")});
    QVERIFY(all.out.contains(verb.toUtf8()));
}

void TestCliAnalyses::badArguments_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("names");
    const QString bert = QStringLiteral("sample:rationale-bert"), rnd = QStringLiteral("random:layers=1,heads=2,d_model=16,seed=1");
    const auto eq = [](QStringList extra) { return QStringList{"equivariance", "--out", "-"} + extra; };
    const auto fa = [](QStringList extra) { return QStringList{"faithfulness", "--out", "-"} + extra; };
    QTest::addRow("eq no model") << eq({"--text", "ab"}) << 2 << "--model";
    QTest::addRow("eq no text") << eq({"--model", rnd}) << 2 << "--text";
    QTest::addRow("eq bad perm") << eq({"--model", rnd, "--text", "ab", "--perm", "shuffle"}) << 2 << "--perm";
    QTest::addRow("eq perm wrong length") << eq({"--model", rnd, "--text", "abc", "--perm", "1,0"}) << 2 << "--perm";
    QTest::addRow("eq perm repeated") << eq({"--model", rnd, "--text", "abc", "--perm", "1,1,0"}) << 2 << "--perm";
    QTest::addRow("eq bad pe") << eq({"--model", rnd, "--text", "ab", "--pe", "alibi"}) << 2 << "--pe";
    QTest::addRow("eq sinusoidal on bert") << eq({"--model", bert, "--text", "ab", "--pe", "sinusoidal"}) << 2 << "--pe";
    QTest::addRow("eq bad mask") << eq({"--model", rnd, "--text", "ab", "--mask", "diagonal"}) << 2 << "--mask";
    QTest::addRow("eq scope outside") << eq({"--model", rnd, "--text", "ab", "--scope", "head:0.5"}) << 2 << "--scope";
    QTest::addRow("eq bad scope") << eq({"--model", rnd, "--text", "ab", "--scope", "everything"}) << 2 << "--scope";
    QTest::addRow("eq bad backend") << eq({"--model", rnd, "--text", "ab", "--backend", "tpu"}) << 2 << "--backend";
    QTest::addRow("eq unknown model") << eq({"--model", "sample:nope", "--text", "ab"}) << 1 << "--model";
    QTest::addRow("fa bad target") << fa({"--model", bert, "--text", "a b", "--target", "best"}) << 2 << "--target";
    QTest::addRow("fa bad method") << fa({"--model", bert, "--text", "a b", "--methods", "saliency"}) << 2 << "--methods";
    QTest::addRow("fa bad removal") << fa({"--model", bert, "--text", "a b", "--removal", "blur"}) << 2 << "--removal";
    QTest::addRow("fa deletion baseline") << fa({"--model", bert, "--text", "a b", "--baseline", "deletion"}) << 2 << "--baseline";
    QTest::addRow("fa bad tests") << fa({"--model", bert, "--text", "a b", "--tests", "gradients"}) << 2 << "--tests";
    QTest::addRow("fa bad randomization") << fa({"--model", bert, "--text", "a b", "--randomization", "independent"}) << 2 << "--randomization";
    QTest::addRow("fa bad metrics") << fa({"--model", bert, "--text", "a b", "--metrics", "some"}) << 2 << "--metrics";
    QTest::addRow("fa head outside") << fa({"--model", bert, "--text", "a b", "--head", "7.0"}) << 2 << "--head";
    QTest::addRow("fa zero permutations") << fa({"--model", bert, "--text", "a b", "--permutations", "0"}) << 2 << "--permutations";
    QTest::addRow("fa no head model") << fa({"--model", rnd, "--text", "ab"}) << 1 << "output head";
    QTest::addRow("fa mask on gpt2") << fa({"--model", "sample:induction-gpt2", "--text", "a b c", "--removal", "mask"}) << 1 << "removal";
    QTest::addRow("fa one token") << fa({"--model", bert, "--text", "lousy"}) << 1 << "non-special";
}

void TestCliAnalyses::badArguments()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, names);
    const Run r = runCli(args);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(r.err.contains(names.toUtf8()), r.err.constData());
    QVERIFY(r.err.startsWith(QStringLiteral("attnscope-cli %1: ").arg(args.first()).toUtf8()));
    QVERIFY(r.out.isEmpty());
}

// Through the CLI too: no positions + bidirectional is equivariant, the model's own positions are not.
void TestCliAnalyses::equivarianceNumbers()
{
    const QStringList base = {"equivariance", "--model", "random:layers=2,heads=2,d_model=32,seed=5,pe=sinusoidal",
                              "--text", "permutation", "--perm", "random:9", "--out", "-"};
    Run r = runCli(base + QStringList{"--pe", "none"});
    QCOMPARE(r.exitCode, 0);
    QJsonObject doc = QJsonDocument::fromJson(r.out).object();
    QVERIFY(doc.value("max_abs_err_weights").toDouble() <= 1e-5);
    QVERIFY(doc.value("max_abs_err_outputs").toDouble() <= 1e-5);
    QVERIFY(doc.value("within_tolerance").toBool());
    QCOMPARE(doc.value("permutation").toArray().size(), 11);
    r = runCli(base);
    QCOMPARE(r.exitCode, 0);
    doc = QJsonDocument::fromJson(r.out).object();
    QVERIFY(doc.value("max_abs_err_weights").toDouble() > 1e-3);
    QCOMPARE(doc.value("settings").toObject().value("positions_used").toString(), QStringLiteral("sinusoidal"));
    QVERIFY(!doc.value("expected_equivariant").toBool());
}

void TestCliAnalyses::faithfulnessDefaultsRecorded()
{
    const Run r = runCli({"faithfulness", "--model", "sample:rationale-bert", "--text", "the lousy actor found the dog",
                          "--permutations", "3", "--seed", "7", "--out", "-"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
    const QJsonObject settings = doc.value("settings").toObject();
    QCOMPARE(settings.value("seed").toInt(), 7);
    QCOMPARE(settings.value("removal").toString(), QStringLiteral("deletion"));
    QCOMPARE(settings.value("occlusion_baseline").toString(), QStringLiteral("mask"));
    const QJsonObject metrics = doc.value("metrics").toObject();
    const QJsonArray bins = metrics.value("eraser").toObject().value("parameters").toObject().value("bins").toArray();
    QCOMPARE(bins, (QJsonArray{0.01, 0.05, 0.1, 0.2, 0.5}));
    QCOMPARE(metrics.value("curves").toObject().value("random").toObject().value("seeds").toArray(), (QJsonArray{8, 9, 10, 11, 12}));
    QCOMPARE(metrics.value("faithfulness_correlation").toObject().value("parameters").toObject().value("runs").toInt(), 100);
    QCOMPARE(doc.value("heads").toObject().value("results").toArray().size(), 12);
    QCOMPARE(doc.value("heads").toObject().value("parameters").toObject().value("permutations").toInt(), 3);
}

// --randomization: cascade by default (head, then + each layer from the top: layers + 1 steps), none gives null.
void TestCliAnalyses::faithfulnessRandomizationOption()
{
    const QStringList base = {"faithfulness", "--model", "sample:rationale-bert", "--text", "the lousy actor found the dog",
                              "--metrics", "none", "--tests", "none", "--out", "-"};
    Run r = runCli(base);
    QCOMPARE(r.exitCode, 0);
    const QJsonObject rnd = QJsonDocument::fromJson(r.out).object().value("randomization").toObject();
    QCOMPARE(rnd.value("parameters").toObject().value("mode").toString(), QStringLiteral("cascade"));
    QCOMPARE(rnd.value("steps").toArray().size(), 4);
    QCOMPARE(rnd.value("steps").toArray().at(0).toObject().value("randomized").toString(), QStringLiteral("head"));
    r = runCli(base + QStringList{"--randomization", "none"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(QJsonDocument::fromJson(r.out).object().value("randomization").isNull());
}

QTEST_APPLESS_MAIN(TestCliAnalyses)
#include "tst_cli_analyses.moc"
