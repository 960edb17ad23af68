// SPDX-License-Identifier: GPL-3.0-or-later
// Session files (*.attnscope.json): a saved session opens in a fresh window and saves again to the same bytes,
// and the restored window runs the same model on the same text (same run export); saved sessions validate
// against docs/schema/session.schema.json; malformed sessions are rejected with a message naming the file and
// the field while the window keeps its state; a failed save leaves the old file intact.

#include "jsonschema.h"
#include "shell/mainwindow.h"
#include "kit/workspace.h"
#include "plots/heatmapplot.h"
#include "session/session.h"
#include "kit/subject.h"
#include "workspaces/explore/exploreview.h"

#include <attnscope/export.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QMimeData>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <functional>

#include <unistd.h>

using namespace attnui;

namespace {

bool waitForModel(MainWindow &w, const QString &spec)
{
    ExploreView *explore = w.explore();
    return QTest::qWaitFor([&] {
        return explore->snapshot() && explore->currentModel() && !explore->isLoading() &&
               QString::fromStdString(explore->currentModel()->spec()) == spec && !w.runner()->isBusy();
    }, 30000);
}

std::string runExport(const QString &spec, const QString &text)
{
    auto opened = attn::openModel(spec.toStdString(), true);
    if (!opened) return "open failed: " + opened.status().message();
    attn::RunRequest request;
    request.text = text.toStdString();
    auto data = attn::runModel(*opened, request);
    if (!data) return "run failed: " + data.status().message();
    return attn::runExportJson(*opened, request, *data);
}

QByteArray currentSessionBytes(const MainWindow &w)
{
    return w.currentSession().toBytes();
}

QJsonObject currentSessionJson(const MainWindow &w)
{
    return w.currentSession().toJson();
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Where two saved sessions differ ("workspaces.masks.head: 3 vs 1"); empty when they are the same.
QString sessionDifference(const QByteArray &a, const QByteArray &b)
{
    QStringList out;
    const std::function<void(const QString &, const QJsonValue &, const QJsonValue &)> walk =
        [&](const QString &at, const QJsonValue &x, const QJsonValue &y) {
            if (x.isObject() && y.isObject()) {
                const QJsonObject ox = x.toObject(), oy = y.toObject();
                QStringList keys = ox.keys() + oy.keys();
                keys.removeDuplicates();
                for (const QString &k : keys) walk(at.isEmpty() ? k : at + QLatin1Char('.') + k, ox.value(k), oy.value(k));
            } else if (x != y) {
                const auto text = [](const QJsonValue &v) {
                    return v.isUndefined() ? QStringLiteral("(absent)")
                                           : QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact));
                };
                out << QStringLiteral("%1: %2 vs %3").arg(at, text(x), text(y));
            }
        };
    walk(QString(), QJsonDocument::fromJson(a).object(), QJsonDocument::fromJson(b).object());
    if (out.isEmpty() && a != b) out << QStringLiteral("same values, different bytes");
    return out.join(QLatin1Char('\n'));
}

void writeAll(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

const QByteArray kGood = R"({"format": "attnscope-session", "version": 1, "model": "sample:induction-gpt2",
  "text": "a b c", "settings": {"backend": "auto", "color_map": "viridis", "theme": "light"},
  "current_workspace": "explore", "workspaces": {"explore": {"tab": "head", "layer": 0, "head": 1, "raw": false}}})";

// A session as AttnScope wrote it before the numbering became 0-based on screen too (version 1, commit f10a7dc).
// Its fields counted from 0 already, so it opens as it is: the same heads, now named as they are stored.
const QByteArray kVersion1 = R"({
    "current_workspace": "pipeline",
    "format": "attnscope-session",
    "model": "sample:induction-gpt2",
    "settings": {"backend": "auto", "color_map": "viridis", "theme": "light"},
    "text": "bo he so ve bo he so ve",
    "version": 1,
    "workspaces": {
        "compare": {"head_a": "0.3", "head_b": "1.2", "mode": "heads", "settings_a": "model", "settings_b": "bidirectional", "text_b": ""},
        "explore": {"head": 2, "layer": 1, "raw": false, "tab": "head"},
        "pipeline": {"head": 3, "layer": 0, "mask": "model", "positional": "model", "scale": true, "stage": "softmax",
                     "temperature": 1, "window": 2}
    }
})";

} // namespace

