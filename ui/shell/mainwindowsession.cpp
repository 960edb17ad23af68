// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow's sessions (*.attnscope.json) and lessons: what the window holds as a Session, and applying one.
// Applying checks everything it can before it changes anything (the file's fields in session.cpp, then the
// workspace names here); a workspace that rejects its state is put back with its previous state, so a bad
// session leaves the window as it was.

#include "shell/mainwindow.h"
#include "lessons/lessons.h"

#include "session/session.h"
#include "kit/subject.h"
#include "workspaces/explore/exploreview.h"
#include "workspaces/vision/visionrun.h"
#include "kit/workspace.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>

namespace attnui {

namespace {

constexpr int kMaxRecentSessions = 8;

bool fail(QString *error, const QString &message)
{
    if (error) *error = message;
    return false;
}

} // namespace

Session MainWindow::currentSession() const
{
    Session s;
    s.model = m_explore->isRawExperiment() ? QString() : m_subject->modelSpec();
    s.text = m_explore->text();
    s.backend = QString::fromStdString(attn::backendName(m_subject->backend()));
    s.colorMap = colorMapName(m_colorMap).toLower();
    s.theme = themeName(m_theme).toLower();
    s.currentWorkspace = currentWorkspace() ? workspaceKey(currentWorkspace()) : QString();
    for (const Workspace *w : m_workspaces) {
        const QJsonObject state = w->sessionState();
        if (!state.isEmpty()) s.workspaces.insert(workspaceKey(w), state);
    }
    return s;
}

bool MainWindow::applySession(const Session &session, QString *error)
{
    if (!session.currentWorkspace.isEmpty() && !findWorkspace(session.currentWorkspace))
        return fail(error, tr("current_workspace: there is no workspace '%1'").arg(session.currentWorkspace));
    for (auto it = session.workspaces.begin(); it != session.workspaces.end(); ++it)
        if (!findWorkspace(it.key())) return fail(error, tr("workspaces.%1: there is no such workspace").arg(it.key()));
    const auto backend = attn::parseBackend(session.backend.toStdString());
    if (!backend) return fail(error, tr("settings.backend: unknown backend '%1'").arg(session.backend));

    // Workspace states first; on a rejection, those already applied get their previous state back.
    QList<QPair<Workspace *, QJsonObject>> applied;
    for (auto it = session.workspaces.begin(); it != session.workspaces.end(); ++it) {
        Workspace *w = findWorkspace(it.key());
        const QJsonObject before = w->sessionState();
        QString why;
        if (!w->restoreSessionState(it.value().toObject(), &why)) {
            for (const auto &[done, state] : applied) done->restoreSessionState(state, nullptr);
            return fail(error, tr("workspaces.%1.%2").arg(it.key(), why));
        }
        applied.append({w, before});
    }

    setBackend(*backend);   // CUDA falls back to Auto where this machine has none
    setColorMap(colorMapFromName(session.colorMap));
    setTheme(themeFromName(session.theme));
    if (session.model.isEmpty()) {
        if (!m_explore->isRawExperiment()) m_explore->useRawExperiment();
        m_explore->setText(session.text);
    } else if (session.model != m_subject->modelSpec() || m_explore->isRawExperiment()) {
        m_explore->openModel(session.model, session.text);   // off the UI thread; a failure shows in Explore
    } else if (session.text != m_explore->text()) {
        m_explore->setText(session.text);
    }
    if (!session.currentWorkspace.isEmpty()) showWorkspace(session.currentWorkspace);
    return true;
}

bool MainWindow::saveSessionFile(const QString &path, QString *error)
{
    if (!saveSession(currentSession(), path, error)) return false;
    m_sessionPath = path;
    addRecentSession(path);
    return true;
}

bool MainWindow::openSessionFile(const QString &path, QString *error)
{
    const std::optional<Session> session = loadSession(path, error);
    if (!session) return false;
    QString why;
    if (!applySession(*session, &why)) return fail(error, QStringLiteral("%1: %2").arg(path, why));
    m_sessionPath = path;
    addRecentSession(QFileInfo(path).absoluteFilePath());
    statusBar()->showMessage(tr("Opened session %1").arg(QDir::toNativeSeparators(path)), 5000);
    return true;
}

bool MainWindow::openStartupSession(const QString &path)
{
    QString error;
    if (openSessionFile(path, &error)) return true;
    qWarning("%s", qPrintable(error));
    if (Workspace *w = currentWorkspace())
        w->showNotice(tr("The session was not opened: %1").arg(error));   // the message starts with the file
    return false;
}

bool MainWindow::openLessonState(const QJsonObject &object, QString *error)
{
    if (object.contains(QStringLiteral("format"))) {
        const std::optional<Session> session = Session::fromJson(object, error);
        return session && applySession(*session, error);
    }
    // The lesson form: {model, text, workspace, state}; an empty text keeps the model's first example.
    Session s = currentSession();
    s.workspaces = {};
    const QString model = object.value(QStringLiteral("model")).toString();
    const QString text = object.value(QStringLiteral("text")).toString();
    const QString workspace = object.value(QStringLiteral("workspace")).toString();
    Workspace *w = workspace.isEmpty() ? m_explore : findWorkspace(workspace);
    if (!w) return fail(error, tr("workspace: there is no workspace '%1'").arg(workspace));
    s.currentWorkspace = workspaceKey(w);
    if (w->opensEncoderDecoderModels()) {
        // Its own model and source: Explore's model and text stay.
        s.workspaces.insert(s.currentWorkspace, encoderDecoderLessonState(object.value(QStringLiteral("state")).toObject(),
                                                                          model, text));
        return applySession(s, error);
    }
    if (w->opensVisionModels()) {
        // Its own ViT and image (in the state, relative to the model's folder).
        s.workspaces.insert(s.currentWorkspace, visionLessonState(object.value(QStringLiteral("state")).toObject(), model));
        return applySession(s, error);
    }
    if (object.contains(QStringLiteral("state")))
        s.workspaces.insert(s.currentWorkspace, object.value(QStringLiteral("state")).toObject());
    if (!model.isEmpty() && text.isEmpty()) {
        // Model and text as they are for now; the model then opens on its first example.
        if (!applySession(s, error)) return false;
        if (model != m_subject->modelSpec()) m_explore->openModel(model);
        return true;
    }
    if (!model.isEmpty()) s.model = model;
    s.text = text;
    return applySession(s, error);
}

QStringList MainWindow::recentSessions()
{
    return QSettings().value(QStringLiteral("sessions/recent")).toStringList();
}

void MainWindow::addRecentSession(const QString &path)
{
    QStringList recent = recentSessions();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecentSessions) recent.removeLast();
    QSettings().setValue(QStringLiteral("sessions/recent"), recent);
    rebuildRecentSessionsMenu();
}

