// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Lessons: small guided tours bundled as resources/lessons/*.json (qrc prefix :/lessons). Each names a workspace,
// a model and a text, the workspace's session state to start from, a few paragraphs of explanation and "try this"
// steps. A lesson file:
//
//   { "title": "Why scale by √d_k",            non-empty string
//     "workspace": "Pipeline",                  a workspace title (Workspace::title())
//     "model": "sample:induction-gpt2",         a model spec: sample:NAME, random:..., a folder
//     "text": "bo he so ve ...",                the input text (may be empty: the model's first example)
//     "state": { ... },                         optional: that workspace's sessionState() fields
//     "explanation": ["paragraph", ...],        one or more non-empty strings
//     "try": ["step", ...],                     one or more non-empty strings
//     "expect": ["what you should see", ...] }  optional: what the student should see, each a claim that
//                                               tst_lessons checks on the lesson's model (bundled lessons must
//                                               state at least one)
//
// A lesson in a workspace that opens its own encoder–decoder models (Encoder–Decoder): "model" and "text" are that
// workspace's model and source sentence (the Subject, Explore's model and text, stays as it is).
//
// The id of a lesson is its file's base name ("scaling" for scaling.json). Bad files are rejected with a message
// that names the file and the field.

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>

class QMainWindow;
class QMenu;

namespace attnui {

struct Lesson {
    QString id;            // file base name
    QString file;          // where it was read from
    QString title;
    QString workspace;
    QString model;
    QString text;
    QJsonObject state;     // the workspace's session state
    QStringList explanation;
    QStringList trySteps;
    QStringList expectations;   // "expect": what the student should see

    // What MainWindow::openLessonState() takes: model, text, the workspace to show and its state.
    QJsonObject session() const;
};

// The state a workspace that opens its own encoder–decoder models starts a lesson from: the lesson's state with its
// model and text as the workspace's "model" and "source" (fields the state sets itself win).
QJsonObject encoderDecoderLessonState(const QJsonObject &state, const QString &model, const QString &text);

// Parses one lesson; on failure returns false and sets *error to "FILE: FIELD: what is wrong".
bool parseLesson(const QByteArray &json, const QString &file, Lesson *lesson, QString *error);
bool loadLessonFile(const QString &path, Lesson *lesson, QString *error);

// Every lesson under `dir` (default the bundled :/lessons), sorted by file name. Files that fail to parse are
// left out and their messages appended to *errors.
QList<Lesson> loadLessons(const QString &dir = QStringLiteral(":/lessons"), QStringList *errors = nullptr);

class LessonPanel;

// Opens a lesson's setup: sets model and text, shows the workspace and restores its state. Returns false with a
// message when the setup could not be applied.
using LessonOpener = std::function<bool(const QJsonObject &session, QString *error)>;

// The Lessons menu: one entry per bundled lesson. Choosing one shows it in a LessonPanel docked on the right of
// `window` (created on first use) and opens its setup through `open`.
QMenu *createLessonsMenu(QMainWindow *window, LessonOpener open);

} // namespace attnui