class TestUiSession : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void roundTrip();
    void savedStateDoesNotDependOnRuns();
    void savedSessionsMatchTheSchema();
    void malformedSessions_data();
    void malformedSessions();
    void failedSaveKeepsTheOldFile();
    void lessonStateOpensAWorkspace();
    void droppingASessionFileOpensIt();
    void versionOneSessionOpens();
    void longestTextOpens();
    void badStartupSessionIsShownInTheWindow();
    void exploreExportsTheRunOnScreen();

private:
    QTemporaryDir m_dir;
};

void TestUiSession::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AttnScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_ui_session"));
    QSettings().clear();
    QVERIFY(m_dir.isValid());
    QVERIFY(parseSession(kGood, nullptr).has_value());
}

void TestUiSession::roundTrip()
{
    const QString spec = ExploreView::defaultModelSpec();
    const QString first = m_dir.filePath(QStringLiteral("first.attnscope.json"));
    const QString second = m_dir.filePath(QStringLiteral("second.attnscope.json"));
    {
        MainWindow w;
        w.show();
        QVERIFY(waitForModel(w, spec));
        w.explore()->setText(QStringLiteral("one two three one two three"));
        w.explore()->selectHead(1, 2);
        w.explore()->setCurrentTab(ExploreView::LinesTab);
        w.setColorMap(ColorMap::Cividis);
        QVERIFY(QTest::qWaitFor([&] { return w.explore()->snapshot()->text == w.explore()->text(); }, 20000));
        QString error;
        QVERIFY2(w.saveSessionFile(first, &error), qPrintable(error));
        QCOMPARE(w.sessionPath(), first);
        QCOMPARE(MainWindow::recentSessions().value(0), first);
    }
    MainWindow again;
    again.show();
    QVERIFY(waitForModel(again, spec));
    again.explore()->setText(QStringLiteral("something else entirely"));
    QString error;
    QVERIFY2(again.openSessionFile(first, &error), qPrintable(error));
    QVERIFY(QTest::qWaitFor([&] { return again.explore()->snapshot()->text == QStringLiteral("one two three one two three")
                                         && !again.runner()->isBusy(); }, 20000));
    QCOMPARE(again.colorMap(), ColorMap::Cividis);
    QVERIFY2(again.saveSessionFile(second, &error), qPrintable(error));
    QVERIFY2(readAll(second) == readAll(first), qPrintable(sessionDifference(readAll(first), readAll(second))));
    const Session s = *loadSession(second, nullptr);
    QCOMPARE(s.workspaces.value(QStringLiteral("explore")).toObject().value(QStringLiteral("layer")).toInt(), 1);
    QCOMPARE(s.workspaces.value(QStringLiteral("explore")).toObject().value(QStringLiteral("tab")).toString(),
             QStringLiteral("lines"));
    // The restored window runs what the first one ran: the same run export.
    QCOMPARE(runExport(again.subject()->modelSpec(), again.explore()->text()),
             runExport(s.model, s.text));
    again.setColorMap(ColorMap::Viridis);
}

// A session holds what was chosen, not what a run resolved (Masks' automatic head, its middle token j and the
// causal start of its custom mask; Compare's default heads): saved before any workspace has run and again after
// every one has shown its result, it reads the same; opened in a fresh window whose workspaces all run, it saves
// to the same bytes. (roundTrip saves at whatever moment the runs have reached; this pins both ends.)
void TestUiSession::savedStateDoesNotDependOnRuns()
{
    MainWindow w;
    w.show();
    QVERIFY(waitForModel(w, ExploreView::defaultModelSpec()));
    w.explore()->setText(QStringLiteral("one two three one two three"));
    QVERIFY(QTest::qWaitFor([&] { return w.explore()->snapshot()->text == w.explore()->text() && !w.runner()->isBusy(); }, 20000));
    const QByteArray before = currentSessionBytes(w);
    const auto runAll = [](MainWindow &win) {
        for (Workspace *ws : win.workspaces()) {
            QVERIFY(win.showWorkspace(win.workspaceKey(ws)));
            QVERIFY(QTest::qWaitFor([&] { return !ws->hasPendingRun() && !ws->runner()->isBusy(); }, 60000));
            QVERIFY2(ws->errorText().isEmpty(), qPrintable(ws->errorText()));
        }
        QVERIFY(win.showWorkspace(QStringLiteral("explore")));
    };
    runAll(w);
    if (QTest::currentTestFailed()) return;
    QVERIFY2(currentSessionBytes(w) == before, qPrintable(sessionDifference(before, currentSessionBytes(w))));

    const QString path = m_dir.filePath(QStringLiteral("runs.attnscope.json"));
    QString error;
    QVERIFY2(w.saveSessionFile(path, &error), qPrintable(error));
    MainWindow again;
    again.show();
    QVERIFY(waitForModel(again, ExploreView::defaultModelSpec()));
    QVERIFY2(again.openSessionFile(path, &error), qPrintable(error));
    QVERIFY(QTest::qWaitFor([&] { return again.explore()->snapshot()->text == w.explore()->text() && !again.runner()->isBusy(); }, 20000));
    runAll(again);
    if (QTest::currentTestFailed()) return;
    QVERIFY2(currentSessionBytes(again) == before, qPrintable(sessionDifference(before, currentSessionBytes(again))));
}

