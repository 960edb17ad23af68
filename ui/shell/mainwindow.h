// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The application shell: workspaces as tabs, menus, the status bar (backend, last run time, peak memory,
// progress with Cancel, following the current workspace's runner), settings. It owns the Subject (model and
// text) that all workspaces share. Figures go through ui/export/figureexport.h (File ▸ Export Figure, a plot's
// context menu, E in presentation mode); sessions (*.attnscope.json, ui/session/session.h) and lessons are
// applied in mainwindowsession.cpp.

#include "plots/colormaps.h"
#include "plots/colorscale.h"
#include "shell/theme.h"

#include <attnscope/attention.h>

#include <QFont>
#include <QJsonObject>
#include <QList>
#include <QHash>
#include <QMainWindow>

class QAction;
class QActionGroup;
class QLabel;
class QMenu;
class QProgressBar;
class QTabWidget;
class QTimer;
class QToolButton;

namespace attnui {

class EngineRunner;
class ExploreView;
class Subject;
class Workspace;
struct Session;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    EngineRunner *runner() const;            // Explore's runner (benchmarks, tests)
    Subject *subject() const { return m_subject; }
    ExploreView *explore() const { return m_explore; }
    QList<Workspace *> workspaces() const { return m_workspaces; }
    Workspace *currentWorkspace() const;
    // A workspace by its session key (objectName, e.g. "explore") or its title; null when there is none.
    Workspace *findWorkspace(const QString &keyOrTitle) const;
    static QString workspaceKey(const Workspace *workspace);
    bool showWorkspace(const QString &keyOrTitle);
    ColorMap colorMap() const { return m_colorMap; }
    void setColorMap(ColorMap map);
    void setColorScale(ColorScale scale);
    void stepContrast(int direction);   // +1: View ▸ More Contrast, −1: Less
    Theme theme() const { return m_theme; }
    void setTheme(Theme theme);
    attn::Backend backend() const;
    void setBackend(attn::Backend backend);   // View ▸ Backend; CUDA only where it is available
    // Writes the current workspace's figure (figureWidget() and its caption); the format follows the suffix.
    bool exportFigure(const QString &path, QString *error = nullptr);
    QString statusText() const;              // backend · last run · peak memory, as shown in the status bar
    // Opens a model folder or spec in Explore (File ▸ Open Model Folder, drag-and-drop of a folder); an
    // encoder–decoder or a Vision Transformer folder in the workspace that opens such models.
    void openModel(const QString &spec);
    // An image file (drag-and-drop): the Vision workspace shows it with its current model.
    void openImage(const QString &path);

    // Sessions (mainwindowsession.cpp). A session that fails to apply leaves the window as it was and says why,
    // naming the file and the field.
    Session currentSession() const;
    bool applySession(const Session &session, QString *error = nullptr);
    bool saveSessionFile(const QString &path, QString *error = nullptr);
    bool openSessionFile(const QString &path, QString *error = nullptr);
    // The session named on the command line: when it cannot be opened the window says why (a notice in the
    // workspace shown, not only a line on stderr) and keeps what it has.
    bool openStartupSession(const QString &path);
    QString sessionPath() const { return m_sessionPath; }
    static QStringList recentSessions();
    // Lessons: a session-like object, either a full session or {model, text, workspace, state} (ui/lessons/):
    // switches to the workspace, applies its state, sets model and text. An empty lesson text keeps the model's
    // first example.
    bool openLessonState(const QJsonObject &session, QString *error = nullptr);

    // Presentation mode: large type and thick lines, no menus or status bar, the workspace tabs as a compact bar
    // in the normal type (and Ctrl+1 … Ctrl+9); Esc leaves, E saves the current figure, in its figure layout, as
    // a PNG into presentationFolder() without asking.
    bool isPresentationMode() const { return m_presentation; }
    void setPresentationMode(bool on);
    QString presentationFolder() const;
    QFont presentationFont() const;   // the normal font × 1.6, at least 14 pt
    void setPresentationFolder(const QString &folder);
    QString exportPresentationFigure(QString *error = nullptr);   // the written path; empty on failure

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    // The first workspace that opens such models shows `state` (a model, an image); false when there is none.
    bool openInWorkspace(bool (Workspace::*opens)() const, const QJsonObject &state);
    void createMenus();
    void createBackendMenu(QMenu *view);
    void createStatusBar();
    void addWorkspace(Workspace *workspace);
    void readSettings();
    void writeSettings() const;
    void openSessionDialog();
    void saveSessionDialog(bool askForName);
    void addRecentSession(const QString &path);
    void rebuildRecentSessionsMenu();
    void showTransientMessage(const QString &text);
    void about();
    void onRunStarted();
    void onRunDone();
    void onWorkspaceChanged();
    void showRunStatus();             // the current workspace's last run in the status bar

    Subject *m_subject = nullptr;
    QTabWidget *m_tabs = nullptr;
    QList<Workspace *> m_workspaces;
    QMenu *m_workspaceMenu = nullptr;   // View ▸ Go to Workspace
    ExploreView *m_explore = nullptr;
    ColorMap m_colorMap = ColorMap::Viridis;
    Theme m_theme = Theme::Light;
    QString m_sessionPath;            // the session file last opened or saved; Save writes there
    bool m_presentation = false;
    QFont m_normalFont;               // the application font outside presentation mode
    bool m_wasFullScreen = false;

    QActionGroup *m_colorMapGroup = nullptr;
    QActionGroup *m_colorScaleGroup = nullptr;
    ColorScale m_colorScale;
    QActionGroup *m_themeGroup = nullptr;
    QActionGroup *m_backendGroup = nullptr;
    QAction *m_cancelAction = nullptr;
    QAction *m_presentationAction = nullptr;
    QAction *m_leavePresentationAction = nullptr;
    QAction *m_presentationExportAction = nullptr;
    QMenu *m_recentSessionsMenu = nullptr;
    // The status bar follows the tab shown: each workspace's last run (backend, milliseconds), not the last run of
    // any workspace (Explore keeps running while another tab is shown).
    struct RunStatus {
        QString backend;
        double elapsedMs = 0;
    };
    QHash<const Workspace *, RunStatus> m_lastRun;
    QLabel *m_backendLabel = nullptr;
    QLabel *m_timeLabel = nullptr;
    QLabel *m_memoryLabel = nullptr;
    QLabel *m_toast = nullptr;        // a short message over the window where the status bar is hidden
    QProgressBar *m_progress = nullptr;
    QToolButton *m_cancelButton = nullptr;
    QTimer *m_progressDelay = nullptr;
};

} // namespace attnui
