// SPDX-License-Identifier: GPL-3.0-or-later
#include "lessons/lessonpanel.h"
#include "kit/fontscale.h"

#include "lessons/lessons.h"

#include <QCoreApplication>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace attnui {

LessonPanel::LessonPanel(QWidget *parent) : QDockWidget(tr("Lesson"), parent)
{
    setObjectName(QStringLiteral("lessonPanel"));   // QMainWindow::saveState() keys docks by object name
    setAllowedAreas(Qt::LeftDockWidgetArea | Qt::RightDockWidgetArea);
    auto *content = new QWidget;
    auto *layout = new QVBoxLayout(content);
    m_title = new QLabel(tr("No lesson open"));
    m_title->setWordWrap(true);
    setRelativeFont(m_title, 1.3, true);
    layout->addWidget(m_title);
    m_meta = new QLabel;
    m_meta->setWordWrap(true);
    m_meta->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(m_meta);
    m_error = new QLabel;
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("QLabel { background: #fde2e1; color: #8a1c1c; padding: 4px; }"));
    m_error->hide();
    layout->addWidget(m_error);
    m_body = new QTextBrowser;
    m_body->setOpenExternalLinks(false);
    m_body->setFrameShape(QFrame::NoFrame);
    layout->addWidget(m_body, 1);
    m_reset = new QPushButton(tr("Set up this lesson again"));
    m_reset->setToolTip(tr("Open the lesson's model, text and settings again, undoing your changes"));
    m_reset->setEnabled(false);
    layout->addWidget(m_reset);
    connect(m_reset, &QPushButton::clicked, this, &LessonPanel::applySetup);
    setWidget(content);
    setMinimumWidth(340);
}

void LessonPanel::setLessons(const QList<Lesson> &lessons)
{
    m_lessons = lessons;
}

void LessonPanel::showLesson(const Lesson &lesson)
{
    m_current = lesson;
    m_title->setText(lesson.title);
    // A random:… spec has no spaces: allow a line break after each comma, or it sets the dock's minimum width.
    QString model = lesson.model;
    model.replace(QLatin1Char(','), QStringLiteral(",\u200b"));
    m_meta->setText(tr("Workspace: %1 · model: %2").arg(lesson.workspace, model));
    QString html;
    for (const QString &p : lesson.explanation) html += QStringLiteral("<p>%1</p>").arg(p.toHtmlEscaped());
    html += QStringLiteral("<h3>%1</h3><ol>").arg(tr("Try this"));
    for (const QString &s : lesson.trySteps) html += QStringLiteral("<li style=\"margin-bottom:4px\">%1</li>").arg(s.toHtmlEscaped());
    html += QStringLiteral("</ol>");
    if (!lesson.expectations.isEmpty()) {
        html += QStringLiteral("<h3>%1</h3><ul>").arg(tr("What you should see"));
        for (const QString &s : lesson.expectations)
            html += QStringLiteral("<li style=\"margin-bottom:4px\">%1</li>").arg(s.toHtmlEscaped());
        html += QStringLiteral("</ul>");
    }
    m_body->setHtml(html);
    m_error->hide();
    m_reset->setEnabled(true);
    show();
    raise();
}

bool LessonPanel::openLesson(const QString &id)
{
    for (const Lesson &l : m_lessons) {
        if (l.id != id) continue;
        showLesson(l);
        const bool ok = applySetup();
        emit lessonOpened(id);
        return ok;
    }
    m_error->setText(tr("There is no lesson '%1'.").arg(id));
    m_error->show();
    show();
    return false;
}

bool LessonPanel::applySetup()
{
    if (!m_open) return true;
    QString error;
    if (m_open(m_current.session(), &error)) {
        m_error->hide();
        return true;
    }
    m_error->setText(tr("The lesson's setup could not be opened: %1").arg(error));
    m_error->show();
    return false;
}

QString LessonPanel::bodyText() const
{
    return m_body->toPlainText();
}

QString LessonPanel::errorText() const
{
    return m_error->isHidden() ? QString() : m_error->text();
}

namespace {

QString lessonsTr(const char *s, const char *c = nullptr, int n = -1)
{
    return QCoreApplication::translate("attnui::Lessons", s, c, n);
}

} // namespace

QMenu *createLessonsMenu(QMainWindow *window, LessonOpener open)
{
    auto *menu = new QMenu(lessonsTr("&Lessons"), window);
    QStringList errors;
    const QList<Lesson> lessons = loadLessons(QStringLiteral(":/lessons"), &errors);
    auto *panel = new LessonPanel(window);
    panel->setLessons(lessons);
    panel->setOpener(std::move(open));
    window->addDockWidget(Qt::RightDockWidgetArea, panel);
    panel->hide();
    for (const Lesson &l : lessons) {
        menu->addAction(l.title, panel, [panel, id = l.id] { panel->openLesson(id); })
            ->setToolTip(lessonsTr("%1 workspace · %2").arg(l.workspace, l.model));
    }
    if (!errors.isEmpty()) {
        menu->addSeparator();
        QAction *bad = menu->addAction(lessonsTr("%n lesson file(s) could not be read", nullptr, int(errors.size())));
        bad->setEnabled(false);
        bad->setToolTip(errors.join(QLatin1Char('\n')));
    }
    menu->addSeparator();
    menu->addAction(panel->toggleViewAction());
    return menu;
}

} // namespace attnui