void TestUiSession::savedSessionsMatchTheSchema()
{
    QFile schemaFile(QStringLiteral(ATTNSCOPE_SCHEMA_DIR "/session.schema.json"));
    QVERIFY(schemaFile.open(QIODevice::ReadOnly));
    const QJsonObject schema = QJsonDocument::fromJson(schemaFile.readAll()).object();
    QVERIFY(!schema.isEmpty());
    MainWindow w;
    w.show();
    QVERIFY(waitForModel(w, ExploreView::defaultModelSpec()));
    const QString path = m_dir.filePath(QStringLiteral("schema.attnscope.json"));
    QString error;
    QVERIFY2(w.saveSessionFile(path, &error), qPrintable(error));
    const QJsonDocument doc = QJsonDocument::fromJson(readAll(path));
    const QStringList problems = attn::test::validateJsonSchema(doc.object(), schema);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    // The raw experiment's state too.
    w.explore()->useRawExperiment();
    QVERIFY(QTest::qWaitFor([&] { return w.explore()->isRawExperiment() && !w.runner()->isBusy(); }, 20000));
    const QJsonObject raw = currentSessionJson(w);
    QCOMPARE(raw.value(QStringLiteral("model")).toString(), QString());
    const QStringList rawProblems = attn::test::validateJsonSchema(raw, schema);
    QVERIFY2(rawProblems.isEmpty(), qPrintable(rawProblems.join(QLatin1Char('\n'))));
}

void TestUiSession::malformedSessions_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("field");   // what the message must name
    const auto with = [](const char *from, const char *to) { return QByteArray(kGood).replace(from, to); };
    QTest::addRow("not JSON") << QByteArray("{\"format\": ") << QStringLiteral("line 1");
    QTest::addRow("an array") << QByteArray("[1, 2]") << QStringLiteral("top level");
    QTest::addRow("wrong format") << with("\"attnscope-session\"", "\"attnscope\"") << QStringLiteral("format");
    QTest::addRow("newer version") << with("\"version\": 1", "\"version\": 7") << QStringLiteral("version");
    QTest::addRow("version a string") << with("\"version\": 1", "\"version\": \"1\"") << QStringLiteral("version");
    QTest::addRow("model missing") << with("\"model\": \"sample:induction-gpt2\",", "") << QStringLiteral("model");
    QTest::addRow("text a number") << with("\"text\": \"a b c\"", "\"text\": 5") << QStringLiteral("text");
    QTest::addRow("unknown backend") << with("\"backend\": \"auto\"", "\"backend\": \"tpu\"")
                                     << QStringLiteral("settings.backend");
    QTest::addRow("theme not a string") << with("\"theme\": \"light\"", "\"theme\": true") << QStringLiteral("settings.theme");
    QTest::addRow("settings an array") << with("\"settings\": {\"backend\": \"auto\", \"color_map\": \"viridis\", \"theme\": \"light\"}",
                                               "\"settings\": []") << QStringLiteral("settings");
    QTest::addRow("workspace state not an object") << with("\"explore\": {\"tab\": \"head\", \"layer\": 0, \"head\": 1, \"raw\": false}",
                                                           "\"explore\": 3") << QStringLiteral("workspaces.explore");
    QTest::addRow("unknown workspace") << with("\"workspaces\": {", "\"workspaces\": {\"nosuch\": {}, ")
                                       << QStringLiteral("workspaces.nosuch");
    QTest::addRow("unknown current workspace") << with("\"current_workspace\": \"explore\"", "\"current_workspace\": \"x\"")
                                               << QStringLiteral("current_workspace");
    QTest::addRow("bad tab") << with("\"tab\": \"head\"", "\"tab\": \"heads\"") << QStringLiteral("workspaces.explore.tab");
    QTest::addRow("negative layer") << with("\"layer\": 0", "\"layer\": -1") << QStringLiteral("workspaces.explore.layer");
    QTest::addRow("fractional head") << with("\"head\": 1", "\"head\": 1.5") << QStringLiteral("workspaces.explore.head");
    // Issue 14: a 180 MB text crashed Qt's text layout. One character over the limit is refused, naming it.
    const QByteArray overLimit = "\"text\": \"" + QByteArray(kMaxTextChars + 1, 'a') + "\"";
    QTest::addRow("text over the limit") << with("\"text\": \"a b c\"", overLimit.constData())
                                         << QStringLiteral("text: 1000001 characters; the limit is 1000000");
    // A file larger than any session can be is refused before it is read (padding after the JSON object).
    QTest::addRow("file over 16 MiB") << QByteArray(kGood) + QByteArray(kMaxSessionFileBytes, ' ')
                                      << QStringLiteral("bytes; a session file is at most 16777216 bytes");
}