void MainWindow::rebuildRecentSessionsMenu()
{
    m_recentSessionsMenu->clear();
    const QStringList recent = recentSessions();
    for (const QString &path : recent) {
        QAction *a = m_recentSessionsMenu->addAction(QFileInfo(path).fileName(), this, [this, path] {
            QString error;
            if (!openSessionFile(path, &error)) QMessageBox::warning(this, tr("Open Session"), error);
        });
        a->setToolTip(QDir::toNativeSeparators(path));
    }
    m_recentSessionsMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::openSessionDialog()
{
    const QString dir = m_sessionPath.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
                                                : QFileInfo(m_sessionPath).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Session"), dir,
                                                      tr("AttnScope sessions (*.attnscope.json);;JSON (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!openSessionFile(path, &error))
        QMessageBox::warning(this, tr("Open Session"), tr("The session was not opened; nothing changed.\n\n%1").arg(error));
}

void MainWindow::saveSessionDialog(bool askForName)
{
    QString path = m_sessionPath;
    if (askForName || path.isEmpty()) {
        const QString dir = path.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
                                           : QFileInfo(path).absolutePath();
        path = QFileDialog::getSaveFileName(this, tr("Save Session"), dir + QStringLiteral("/session") + Session::kSuffix,
                                            tr("AttnScope sessions (*.attnscope.json)"));
        if (path.isEmpty()) return;
        if (!path.endsWith(Session::kSuffix)) path += Session::kSuffix;
    }
    QString error;
    if (!saveSessionFile(path, &error)) {
        QMessageBox::warning(this, tr("Save Session"), tr("The session was not saved: %1").arg(error));
        return;
    }
    statusBar()->showMessage(tr("Saved session %1").arg(QDir::toNativeSeparators(path)), 5000);
}

} // namespace attnui
