// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// LessonPanel: a dock beside the workspaces that shows one lesson — its title, which workspace, model and text it
// sets up, its explanation and its "try this" steps — and opens its setup through the main window. A failure to
// set up (a model that does not load, a workspace that is missing) is shown in the panel; the lesson text stays.

#include "lessons/lessons.h"

#include <QDockWidget>

class QLabel;
class QPushButton;
class QTextBrowser;

namespace attnui {

class LessonPanel : public QDockWidget {
    Q_OBJECT
public:
    explicit LessonPanel(QWidget *parent = nullptr);

    void setLessons(const QList<Lesson> &lessons);
    const QList<Lesson> &lessons() const { return m_lessons; }
    void setOpener(LessonOpener open) { m_open = std::move(open); }

    // Shows the lesson with this id and opens its setup. False (and a message in the panel) when there is no
    // such lesson or its setup failed.
    bool openLesson(const QString &id);
    void showLesson(const Lesson &lesson);   // the text only
    QString currentId() const { return m_current.id; }
    QString bodyText() const;                // the explanation and steps as plain text
    QString errorText() const;

signals:
    void lessonOpened(const QString &id);

private:
    bool applySetup();

    QList<Lesson> m_lessons;
    Lesson m_current;
    LessonOpener m_open;
    QLabel *m_title = nullptr;
    QLabel *m_meta = nullptr;
    QLabel *m_error = nullptr;
    QTextBrowser *m_body = nullptr;
    QPushButton *m_reset = nullptr;
};

} // namespace attnui