void TestUiSession::malformedSessions()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, field);
    const QString path = m_dir.filePath(QStringLiteral("bad.attnscope.json"));
    writeAll(path, json);
    MainWindow w;
    w.show();
    QVERIFY(waitForModel(w, ExploreView::defaultModelSpec()));
    w.explore()->selectHead(1, 3);
    const QByteArray before = currentSessionBytes(w);
    QString error;
    QVERIFY(!w.openSessionFile(path, &error));
    QVERIFY2(error.startsWith(path), qPrintable(error));
    QVERIFY2(error.contains(field), qPrintable(error));
    QCOMPARE(currentSessionBytes(w), before);   // nothing changed
    QVERIFY(w.isVisible());
}

void TestUiSession::failedSaveKeepsTheOldFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("kept.attnscope.json"));
    writeAll(path, kGood);
    // Make the folder unwritable: chmod for a normal user; root ignores that, so use the immutable flag there.
    const bool root = geteuid() == 0;
    if (root) {
        if (QProcess::execute(QStringLiteral("chattr"), {QStringLiteral("+i"), dir.path()}) != 0)
            QSKIP("running as root without chattr +i: cannot make a folder unwritable");
    } else {
        QVERIFY(QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::ExeOwner));
    }
    Session s = *parseSession(kGood, nullptr);
    s.text = QStringLiteral("a different text");
    QString error;
    const bool saved = saveSession(s, path, &error);
    if (root) QProcess::execute(QStringLiteral("chattr"), {QStringLiteral("-i"), dir.path()});
    else QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    QVERIFY(!saved);
    QVERIFY2(error.contains(path), qPrintable(error));
    QCOMPARE(readAll(path), kGood);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{QStringLiteral("kept.attnscope.json")});
}

void TestUiSession::lessonStateOpensAWorkspace()
{
    MainWindow w;
    w.show();
    QVERIFY(waitForModel(w, ExploreView::defaultModelSpec()));
    QString error;
    QVERIFY2(w.openLessonState({{QStringLiteral("model"), ExploreView::defaultModelSpec()},
                                {QStringLiteral("text"), QStringLiteral("x y x y")},
                                {QStringLiteral("workspace"), QStringLiteral("Explore")},
                                {QStringLiteral("state"), QJsonObject{{QStringLiteral("tab"), QStringLiteral("statistics")}}}},
                               &error),
             qPrintable(error));
    QCOMPARE(w.explore()->text(), QStringLiteral("x y x y"));
    QCOMPARE(w.currentSession().workspaces.value(QStringLiteral("explore")).toObject().value(QStringLiteral("tab")).toString(),
             QStringLiteral("statistics"));
    QVERIFY(!w.openLessonState({{QStringLiteral("workspace"), QStringLiteral("Nowhere")}}, &error));
    QVERIFY2(error.contains(QStringLiteral("workspace")), qPrintable(error));
}

