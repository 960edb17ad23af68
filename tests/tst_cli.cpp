// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope-cli as scripts see it: exit codes, messages on stderr that name the option, and `bench --json`
// lines that carry every documented field.

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

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

} // namespace

class TestCli : public QObject {
    Q_OBJECT

private slots:
    void help_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::addRow("top-level --help") << QStringList{"--help"} << "bench";
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
        const CliRun run = runCli(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(names.toUtf8()), run.err.constData());
        QVERIFY(run.out.isEmpty());
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
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
