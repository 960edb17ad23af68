// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope-cli under the hostile and careless inputs of issue 14, run as scripts run it: write errors on standard
// output (/dev/full) end in exit 1, invalid UTF-8 in --text or --text-file is refused with exit 2 naming the byte
// offset, --text-file takes texts longer than one argument may be, the memory budget (--max-memory) refuses models
// before loading, numeric options out of range are bad arguments, figure refuses what it cannot draw instead of a
// blank image, and a failed `run --npy` export leaves the previous pair as it was.

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <vector>

namespace {

struct CliRun {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

const QString kCli = QStringLiteral(ATTNSCOPE_CLI_PATH);
const QString kRandom = QStringLiteral("random:layers=2,heads=2,d_model=16,seed=1");
const QString kHuge = QStringLiteral("random:layers=64,heads=256,d_model=8192");
const QString kSample = QStringLiteral("sample:induction-gpt2");   // 2 layers, 4 heads, 256 positions

// Runs the CLI; stdoutFile, when given, receives standard output instead of the pipe (e.g. /dev/full).
CliRun runCli(const QStringList &args, const QString &stdoutFile = {}, int timeoutMs = 120000)
{
    QProcess process;
    if (!stdoutFile.isEmpty()) process.setStandardOutputFile(stdoutFile);
    process.start(kCli, args);
    CliRun run;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        run.err = "timed out";
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    if (stdoutFile.isEmpty()) run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

// Arguments that are not valid UTF-8 cannot pass through QString: a shell builds them from printf escapes, after a
// literal prefix ("--text=").
CliRun runCliWithRawText(const QStringList &before, const QByteArray &printfText, const QStringList &after,
                         const QString &prefix = {})
{
    QStringList script{QStringLiteral("exec \"$0\"")};
    int n = 1;
    QStringList shellArgs{kCli};
    for (const QString &a : before) {
        script << QStringLiteral("\"$%1\"").arg(n++);
        shellArgs << a;
    }
    script << QStringLiteral("\"%1$(printf '%2')\"").arg(prefix, QString::fromLatin1(printfText));
    for (const QString &a : after) {
        script << QStringLiteral("\"${%1}\"").arg(n++);
        shellArgs << a;
    }
    QProcess process;
    process.start(QStringLiteral("/bin/sh"), QStringList{QStringLiteral("-c"), script.join(QLatin1Char(' '))} + shellArgs);
    CliRun run;
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished();
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestReliabilityCli : public QObject {
    Q_OBJECT

private slots:
    // issue 14: `run --out -`, `info`, `equivariance`, `bench` exited 0 on /dev/full.
    void stdoutWriteErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("run --out -") << QStringList{"run", "--model", kRandom, "--ids", "1,2,3", "--out", "-"};
        QTest::newRow("info") << QStringList{"info", "--model", kRandom};
        QTest::newRow("equivariance --out -")
            << QStringList{"equivariance", "--model", kRandom, "--text", "abc", "--out", "-"};
        QTest::newRow("faithfulness --out -")
            << QStringList{"faithfulness", "--model", "sample:rationale-bert", "--text", "the lousy actor",
                           "--permutations", "2", "--random-seeds", "1", "--out", "-"};
        QTest::newRow("bench")
            << QStringList{"bench", "--n", "16", "--d", "16", "--heads", "1", "--backend", "reference", "--reps", "1",
                           "--warmups", "1", "--gemm-size", "16", "--quiet"};
        QTest::newRow("bench --json")
            << QStringList{"bench", "--n", "16", "--d", "16", "--heads", "1", "--backend", "reference", "--reps", "1",
                           "--warmups", "1", "--gemm-size", "16", "--json", "--quiet"};
        QTest::newRow("--help") << QStringList{"--help"};
        QTest::newRow("run --help") << QStringList{"run", "--help"};
        QTest::newRow("--version") << QStringList{"--version"};
    }
    void stdoutWriteErrors()
    {
        QFETCH(QStringList, args);
        if (!QFileInfo::exists(QStringLiteral("/dev/full"))) QSKIP("no /dev/full on this system");
        // The same command succeeds with a working stdout, so the exit 1 below is the write error's.
        const CliRun ok = runCli(args);
        QVERIFY2(ok.exitCode == 0, ok.err.constData());
        QVERIFY(!ok.out.isEmpty());
        const CliRun full = runCli(args, QStringLiteral("/dev/full"));
        QCOMPARE(full.exitCode, 1);
        QVERIFY2(full.err.contains("standard output"), full.err.constData());
    }

    // issue 14: invalid UTF-8 in --text was silently replaced with U+FFFD.
    void invalidUtf8Text_data()
    {
        QTest::addColumn<QByteArray>("text");   // printf escapes
        QTest::addColumn<int>("offset");
        QTest::addColumn<bool>("equalsForm");   // --text=T instead of --text T
        QTest::newRow("0xff") << QByteArray("a\\377b") << 1 << false;
        QTest::newRow("0xff, --text=") << QByteArray("a\\377b") << 1 << true;
        QTest::newRow("lone continuation") << QByteArray("\\200") << 0 << false;
        QTest::newRow("overlong /") << QByteArray("ab\\300\\257") << 2 << false;
        QTest::newRow("overlong 3 bytes") << QByteArray("\\340\\200\\257") << 0 << false;
        QTest::newRow("surrogate D800") << QByteArray("abc\\355\\240\\200") << 3 << false;
        QTest::newRow("above U+10FFFF") << QByteArray("x\\364\\220\\200\\200") << 1 << false;
        QTest::newRow("truncated at the end") << QByteArray("ab\\342\\202") << 2 << true;
        QTest::newRow("after valid multi-byte") << QByteArray("h\\303\\251\\342\\234\\223\\377") << 6 << false;
    }
    void invalidUtf8Text()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, offset);
        QFETCH(bool, equalsForm);
        for (const QString &verb : {QStringLiteral("run"), QStringLiteral("equivariance")}) {
            const QStringList before = verb == QLatin1String("run")
                ? QStringList{"run", "--model", kRandom, "--out", "-"}
                : QStringList{"equivariance", "--model", kRandom, "--out", "-"};
            const CliRun r = equalsForm ? runCliWithRawText(before, text, {}, QStringLiteral("--text="))
                                        : runCliWithRawText(before + QStringList{"--text"}, text, {});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(QStringLiteral("--text: not valid UTF-8 (byte %1)").arg(offset).toUtf8()),
                     r.err.constData());
            QVERIFY(r.out.isEmpty());
        }
        // The second text of a pair is held to the same rule.
        const QStringList before{"run", "--model", "sample:rationale-bert", "--text", "the film", "--out", "-"};
        const CliRun pair = equalsForm ? runCliWithRawText(before, text, {}, QStringLiteral("--text-pair="))
                                       : runCliWithRawText(before + QStringList{"--text-pair"}, text, {});
        QCOMPARE(pair.exitCode, 2);
        QVERIFY2(pair.err.contains(QStringLiteral("--text-pair: not valid UTF-8 (byte %1)").arg(offset).toUtf8()),
                 pair.err.constData());
    }
    // Valid UTF-8 of every length goes through unchanged (the random model has one token per byte).
    void validUtf8Text()
    {
        const CliRun r = runCliWithRawText({"run", "--model", kRandom, "--out", "-", "--text"},
                                           "h\\303\\251\\342\\234\\223\\360\\235\\204\\236", {});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("\"length\":10") || r.out.contains("\"length\": 10"), r.out.left(600).constData());
    }

    // --text-file: the same result as --text; texts longer than one argument may be (128 KiB); refusals.
    void textFileEqualsText()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("t.txt");
        QVERIFY(writeFile(file, "the cat sat on the mat"));
        const CliRun a = runCli({"run", "--model", kRandom, "--text", "the cat sat on the mat", "--out", "-"});
        const CliRun b = runCli({"run", "--model", kRandom, "--text-file", file, "--out", "-"});
        QVERIFY2(a.exitCode == 0 && b.exitCode == 0, (a.err + b.err).constData());
        QCOMPARE(b.out, a.out);
    }
    void textFileLongerThanAnArgument()
    {
        // 100 000, 200 000 and 300 000 bytes: one argument can carry at most 128 KiB. The model refuses each for its
        // length and says how many tokens it has; those counts grow linearly, so nothing was cut off.
        QTemporaryDir dir;
        std::vector<qlonglong> tokens;
        for (int reps : {12500, 25000, 37500}) {
            const QString file = dir.filePath(QStringLiteral("long-%1.txt").arg(reps));
            QVERIFY(writeFile(file, QByteArray("the cat ").repeated(reps)));
            const CliRun r = runCli({"run", "--model", kSample, "--text-file", file, "--out", "-"});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("has only 256 positions"), r.err.constData());
            const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("the text is (\\d+) tokens long")).match(
                QString::fromUtf8(r.err));
            QVERIFY2(m.hasMatch(), r.err.constData());
            tokens.push_back(m.captured(1).toLongLong());
        }
        QVERIFY(tokens[1] - tokens[0] >= 12500);   // at least a token per word
        QCOMPARE(tokens[2] - tokens[1], tokens[1] - tokens[0]);
    }
    void textFileRefused_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing") << "missing" << 1 << "missing.txt: cannot read it";
        QTest::newRow("a folder") << "folder" << 1 << "cannot read it";
        QTest::newRow("with --text") << "both" << 2 << "give one of --text and --text-file";
        QTest::newRow("invalid UTF-8") << "invalid" << 2 << "not valid UTF-8 (byte 4)";
        QTest::newRow("over 64 MiB") << "huge" << 2 << "longer than the limit of 67108864 bytes";
    }
    void textFileRefused()
    {
        QFETCH(QString, kind);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QString file = dir.filePath(kind + ".txt");
        QStringList extra;
        if (kind == "folder") QVERIFY(QDir(dir.path()).mkdir(kind + ".txt"));
        if (kind == "both") {
            QVERIFY(writeFile(file, "abc"));
            extra = {"--text", "abc"};
        }
        if (kind == "invalid") QVERIFY(writeFile(file, "abc \xff def"));
        if (kind == "huge") {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly) && f.resize((qint64(64) << 20) + 1));   // sparse
        }
        const CliRun r = runCli(QStringList{"run", "--model", kRandom, "--text-file", file, "--out", "-"} + extra);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }

    // issue 14: random:layers=64,heads=256,d_model=8192 (~69 GB) aborted with bad_alloc.
    void memoryBudget_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("run") << QStringList{"run", "--model", kHuge, "--ids", "1", "--out", "-", "--max-memory", "1"}
                             << 1 << "needs 64.0 GiB for its weights, 1.0 GiB allowed (--max-memory)";
        QTest::newRow("info") << QStringList{"info", "--model", kHuge, "--max-memory", "2.5"} << 1
                              << "needs 64.0 GiB for its weights, 2.5 GiB allowed";
        QTest::newRow("faithfulness")
            << QStringList{"faithfulness", "--model", kHuge, "--text", "ab", "--out", "-", "--max-memory", "1"} << 1
            << "needs 64.0 GiB for its weights";
        QTest::newRow("bench --model")
            << QStringList{"bench", "--model", kHuge, "--n", "4", "--max-memory", "1", "--quiet"} << 2
            << "--model with --n 4: the weights and activations need 64.0 GiB, 1.0 GiB allowed";
        // Within each option's range, but not together: the bench refuses the combination before allocating.
        QTest::newRow("bench --n 2^24 --d 65536")
            << QStringList{"bench", "--n", "16777216", "--d", "65536", "--max-memory", "1", "--quiet"} << 2
            << "--n 16777216 --d 65536 --heads 4 --batch 1";
        QTest::newRow("bench --gemm-size 65536")
            << QStringList{"bench", "--gemm-size", "65536", "--max-memory", "1", "--quiet"} << 2
            << "the inputs, outputs and GEMM need 48.";
        QTest::newRow("bench --model --n 2^24")
            << QStringList{"bench", "--model", kRandom, "--n", "16777216", "--max-memory", "1", "--quiet"} << 2
            << "--model with --n 16777216: the weights and activations need";
        // 2 x 4 x 512: 2 * 4 * 512^2 + 256 * 512 floats and some biases, about 8.9 MB: more than 0.001 GiB (1.07 MB),
        // less than 0.01 GiB (10.7 MB).
        const QString mid = QStringLiteral("random:layers=2,heads=4,d_model=512");
        QTest::newRow("run, budget enough")
            << QStringList{"run", "--model", mid, "--ids", "1", "--out", "-", "--max-memory", "0.01"} << 0 << "";
        QTest::newRow("run, budget too small")
            << QStringList{"run", "--model", mid, "--ids", "1", "--out", "-", "--max-memory", "0.001"} << 1
            << "needs 0.0083 GiB for its weights, 0.001 GiB allowed";
        QTest::newRow("--max-memory 0") << QStringList{"run", "--model", kRandom, "--ids", "1", "--out", "-",
                                                        "--max-memory", "0"}
                                        << 2 << "--max-memory: 0 is outside 0.001..1048576";
        QTest::newRow("--max-memory nan") << QStringList{"info", "--model", kRandom, "--max-memory", "nan"} << 2
                                          << "--max-memory: 'nan' is not a number";
    }
    void memoryBudget()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        const CliRun r = runCli(args);
        QVERIFY2(r.exitCode == exitCode, r.err.constData());
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    }

    // issue 14: huge numeric options aborted with bad_alloc or ran for minutes; each is a bad argument now.
    void optionRanges_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QStringList run{"run", "--model", kRandom, "--ids", "1", "--out", "-"};
        const QStringList faith{"faithfulness", "--model", kRandom, "--text", "ab", "--out", "-"};
        const QStringList bench{"bench", "--quiet"};
        QTest::newRow("--pad 2e9") << run + QStringList{"--pad", "2000000000"} << "--pad: 2000000000 is outside 0..65536";
        QTest::newRow("--threads 1e9") << run + QStringList{"--threads", "1000000000"} << "--threads: 1000000000 is outside";
        QTest::newRow("--top-k 1e9") << run + QStringList{"--top-k", "1000000000"} << "--top-k: 1000000000 is outside";
        QTest::newRow("bench --n 2^31") << bench + QStringList{"--n", "2147483648"} << "--n: 2147483648 is outside";
        QTest::newRow("bench --d 1e6") << bench + QStringList{"--d", "1000000"} << "--d: 1000000 is outside";
        QTest::newRow("bench --heads 1e6") << bench + QStringList{"--heads", "1000000"} << "--heads: 1000000 is outside";
        QTest::newRow("bench --batch 1e6") << bench + QStringList{"--batch", "1000000"} << "--batch: 1000000 is outside";
        QTest::newRow("bench --warmups 2e9") << bench + QStringList{"--warmups", "2000000000"} << "--warmups: 2000000000 is outside";
        QTest::newRow("bench --reps 2e9") << bench + QStringList{"--reps", "2000000000"} << "--reps: 2000000000 is outside";
        QTest::newRow("bench --gemm-size 1e6") << bench + QStringList{"--gemm-size", "1000000"} << "--gemm-size: 1000000 is outside";
        QTest::newRow("bench --model --n 2^31") << bench + QStringList{"--model", kRandom, "--n", "2147483648"}
                                                << "--n: 2147483648 is outside";
        QTest::newRow("bench --n 1e9 text") << bench + QStringList{"--n", "1e9"} << "--n: '1e9' is not an integer";
        QTest::newRow("--permutations 2e9") << faith + QStringList{"--permutations", "2000000000"}
                                            << "--permutations: 2000000000 is outside 1..100000";
        QTest::newRow("--random-seeds 2e9") << faith + QStringList{"--random-seeds", "2000000000"}
                                            << "--random-seeds: 2000000000 is outside 1..10000";
        QTest::newRow("figure --size 20001") << QStringList{"figure", "--model", kRandom, "--text", "ab", "--view", "grid",
                                                            "--out", "x.png", "--size", "20001x20000"}
                                             << "--size: '20001x20000' is not WxH";
    }
    void optionRanges()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const CliRun r = runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }

    // issue 14: figure exited 0 with a blank "No result yet" image when --pad exceeded the positions, and
    // --view pipeline:9.9 drew layer 1 head 1.
    void figureRefuses_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("message");
        QTest::newRow("--pad over the positions") << QStringList{"--view", "grid", "--pad", "300"}
                                                  << "exceed the model's 256 positions";
        QTest::newRow("pipeline:9.9") << QStringList{"--view", "pipeline:9.9"}
                                      << "--view pipeline:9.9: the model has layers 0..1 and heads 0..3";
        QTest::newRow("head:0.4") << QStringList{"--view", "head:0.4"} << "--view head:0.4: the model has layers 0..1 and heads 0..3";
        QTest::newRow("masks:2.0") << QStringList{"--view", "masks:2.0"} << "the model has layers 0..1";
        QTest::newRow("lines:2") << QStringList{"--view", "lines:2"} << "--view lines:2: the model has layers 0..1";
    }
    void figureRefuses()
    {
        QFETCH(QStringList, extra);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString out = dir.filePath("f.png");
        const CliRun r = runCli(QStringList{"figure", "--model", kSample, "--text", "the cat sat down", "--out", out,
                                            "--quiet"} + extra);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
        QVERIFY(!QFileInfo::exists(out));
    }

    // issue 14: a failed JSON write of a --npy export deleted the previous .npy. Now the pair is committed together:
    // the JSON cannot be written (its name is a folder), so the previous .npy stays as it was.
    void npyPairKeptOnFailure()
    {
        QTemporaryDir dir;
        const QString json = dir.filePath("r.json"), npy = dir.filePath("r.attention.npy");
        QVERIFY(writeFile(npy, "previous npy"));
        QVERIFY(QDir(dir.path()).mkdir("r.json"));
        const CliRun r = runCli({"run", "--model", kRandom, "--ids", "1,2", "--npy", "--out", json, "--quiet"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("r.json"), r.err.constData());
        QCOMPARE(readFile(npy), QByteArray("previous npy"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);   // no temporary left
    }
    void npyPairWritten()
    {
        QTemporaryDir dir;
        const QString json = dir.filePath("r.json"), npy = dir.filePath("r.attention.npy");
        QVERIFY(writeFile(npy, "previous npy"));
        QVERIFY(writeFile(json, "previous json"));
        const CliRun r = runCli({"run", "--model", kRandom, "--ids", "1,2", "--npy", "--out", json, "--quiet"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(readFile(npy).startsWith("\x93NUMPY"));
        QVERIFY(readFile(json).contains("r.attention.npy"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 2);
    }
    // issue 14: info reported "tokenizer": null for a folder whose tokenizer files are broken, and only run said why.
    void infoBrokenTokenizer_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("content");
        QTest::newRow("tokenizer.json not JSON") << "tokenizer.json" << QByteArray("{\"model\": ");
        QTest::newRow("tokenizer.json without a model") << "tokenizer.json" << QByteArray("{\"version\": \"1.0\"}");
        QTest::newRow("vocab.txt invalid UTF-8") << "vocab.txt" << QByteArray("[PAD]\n\xff\xfe\n");
    }
    void infoBrokenTokenizer()
    {
        QFETCH(QString, file);
        QFETCH(QByteArray, content);
        QTemporaryDir dir;
        const QString fixture = QStringLiteral(ATTNSCOPE_TEST_DATA_DIR "/fixtures/models/gpt2-tiny/");
        for (const char *name : {"config.json", "model.safetensors"})
            QVERIFY(QFile::copy(fixture + name, dir.filePath(name)));
        QVERIFY(writeFile(dir.filePath(file), content));
        const CliRun r = runCli({"info", "--model", dir.path()});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("\"tokenizer\": null"), r.out.constData());
        QVERIFY2(r.out.contains("\"tokenizer_error\": \"") && r.out.contains(file.toUtf8()), r.out.constData());
    }

    // CI runs exactly the README's test command (issue 14: the fuzz preset runs in CI through it).
    void ciRunsTheReadmeCommand()
    {
        const QByteArray readme = readFile(QStringLiteral(ATTNSCOPE_TEST_DATA_DIR "/../README.md"));
        const QByteArray ci = readFile(QStringLiteral(ATTNSCOPE_TEST_DATA_DIR "/../.ci/run"));
        const qsizetype heading = readme.indexOf("Build and run the whole test suite");
        QVERIFY(heading >= 0);
        const qsizetype start = readme.indexOf("```sh\n", heading) + 6;
        const QByteArray command = readme.mid(start, readme.indexOf("\n", start) - start);
        QVERIFY2(command.contains("ctest --preset release") && command.contains("ctest --preset fuzz"), command.constData());
        QVERIFY2(ci.contains("\n" + command + "\n"), ci.constData());
    }

    // --out - never leaves a file named "-" and --out /dev/null stays the device.
    void outDevices()
    {
        QTemporaryDir dir;
        QProcess p;
        p.setWorkingDirectory(dir.path());
        p.start(kCli, {"run", "--model", kRandom, "--ids", "1", "--out", "-", "--quiet"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(!QFileInfo::exists(dir.filePath("-")));
        const CliRun r = runCli({"run", "--model", kRandom, "--ids", "1", "--out", "/dev/null", "--quiet"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(!QFileInfo(QStringLiteral("/dev/null")).isFile());   // still the device, not a regular file
    }
};

QTEST_GUILESS_MAIN(TestReliabilityCli)
#include "tst_reliability_cli.moc"