void TestUiSession::droppingASessionFileOpensIt()
{
    const QString path = m_dir.filePath(QStringLiteral("dropped.attnscope.json"));
    Session s = *parseSession(kGood, nullptr);
    s.model = ExploreView::defaultModelSpec();
    s.text = QStringLiteral("dropped text dropped text");
    QVERIFY(saveSession(s, path, nullptr));
    MainWindow w;
    w.show();
    QVERIFY(waitForModel(w, ExploreView::defaultModelSpec()));
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&w, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&w, &drop);
    QCOMPARE(w.explore()->text(), s.text);
    QCOMPARE(w.sessionPath(), path);
}

void TestUiSession::versionOneSessionOpens()
{
    const QString path = m_dir.filePath(QStringLiteral("v1.attnscope.json"));
    writeAll(path, kVersion1);
    MainWindow w;
    w.show();
    QVERIFY(waitForModel(w, ExploreView::defaultModelSpec()));
    QString error;
    QVERIFY2(w.openSessionFile(path, &error), qPrintable(error));
    QVERIFY(QTest::qWaitFor([&] {
        return w.explore()->snapshot() && w.explore()->snapshot()->text == QStringLiteral("bo he so ve bo he so ve") &&
               !w.runner()->isBusy();
    }, 30000));
    // Explore's layer 1, head 2 is titled L1 H2; the Pipeline shows L0 H3, as stored.
    QVERIFY2(w.explore()->headPlot()->title().startsWith(QStringLiteral("L1 H2 ")), qPrintable(w.explore()->headPlot()->title()));
    Workspace *pipeline = w.findWorkspace(QStringLiteral("pipeline"));
    QVERIFY(pipeline && w.currentWorkspace() == pipeline);
    QVERIFY(pipeline->runner()->waitForIdle(30000));
    QVERIFY2(pipeline->figureCaption().contains(QStringLiteral("L0 H3")), qPrintable(pipeline->figureCaption()));
    const QJsonObject compare = w.currentSession().workspaces.value(QStringLiteral("compare")).toObject();
    QCOMPARE(compare.value(QStringLiteral("head_a")).toString(), QStringLiteral("0.3"));
    QCOMPARE(compare.value(QStringLiteral("head_b")).toString(), QStringLiteral("1.2"));
}

// The longest text a session may hold opens: the editor shows all of it and the run refuses it for the model's
// positions (a message in the banner, the window alive), the previous result still on screen.
void TestUiSession::longestTextOpens()
{
    QString text;
    text.reserve(kMaxTextChars);
    while (text.size() + 10 <= kMaxTextChars) text += QStringLiteral("the cat.\n");
    text += QString(kMaxTextChars - text.size(), QLatin1Char('a'));
    QCOMPARE(text.size(), kMaxTextChars);
    Session s;
    s.model = ExploreView::defaultModelSpec();
    s.text = text;
    const QString path = m_dir.filePath(QStringLiteral("longest.attnscope.json"));
    QString error;
    QVERIFY2(saveSession(s, path, &error), qPrintable(error));
    MainWindow w;
    w.show();
    QVERIFY(waitForModel(w, s.model));
    const auto before = w.explore()->snapshot();
    QVERIFY2(w.openSessionFile(path, &error), qPrintable(error));
    QCOMPARE(w.explore()->text().size(), kMaxTextChars);
    QTRY_VERIFY_WITH_TIMEOUT(w.explore()->errorText().contains(QStringLiteral("positions")), 60000);
    QCOMPARE(w.explore()->snapshot(), before);
}

// `attnscope bad.attnscope.json`: the window says why the session did not open (not only stderr) and keeps going.
void TestUiSession::badStartupSessionIsShownInTheWindow()
{
    const QString path = m_dir.filePath(QStringLiteral("startup.attnscope.json"));
    writeAll(path, QByteArray(kGood).replace("\"version\": 1", "\"version\": 7"));
    MainWindow w;
    w.show();
    QVERIFY(!w.openStartupSession(path));
    Workspace *shown = w.currentWorkspace();
    QVERIFY(shown);
    QVERIFY2(shown->noticeText().contains(path) && shown->noticeText().contains(QStringLiteral("version")),
             qPrintable(shown->noticeText()));
    // The default model still opens and runs; the notice stays until the user closes it.
    QVERIFY(waitForModel(w, ExploreView::defaultModelSpec()));
    QVERIFY(shown->noticeText().contains(path));
}

