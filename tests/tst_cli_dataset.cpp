// SPDX-License-Identifier: GPL-3.0-or-later
// Dataset runs through the built attnscope-cli (faithfulness|run|equivariance --dataset, merge), run with QProcess
// as scripts and job arrays run them: two shards merged give the one-process results and summary bit for bit
// apart from timing; a run cut off in the middle of a line resumes to the same file; refusals and their exit
// codes; the documents against docs/schema/dataset-*.schema.json; and docs/cli.md's dataset examples (its
// ```shell blocks; the ```sh blocks belong to tst_cli_analyses).
#include "jsonschema.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
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

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeAll(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) qFatal("cannot write %s", qPrintable(path));
    f.write(bytes);
}

// A results file's lines with the per-example timing fields ("seconds", "threads") taken out: what must agree
// between runs. The header and every number stay as written.
QList<QByteArray> withoutTiming(const QByteArray &file)
{
    QList<QByteArray> lines = file.split('\n');
    if (!lines.isEmpty() && lines.back().isEmpty()) lines.pop_back();
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype at = lines[i].lastIndexOf(",\"seconds\":");
        if (at > 0) lines[i] = lines[i].left(at) + '}';
    }
    return lines;
}

// The summary text up to its "timing" object (the last key): bit for bit what must agree.
QByteArray summaryWithoutTiming(const QByteArray &summary)
{
    const qsizetype at = summary.indexOf("\"timing\"");
    return at > 0 ? summary.left(at) : QByteArray("no timing");
}

QJsonObject schema(const QString &name, const char *def = nullptr)
{
    QFile f(QStringLiteral(ATTNSCOPE_SCHEMA_DIR "/") + name);
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(name));
    QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    if (def) o.insert("$ref", QStringLiteral("#/$defs/") + QLatin1String(def));
    return o;
}

// Every line of a results file against dataset-results.schema.json.
QStringList resultsProblems(const QByteArray &file)
{
    QStringList problems;
    const QJsonObject header = schema("dataset-results.schema.json", "header"), record = schema("dataset-results.schema.json", "record");
    const QList<QByteArray> lines = file.split('\n');
    for (qsizetype i = 0; i < lines.size(); ++i) {
        if (lines[i].isEmpty()) continue;
        for (const QString &p : attn::test::validateJsonSchema(QJsonDocument::fromJson(lines[i]).object(), i == 0 ? header : record))
            problems << QStringLiteral("line %1%2").arg(i + 1).arg(p);
    }
    return problems;
}

const QByteArray kDataset =
    "{\"text\": \"the lousy actor found the dog\", \"label\": \"negative\", \"rationale\": [[4, 9]]}\n"
    "{\"text\": \"their seat looked beautiful\", \"label\": 1, \"rationale_tokens\": [4], \"id\": \"seat\"}\n"
    "{\"text\": \"a wonderful and horrible plot\", \"label\": 0}\n"
    "{\"text\": \"it is a cast and then we called this theater\", \"label\": 0, \"rationale\": [[8, 12]]}\n"
    "{\"text\": \"my dreadful camera met the countryside\", \"label\": 0, \"rationale\": [[3, 11]]}\n";

// A quick suite: every metric family, few passes (each example well under a second).
QStringList quick(const QString &data, const QString &out)
{
    return {"faithfulness", "--model", "sample:rationale-bert", "--dataset", data, "--out", out, "--methods",
            "head,rollout,loo_deletion", "--permutations", "3", "--randomization", "none", "--threads", "1"};
}

} // namespace

