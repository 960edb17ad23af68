// SPDX-License-Identifier: GPL-3.0-or-later
// Lessons: every bundled lesson parses, names a workspace and a model that opens, its text tokenizes and its state
// is accepted by that workspace; bad lesson files are rejected with the file and the field named; the panel and
// the menu.

#include "lessons/lessonpanel.h"
#include "lessons/lessons.h"
#include "session/session.h"
#include "runner/enginerunner.h"
#include "kit/subject.h"
#include "uitestsupport.h"
#include "kit/workspace.h"
#include "kit/workspaces.h"

#include <attnscope/textmodel.h>

#include <QAction>
#include <QMainWindow>
#include <QMenu>
#include <QTest>

using namespace attnui;

class TestLessons : public QObject {
    Q_OBJECT
private slots:
    void bundledLessonsParse();
    void bundledLesson_data();
    void bundledLesson();
    void badLesson_data();
    void badLesson();
    void panelAndMenu();
    void proseNamesHeadsAsShown();
};

void TestLessons::bundledLessonsParse()
{
    QStringList errors;
    const QList<Lesson> lessons = loadLessons(QStringLiteral(":/lessons"), &errors);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    QVERIFY(lessons.size() >= 5);
    QStringList workspaces;
    for (const Lesson &l : lessons) workspaces << l.workspace;
    for (const char *w : {"Pipeline", "Masks", "Equivariance", "Faithfulness", "Explore"})
        QVERIFY2(workspaces.contains(QLatin1String(w)), w);
}

void TestLessons::bundledLesson_data()
{
    QTest::addColumn<QString>("id");
    for (const Lesson &l : loadLessons()) QTest::addRow("%s", qPrintable(l.id)) << l.id;
}

void TestLessons::bundledLesson()
{
    QFETCH(QString, id);
    Lesson lesson;
    QString error;
    QVERIFY2(loadLessonFile(QStringLiteral(":/lessons/%1.json").arg(id), &lesson, &error), qPrintable(error));

    // The workspace is one the design names (DESIGN.md §3).
    static const QStringList planned{QStringLiteral("Explore"), QStringLiteral("Pipeline"), QStringLiteral("Masks"),
                                     QStringLiteral("Equivariance"), QStringLiteral("Faithfulness"),
                                     QStringLiteral("Compare"), QStringLiteral("Performance")};
    QVERIFY2(planned.contains(lesson.workspace), qPrintable(lesson.workspace));

    // The model opens and the text fits it.
    auto model = attn::TextModel::open(lesson.model.toStdString());
    QVERIFY2(model.isOk(), model.isOk() ? "" : model.status().message().c_str());
    auto tokens = model->tokenize(lesson.text.toStdString());
    QVERIFY2(tokens.isOk(), tokens.isOk() ? "" : tokens.status().message().c_str());

    // The workspace accepts the lesson's state (with the lesson's model as the Subject).
    Subject subject;
    subject.setModel(std::make_shared<const attn::TextModel>(std::move(model).value()), lesson.model);
    subject.setText(lesson.text);
    const QList<Workspace *> all = createWorkspaces(&subject);
    Workspace *target = nullptr;
    for (Workspace *w : all)
        if (w->title() == lesson.workspace) target = w;
    if (!target) {
        qDeleteAll(all);
        QSKIP(qPrintable(QStringLiteral("the %1 workspace is not registered in this build").arg(lesson.workspace)));
    }
    QVERIFY2(target->restoreSessionState(lesson.state, &error), qPrintable(error));
    target->runner()->waitForIdle();
    // The state counts from 0, and so do the workspace's layer and head boxes, where it has them.
    for (const QString key : {QStringLiteral("layer"), QStringLiteral("head")}) {
        if (!lesson.state.value(key).isDouble()) continue;
        const QString prefix = key + QLatin1Char(' ');
        if (const QSpinBox *spin = test::spinBoxWithPrefix(target, prefix))
            QCOMPARE(spin->text(), prefix + QString::number(lesson.state.value(key).toInt()));
    }
    qDeleteAll(all);
}