// Explore ▸ Export Data (JSON): the run document of the result on screen, by the CLI's code — the weights bit for
// bit those the heatmaps show, the statistics and rollout those of the panels, and a valid run document.
void TestUiSession::exploreExportsTheRunOnScreen()
{
    MainWindow w;
    w.show();
    QVERIFY(waitForModel(w, ExploreView::defaultModelSpec()));
    ExploreView *explore = w.explore();
    explore->setCurrentTab(ExploreView::AggregationTab);   // rollout and flow are computed while it is shown
    QVERIFY(QTest::qWaitFor([&] { return !explore->snapshot()->flow.empty() && !w.runner()->isBusy(); }, 30000));
    const auto snapshot = explore->snapshot();
    QVERIFY(explore->dataFormats().value(0).contains(QLatin1String("*.json")));
    const QString path = m_dir.filePath(QStringLiteral("explore.json"));
    QString error;
    QVERIFY2(explore->exportData(path, &error), qPrintable(error));
    const QJsonObject doc = QJsonDocument::fromJson(readAll(path)).object();
    QFile schemaFile(QStringLiteral(ATTNSCOPE_SCHEMA_DIR "/run.schema.json"));
    QVERIFY(schemaFile.open(QIODevice::ReadOnly));
    const QStringList problems = attn::test::validateJsonSchema(doc, QJsonDocument::fromJson(schemaFile.readAll()).object());
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    QCOMPARE(doc.value("input").toObject().value("text").toString(), snapshot->text);
    const int n = snapshot->length();
    QCOMPARE(doc.value("input").toObject().value("length").toInt(), n);
    const QJsonArray attention = doc.value("attention").toArray();
    const QJsonArray stats = doc.value("analyses").toObject().value("head_statistics").toArray();
    QCOMPARE(stats.size(), qsizetype(snapshot->layers * snapshot->heads));
    for (int l = 0; l < snapshot->layers; ++l)
        for (int h = 0; h < snapshot->heads; ++h) {
            QVERIFY(snapshot->hasWeights(l, h));
            const std::vector<float> &shown = snapshot->weightsOf(l, h);
            const QJsonArray rows = attention.at(l).toArray().at(h).toArray();
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j)
                    QCOMPARE(float(rows.at(i).toArray().at(j).toDouble()), shown[std::size_t(i * n + j)]);
            const QJsonObject st = stats.at(l * snapshot->heads + h).toObject();
            QCOMPARE(st.value("layer").toInt(), l);
            QCOMPARE(st.value("head").toInt(), h);
            const attn::HeadStatistics &panel = snapshot->stats[std::size_t(l * snapshot->heads + h)];
            QVERIFY(std::abs(st.value("entropy").toDouble() - panel.entropy) < 1e-6);
            QVERIFY(std::abs(st.value("first_token").toDouble() - panel.firstToken) < 1e-6);
        }
    for (const char *key : {"rollout", "flow"}) {
        const std::vector<double> &panel = QLatin1String(key) == QLatin1String("rollout") ? snapshot->rollout : snapshot->flow;
        const QJsonArray m = doc.value("analyses").toObject().value(QLatin1String(key)).toObject().value("matrix").toArray();
        QCOMPARE(m.size(), qsizetype(n));
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) QVERIFY(std::abs(m.at(i).toArray().at(j).toDouble() - panel[std::size_t(i * n + j)]) < 1e-6);
    }
    QCOMPARE(doc.value("provenance").toObject().value("model").toObject().value("source").toString(), ExploreView::defaultModelSpec());

    // The raw experiment has no model: CSV only, and a JSON path is refused with a message.
    explore->useRawExperiment();
    QVERIFY(QTest::qWaitFor([&] { return explore->isRawExperiment() && !w.runner()->isBusy(); }, 20000));
    QVERIFY(!explore->dataFormats().join(QLatin1Char(' ')).contains(QLatin1String("*.json")));
    QVERIFY(!explore->exportData(m_dir.filePath(QStringLiteral("raw.json")), &error));
    QVERIFY2(error.contains(QLatin1String("no model")), qPrintable(error));
}

QTEST_MAIN(TestUiSession)
#include "tst_ui_session.moc"
