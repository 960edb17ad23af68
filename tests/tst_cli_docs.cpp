// SPDX-License-Identifier: GPL-3.0-or-later
// The attnscope-cli examples of README.md and docs/cli.md, and sample_models/README.md against the model cards: on a bundled model each text is made of words the model
// was trained on (every word occurs in its examples.json or rationales.json, texts from its training
// distribution), and each example runs as written, from the source tree, with its outputs redirected into a
// temporary folder. Not run here: bench (timings, a GPU; the benchmarks cover it), and the dataset runs of the
// ```shell block, which need a file the reader brings (reviews.jsonl; tst_cli_dataset runs them on its own).

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Example {
    QString file;
    QString line;
    QStringList args;   // after the program
};

// Every attnscope-cli command in the ```sh blocks of a Markdown file: continuation lines joined, a pipe and
// what follows it, and a trailing "# comment", dropped.
QList<Example> examplesIn(const QString &path)
{
    QList<Example> out;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return out;
    bool inShell = false;
    QString pending;
    for (const QString &raw : QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'))) {
        if (raw.startsWith(QLatin1String("```"))) {
            inShell = raw == QLatin1String("```sh");
            pending.clear();
            continue;
        }
        if (!inShell) continue;
        QString line = pending + raw.trimmed();
        if (line.endsWith(QLatin1Char('\\'))) {
            pending = line.chopped(1) + QLatin1Char(' ');
            continue;
        }
        pending.clear();
        const int program = line.indexOf(QLatin1String("attnscope-cli "));
        if (program < 0 || !line.left(program).trimmed().remove(QStringLiteral("build/release/app/")).isEmpty()) continue;
        QString command = line.mid(program);
        command = command.section(QLatin1String(" | "), 0, 0).section(QLatin1String("   #"), 0, 0).trimmed();
        out.append({QFileInfo(path).fileName(), line, QProcess::splitCommand(command).mid(1)});
    }
    return out;
}

QStringList wordsOf(const QString &text)
{
    QStringList words;
    static const QRegularExpression word(QStringLiteral("[\\w']+"));
    for (auto it = word.globalMatch(text.toLower()); it.hasNext();) words << it.next().captured();
    return words;
}

// The words of a sample model's own texts: examples.json and rationales.json.
QSet<QString> trainedWords(const QString &folder)
{
    QSet<QString> words;
    for (const char *name : {"examples.json", "rationales.json"}) {
        QFile f(folder + QLatin1Char('/') + QLatin1String(name));
        if (!f.open(QIODevice::ReadOnly)) continue;
        const QJsonDocument doc = QJsonDocument::fromJson(f.readAll());
        const QJsonArray items = doc.isArray() ? doc.array() : doc.object().value(QStringLiteral("examples")).toArray();
        for (const QJsonValue &v : items)
            for (const QString &w : wordsOf(v.isString() ? v.toString() : v.toObject().value(QStringLiteral("text")).toString()))
                words.insert(w);
    }
    return words;
}

} // namespace

class TestCliDocs : public QObject {
    Q_OBJECT
private slots:
    void examples_data();
    void examples();
    void sampleModelsReadmeAgreesWithTheCards();
};

void TestCliDocs::examples_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("line");
    int n = 0;
    for (const QString &doc : {QStringLiteral(ATTNSCOPE_SOURCE_DIR "/README.md"), QStringLiteral(ATTNSCOPE_SOURCE_DIR "/docs/cli.md")})
        for (const Example &e : examplesIn(doc)) {
            QTest::addRow("%s %d: %s", qPrintable(e.file), n++, qPrintable(e.args.value(0))) << e.args << e.line;
        }
    QVERIFY2(n >= 30, "README.md and docs/cli.md lost their examples");
}

void TestCliDocs::examples()
{
    QFETCH(QStringList, args);
    QFETCH(QString, line);
    const QString verb = args.value(0);
    // The text is one the model knows.
    const int model = args.indexOf(QStringLiteral("--model")), text = args.indexOf(QStringLiteral("--text"));
    if (model >= 0 && text >= 0 && args.value(model + 1).startsWith(QLatin1String("sample:"))) {
        const QSet<QString> known = trainedWords(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/sample_models/") + args.value(model + 1).mid(7));
        QVERIFY2(!known.isEmpty(), qPrintable(args.value(model + 1) + QStringLiteral(": no examples.json")));
        for (const QString &w : wordsOf(args.value(text + 1)))
            QVERIFY2(known.contains(w), qPrintable(QStringLiteral("'%1' is not a word %2 was trained on: %3")
                                                       .arg(w, args.value(model + 1), line)));
    }
    if (verb == QLatin1String("bench") || verb == QLatin1String("merge"))
        QSKIP("bench: timings (and a GPU); merge: the shards of a reader's dataset");
    const int dataset = args.indexOf(QStringLiteral("--dataset"));
    if (dataset >= 0 && args.value(dataset + 1) != QLatin1String("sample")) QSKIP("a dataset file the reader brings");

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QStringList files;
    for (const char *option : {"--out", "--summary"}) {
        const int i = args.indexOf(QLatin1String(option));
        if (i < 0 || i + 1 >= args.size() || args[i + 1] == QLatin1String("-")) continue;
        args[i + 1] = dir.filePath(QFileInfo(args[i + 1]).fileName());
        files << args[i + 1];
    }
    QProcess process;
    process.setWorkingDirectory(QStringLiteral(ATTNSCOPE_SOURCE_DIR));   // the fixtures' relative paths
    process.start(QStringLiteral(ATTNSCOPE_CLI_PATH), args);
    QVERIFY2(process.waitForFinished(240000), qPrintable(line));
    const QByteArray err = process.readAllStandardError();
    QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0, qPrintable(line + QStringLiteral("\n") + err));
    if (files.isEmpty()) QVERIFY2(!process.readAllStandardOutput().isEmpty(), qPrintable(line));
    for (const QString &f : files) QVERIFY2(QFileInfo(f).size() > 0, qPrintable(f));
}

// sample_models/README.md quotes each model's results: every number in a model's row is in that model's card.
void TestCliDocs::sampleModelsReadmeAgreesWithTheCards()
{
    QFile index(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/sample_models/README.md"));
    QVERIFY(index.open(QIODevice::ReadOnly | QIODevice::Text));
    int rows = 0;
    static const QRegularExpression row(QStringLiteral("^\\| `([a-z0-9-]+)/` \\|(.*)$"));
    static const QRegularExpression number(QStringLiteral("\\d+\\.\\d+"));
    for (const QString &line : QString::fromUtf8(index.readAll()).split(QLatin1Char('\n'))) {
        const QRegularExpressionMatch m = row.match(line);
        if (!m.hasMatch()) continue;
        QFile card(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/sample_models/") + m.captured(1) + QStringLiteral("/README.md"));
        QVERIFY2(card.open(QIODevice::ReadOnly | QIODevice::Text), qPrintable(m.captured(1)));
        const QString text = QString::fromUtf8(card.readAll());
        for (auto it = number.globalMatch(m.captured(2)); it.hasNext();) {
            const QString n = it.next().captured();
            QVERIFY2(text.contains(n), qPrintable(QStringLiteral("%1: %2 is not in its model card").arg(m.captured(1), n)));
        }
        ++rows;
    }
    QVERIFY2(rows >= 4, "sample_models/README.md lost its table of models");
}

QTEST_GUILESS_MAIN(TestCliDocs)
#include "tst_cli_docs.moc"