void TestLessons::badLesson_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("field");   // empty: the message names only the file
    const QByteArray tail = R"("explanation": ["p"], "try": ["t"])";
    const auto with = [&](const char *fields) { return QByteArray("{") + fields + tail + "}"; };
    QTest::addRow("not JSON") << QByteArray("{\"title\": ") << QString();
    QTest::addRow("an array") << QByteArray("[]") << QString();
    QTest::addRow("title missing") << with(R"("workspace": "Pipeline", "model": "sample:x", "text": "",)") << "title";
    QTest::addRow("title empty") << with(R"("title": " ", "workspace": "Pipeline", "model": "m", "text": "",)") << "title";
    QTest::addRow("workspace number") << with(R"("title": "t", "workspace": 3, "model": "m", "text": "",)") << "workspace";
    QTest::addRow("model missing") << with(R"("title": "t", "workspace": "Pipeline", "text": "",)") << "model";
    QTest::addRow("text null") << with(R"("title": "t", "workspace": "Pipeline", "model": "m", "text": null,)") << "text";
    QTest::addRow("state array") << with(R"("title": "t", "workspace": "P", "model": "m", "text": "", "state": [],)") << "state";
    QTest::addRow("unknown field") << with(R"("title": "t", "workspace": "P", "model": "m", "text": "", "level": 2,)") << "level";
    QTest::addRow("explanation empty")
        << QByteArray(R"({"title": "t", "workspace": "P", "model": "m", "text": "", "explanation": [], "try": ["t"]})")
        << "explanation";
    QTest::addRow("explanation a string")
        << QByteArray(R"({"title": "t", "workspace": "P", "model": "m", "text": "", "explanation": "p", "try": ["t"]})")
        << "explanation";
    QTest::addRow("text over the limit")
        << with(("\"title\": \"t\", \"workspace\": \"P\", \"model\": \"m\", \"text\": \"" +
                 QByteArray(kMaxTextChars + 1, 'x') + "\",").constData())
        << "text";
    QTest::addRow("try item number")
        << QByteArray(R"({"title": "t", "workspace": "P", "model": "m", "text": "", "explanation": ["p"], "try": [1]})")
        << "try";
}

void TestLessons::badLesson()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, field);
    Lesson lesson;
    lesson.title = QStringLiteral("unchanged");
    QString error;
    QVERIFY(!parseLesson(json, QStringLiteral("lessons/bad.json"), &lesson, &error));
    QVERIFY2(error.startsWith(QStringLiteral("lessons/bad.json: ")), qPrintable(error));
    if (!field.isEmpty()) QVERIFY2(error.startsWith(QStringLiteral("lessons/bad.json: %1: ").arg(field)), qPrintable(error));
    QCOMPARE(lesson.title, QStringLiteral("unchanged"));
}

void TestLessons::panelAndMenu()
{
    QMainWindow window;
    QList<QJsonObject> opened;
    bool accept = true;
    QMenu *menu = createLessonsMenu(&window, [&](const QJsonObject &session, QString *error) {
        opened << session;
        if (!accept) *error = QStringLiteral("no such workspace");
        return accept;
    });
    const QList<Lesson> lessons = loadLessons();
    int entries = 0;
    for (QAction *a : menu->actions())
        for (const Lesson &l : lessons)
            if (a->text() == l.title) ++entries;
    QCOMPARE(entries, lessons.size());

    auto *panel = window.findChild<LessonPanel *>();
    QVERIFY(panel);
    QVERIFY(panel->openLesson(QStringLiteral("scaling")));
    QCOMPARE(opened.size(), 1);
    QCOMPARE(opened[0].value(QStringLiteral("workspace")).toString(), QStringLiteral("Pipeline"));
    QCOMPARE(opened[0].value(QStringLiteral("model")).toString(), QStringLiteral("sample:induction-gpt2"));
    QVERIFY(opened[0].value(QStringLiteral("state")).toObject().contains(QStringLiteral("scale")));
    QVERIFY(panel->bodyText().contains(QStringLiteral("Try this")));
    QVERIFY(panel->errorText().isEmpty());

    accept = false;
    QVERIFY(!panel->openLesson(QStringLiteral("masks")));
    QVERIFY(panel->errorText().contains(QStringLiteral("no such workspace")));
    QCOMPARE(panel->currentId(), QStringLiteral("masks"));   // the text is still shown
    QVERIFY(!panel->openLesson(QStringLiteral("nonexistent")));
    QVERIFY(panel->errorText().contains(QStringLiteral("nonexistent")));
}

// A lesson's state counts from 0, like a session file, and so does its prose, with the names the GUI shows: the
// scaling lesson's state layer 1, head 0 is "L1 H0" in its text, and no 1-based "layer 2, head 1" is left.
void TestLessons::proseNamesHeadsAsShown()
{
    Lesson lesson;
    QString error;
    QVERIFY2(loadLessonFile(QStringLiteral(":/lessons/scaling.json"), &lesson, &error), qPrintable(error));
    QCOMPARE(lesson.state.value(QStringLiteral("layer")).toInt(), 1);
    QCOMPARE(lesson.state.value(QStringLiteral("head")).toInt(), 0);
    const QString prose = (lesson.explanation + lesson.trySteps).join(QLatin1Char('\n'));
    QVERIFY2(prose.contains(QStringLiteral("L1 H0")), qPrintable(prose));
    QVERIFY2(!prose.contains(QStringLiteral("layer 2")), qPrintable(prose));   // the sample model has layers 0 and 1
}

QTEST_MAIN(TestLessons)
#include "tst_lessons.moc"
