// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The application shell: workspaces as tabs, menus, the status bar (backend, last run time, peak memory,
// progress with Cancel, following the current workspace's runner), settings. It owns the Subject (model and
// text) that all workspaces share.

#include "plots/colormaps.h"
#include "theme.h"

#include <QList>
#include <QMainWindow>

class QAction;
class QActionGroup;
class QLabel;
class QProgressBar;
class QTabWidget;
class QTimer;
class QToolButton;

namespace attnui {

class EngineRunner;
class ExploreView;
class Subject;
class Workspace;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    EngineRunner *runner() const;            // Explore's runner (benchmarks, tests)
    Subject *subject() const { return m_subject; }
    ExploreView *explore() const { return m_explore; }
    Workspace *currentWorkspace() const;
    ColorMap colorMap() const { return m_colorMap; }
    void setColorMap(ColorMap map);
    Theme theme() const { return m_theme; }
    void setTheme(Theme theme);
    // Writes the current workspace's figure; the format follows the suffix (png, svg, pdf).
    bool exportFigure(const QString &path, QString *error = nullptr);
    QString statusText() const;
    // Opens a model folder or spec in Explore (File ▸ Open Model Folder, drag-and-drop of a folder).
    void openModel(const QString &spec);   // backend · last run · peak memory, as shown in the status bar

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createMenus();
    void createStatusBar();
    void addWorkspace(Workspace *workspace);
    void readSettings();
    void writeSettings() const;
    void exportFigureDialog();
    void about();
    void onRunStarted();
    void onRunDone();
    void onWorkspaceChanged();

    Subject *m_subject = nullptr;
    QTabWidget *m_tabs = nullptr;
    QList<Workspace *> m_workspaces;
    ExploreView *m_explore = nullptr;
    ColorMap m_colorMap = ColorMap::Viridis;
    Theme m_theme = Theme::Light;

    QActionGroup *m_colorMapGroup = nullptr;
    QActionGroup *m_themeGroup = nullptr;
    QAction *m_cancelAction = nullptr;
    QLabel *m_backendLabel = nullptr;
    QLabel *m_timeLabel = nullptr;
    QLabel *m_memoryLabel = nullptr;
    QProgressBar *m_progress = nullptr;
    QToolButton *m_cancelButton = nullptr;
    QTimer *m_progressDelay = nullptr;
};

} // namespace attnui