class TestCliDataset : public QObject {
    Q_OBJECT
private slots:
    void shardsMergeToTheSingleRun()
    {
        QTemporaryDir dir;
        const QString data = dir.filePath("d.jsonl");
        writeAll(data, kDataset);
        const Run one = runCli(quick(data, dir.filePath("one.jsonl")) << "--summary" << dir.filePath("one.json"));
        QVERIFY2(one.exitCode == 0, one.err.constData());
        QVERIFY2(one.err.isEmpty(), one.err.constData());   // stderr is a pipe: no progress without --progress
        const QByteArray oneFile = readAll(dir.filePath("one.jsonl"));
        QCOMPARE(oneFile.count('\n'), 6);
        QVERIFY2(resultsProblems(oneFile).isEmpty(), qPrintable(resultsProblems(oneFile).join('\n')));
        for (const char *shard : {"0/2", "1/2"}) {
            // The second shard with another thread count: results do not depend on it.
            const QString name = QStringLiteral("R-%1.jsonl").arg(QLatin1Char(shard[0]));
            QStringList args = quick(data, dir.filePath(name)) << "--shard" << shard;
            if (shard[0] == '1') args[args.indexOf("--threads") + 1] = "2";
            const Run r = runCli(args);
            QVERIFY2(r.exitCode == 0, r.err.constData());
        }
        QCOMPARE(readAll(dir.filePath("R-0.jsonl")).count('\n'), 4);   // header + examples 0, 2, 4
        const Run m = runCli({"merge", dir.filePath("R-1.jsonl"), dir.filePath("R-0.jsonl"), "--summary", dir.filePath("merged.json"),
                              "--out", dir.filePath("merged.jsonl")});
        QVERIFY2(m.exitCode == 0, m.err.constData());
        const QByteArray a = readAll(dir.filePath("one.json")), b = readAll(dir.filePath("merged.json"));
        QVERIFY(a.size() > 1000);
        QCOMPARE(summaryWithoutTiming(b), summaryWithoutTiming(a));
        QVERIFY(a != b);   // the timing differs (wall time, files)
        // The merged file holds the same example lines, sorted by index.
        const QList<QByteArray> single = withoutTiming(oneFile), merged = withoutTiming(readAll(dir.filePath("merged.jsonl")));
        QCOMPARE(merged.size(), single.size());
        for (qsizetype i = 1; i < single.size(); ++i) QCOMPARE(merged[i], single[i]);
        const QStringList problems = attn::test::validateJsonSchema(QJsonDocument::fromJson(a).object(), schema("dataset-summary.schema.json"));
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        // The summary has each metric beside its random baseline, with tests.
        bool sawTest = false;
        for (const QJsonValue &v : QJsonDocument::fromJson(a).object().value("metrics").toArray())
            if (v.toObject().value("metric") == QLatin1String("aopc_comprehensiveness")) {
                QVERIFY(v.toObject().value("random").isObject());
                QCOMPARE(v.toObject().value("tests").toArray().size(), 3);
                sawTest = true;
            }
        QVERIFY(sawTest);
    }

    void resumeAfterACutOffLine()
    {
        QTemporaryDir dir;
        const QString data = dir.filePath("d.jsonl");
        writeAll(data, kDataset);
        const QString full = dir.filePath("full.jsonl"), cut = dir.filePath("cut.jsonl");
        QCOMPARE(runCli(quick(data, full)).exitCode, 0);
        // A run killed while writing example 3's line: header, examples 0..2 complete, half a line.
        const QByteArray bytes = readAll(full);
        qsizetype end = 0;
        for (int line = 0; line < 4; ++line) end = bytes.indexOf('\n', end) + 1;
        writeAll(cut, bytes.left(end + 50));
        const Run again = runCli(quick(data, cut) << "--progress");
        QCOMPARE(again.exitCode, 1);   // without --resume an existing file is refused
        QVERIFY2(again.err.contains("exists; continue it with --resume"), again.err.constData());
        const Run resumed = runCli(quick(data, cut) << "--resume" << "--progress" << "--summary" << dir.filePath("s.json"));
        QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
        QVERIFY2(resumed.err.contains("resuming") && resumed.err.contains("3 examples already there"), resumed.err.constData());
        QVERIFY2(resumed.err.contains("2/2 examples (100 %)") && resumed.err.contains("ETA"), resumed.err.constData());
        QCOMPARE(withoutTiming(readAll(cut)), withoutTiming(bytes));
        // Resuming a finished run adds nothing.
        QCOMPARE(runCli(quick(data, cut) << "--resume").exitCode, 0);
        QCOMPARE(withoutTiming(readAll(cut)), withoutTiming(bytes));
        // Other settings: refused, naming the field.
        QStringList other = quick(data, cut) << "--resume";
        other[other.indexOf("--permutations") + 1] = "4";
        const Run refused = runCli(other);
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("settings.faithfulness.permutations: 3 vs 4"), refused.err.constData());
    }

    void refusals_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        const QStringList base{"faithfulness", "--model", "sample:rationale-bert", "--out", "r.jsonl"};
        QTest::newRow("no dataset file") << (base + QStringList{"--dataset", "missing.jsonl"}) << 1 << "missing.jsonl: cannot be read";
        QTest::newRow("bad line") << (base + QStringList{"--dataset", "bad.jsonl"}) << 1 << "bad.jsonl:2: 'rationale'[0]: end 99 is past the text's 6 code points";
        QTest::newRow("bad label") << (base + QStringList{"--dataset", "label.jsonl"}) << 1 << "label.jsonl:1: 'label': 'meh' is not a class";
        QTest::newRow("shard") << (base + QStringList{"--dataset", "d.jsonl", "--shard", "2/2"}) << 2 << "--shard: '2/2': need 0 <= i < N";
        QTest::newRow("shard syntax") << (base + QStringList{"--dataset", "d.jsonl", "--shard", "1"}) << 2 << "--shard: '1' is not i/N";
        QTest::newRow("stdout") << QStringList{"run", "--model", "sample:rationale-bert", "--dataset", "d.jsonl", "--out", "-"} << 2 << "--out: a dataset run needs a file";
        QTest::newRow("no out") << QStringList{"run", "--model", "sample:rationale-bert", "--dataset", "d.jsonl"} << 2 << "--out is required";
        QTest::newRow("columns on JSONL") << (base + QStringList{"--dataset", "d.jsonl", "--columns", "text=review"}) << 1 << "--columns: only CSV/TSV";
        QTest::newRow("columns syntax") << (base + QStringList{"--dataset", "d.jsonl", "--columns", "words=review"}) << 2 << "--columns: 'words=review' is not FIELD=COLUMN";
        QTest::newRow("target") << (base + QStringList{"--dataset", "d.jsonl", "--target", "best"}) << 2 << "--target: 'best'";
        QTest::newRow("explicit permutation") << QStringList{"equivariance", "--model", "sample:rationale-bert", "--dataset", "d.jsonl", "--out", "e.jsonl", "--perm", "1,0"} << 2 << "--perm: '1,0' is not random or reverse";
        QTest::newRow("scope") << QStringList{"equivariance", "--model", "sample:rationale-bert", "--dataset", "d.jsonl", "--out", "e.jsonl", "--scope", "layer:7"} << 2 << "--scope: layer:7 is outside the model's 3 layers";
        QTest::newRow("pe on a checkpoint") << QStringList{"equivariance", "--model", "sample:rationale-bert", "--dataset", "d.jsonl", "--out", "e.jsonl", "--pe", "rope"} << 2 << "--pe: rope is only available for random: models";
        QTest::newRow("sample without rationales") << QStringList{"run", "--model", "sample:induction-gpt2", "--dataset", "sample", "--out", "x.jsonl"} << 1 << "has no rationales.json";
        QTest::newRow("merge without files") << QStringList{"merge", "--summary", "s.json"} << 2 << "no results files given";
        QTest::newRow("merge without summary") << QStringList{"merge", "a.jsonl"} << 2 << "--summary is required";
        QTest::newRow("merge missing") << QStringList{"merge", "R-0.jsonl", "--summary", "s.json"} << 1 << "2 of 5 examples are in none of the files (indices 1, 3)";
        QTest::newRow("merge overlap") << QStringList{"merge", "R-0.jsonl", "R-0b.jsonl", "--summary", "s.json"} << 1 << "example 0 (id 0) is in both R-0.jsonl and R-0b.jsonl";
    }
    void refusals()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QTemporaryDir dir;
        writeAll(dir.filePath("d.jsonl"), kDataset);
        writeAll(dir.filePath("bad.jsonl"), "{\"text\": \"a plot\"}\n{\"text\": \"a plot\", \"rationale\": [[0, 99]]}\n");
        writeAll(dir.filePath("label.jsonl"), "{\"text\": \"a good plot\", \"label\": \"meh\"}\n");
        if (args.first() == QLatin1String("merge") && args.contains("R-0.jsonl")) {
            QVERIFY(runCli(quick("d.jsonl", "R-0.jsonl") << "--shard" << "0/2" << "--tests" << "none" << "--metrics" << "none", dir.path()).exitCode == 0);
            QVERIFY(QFile::copy(dir.filePath("R-0.jsonl"), dir.filePath("R-0b.jsonl")));
        }
        const Run r = runCli(args, dir.path());
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
        QVERIFY(r.out.isEmpty());
        if (args.first() != QLatin1String("merge")) QVERIFY(!QFile::exists(dir.filePath("r.jsonl")));   // nothing started
    }

    // docs/cli.md's dataset examples (```shell blocks), run in one folder in order, as a reader would.
    void documentedExamples()
    {
        QFile f(QStringLiteral(ATTNSCOPE_DOCS_DIR "/cli.md"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QStringList lines;
        bool inShell = false;
        for (const QString &line : QString::fromUtf8(f.readAll()).split('\n')) {
            if (line.startsWith(QLatin1String("```"))) { inShell = !inShell && line.trimmed() == QLatin1String("```shell"); continue; }
            if (inShell && line.startsWith(QLatin1String("attnscope-cli "))) lines << line;
        }
        QVERIFY(lines.size() >= 4);
        QTemporaryDir dir;
        writeAll(dir.filePath("reviews.jsonl"), kDataset);
        for (const QString &line : lines) {
            QStringList args = line.split(' ', Qt::SkipEmptyParts);
            args.removeFirst();
            for (QString &a : args)
                if (a.contains('*')) {   // the shell's glob, as bash expands it (sorted)
                    const QStringList matches = QDir(dir.path()).entryList({a}, QDir::Files, QDir::Name);
                    a = matches.join(' ');
                }
            args = args.join(' ').split(' ', Qt::SkipEmptyParts);
            const Run r = runCli(args, dir.path());
            QVERIFY2(r.exitCode == 0, qPrintable(line + "\n" + QString::fromUtf8(r.err)));
        }
        const QByteArray summary = readAll(dir.filePath("summary.json"));
        const QStringList problems = attn::test::validateJsonSchema(QJsonDocument::fromJson(summary).object(), schema("dataset-summary.schema.json"));
        QVERIFY2(!summary.isEmpty() && problems.isEmpty(), qPrintable(problems.join('\n')));
    }
};

QTEST_GUILESS_MAIN(TestCliDataset)
#include "tst_cli_dataset.moc"
