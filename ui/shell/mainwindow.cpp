// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/mainwindow.h"
#include "kit/fontscale.h"

#include "shell/buildinfo.h"
#include "shell/helpmenu.h"
#include "export/figureexport.h"
#include "kit/figureactions.h"
#include "lessons/lessons.h"
#include "plots/heatmapplot.h"
#include "plots/vectorpaint.h"
#include "runner/enginerunner.h"
#include "kit/subject.h"
#include "workspaces/explore/exploreview.h"
#include "kit/workspace.h"
#include "kit/workspaces.h"

#include <attnscope/seq2seqrun.h>
#include <attnscope/textmodel.h>
#include <attnscope/vit.h>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QContextMenuEvent>
#include <QDateTime>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QFileDialog>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>

#include <sys/resource.h>

namespace attnui {

namespace {

constexpr int kProgressDelayMs = 300;   // quick runs never flash a progress bar

QString peakMemoryText()
{
    rusage usage{};
    if (getrusage(RUSAGE_SELF, &usage) != 0) return QObject::tr("peak memory: unknown");
    return QObject::tr("peak memory %1 MiB").arg(double(usage.ru_maxrss) / 1024.0, 0, 'f', 0);   // Linux: KiB
}

} // namespace

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(tr("AttnScope"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/attnscope.svg")));
    setAcceptDrops(true);
    m_subject = new Subject(this);
    m_normalFont = QApplication::font();

    m_tabs = new QTabWidget;
    m_tabs->setDocumentMode(true);
    setCentralWidget(m_tabs);
    createMenus();
    createStatusBar();
    for (Workspace *w : createWorkspaces(m_subject)) addWorkspace(w);
    m_explore = qobject_cast<ExploreView *>(m_workspaces.value(0));
    Q_ASSERT(m_explore);
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::onWorkspaceChanged);
    showRunStatus();
    connect(m_subject, &Subject::backendChanged, this, [this] {
        for (QAction *a : m_backendGroup->actions()) a->setChecked(a->data().toInt() == int(m_subject->backend()));
    });
    m_toast = new QLabel(this);
    m_toast->setStyleSheet(QStringLiteral("QLabel { background: rgba(20, 20, 20, 200); color: white; padding: 8px 14px;"
                                          " border-radius: 6px; }"));
    m_toast->hide();
    readSettings();
}

MainWindow::~MainWindow() = default;

void MainWindow::openModel(const QString &spec)
{
    // An encoder–decoder or a Vision Transformer folder is no text model: the workspace that opens such models
    // takes it.
    const auto folder = attn::resolveModelSpec(spec.toStdString());
    if (attn::isSeq2SeqSpec(spec.toStdString()) &&
        openInWorkspace(&Workspace::opensEncoderDecoderModels, QJsonObject{{QStringLiteral("model"), spec}}))
        return;
    if (folder && attn::isVitFolder(*folder) &&
        openInWorkspace(&Workspace::opensVisionModels, QJsonObject{{QStringLiteral("model"), spec}}))
        return;
    m_tabs->setCurrentWidget(m_explore);
    m_explore->openModel(spec);
}

void MainWindow::openImage(const QString &path)
{
    openInWorkspace(&Workspace::opensVisionModels, QJsonObject{{QStringLiteral("image"), path}, {QStringLiteral("query"), 0}});
}

bool MainWindow::openInWorkspace(bool (Workspace::*opens)() const, const QJsonObject &state)
{
    for (Workspace *w : m_workspaces)
        if ((w->*opens)()) {
            m_tabs->setCurrentWidget(w);
            QString error;
            if (!w->restoreSessionState(state, &error)) w->showNotice(error);
            return true;
        }
    return false;
}

namespace {

bool isSessionFile(const QString &path)
{
    return path.endsWith(QStringLiteral(".attnscope.json"), Qt::CaseInsensitive) && QFileInfo(path).isFile();
}

// An image for the Vision workspace: a file whose name Qt's image readers know.
bool isImageFile(const QString &path)
{
    static const QStringList suffixes{QStringLiteral("png"), QStringLiteral("jpg"), QStringLiteral("jpeg"),
                                      QStringLiteral("bmp"), QStringLiteral("gif"), QStringLiteral("ppm"),
                                      QStringLiteral("pgm"), QStringLiteral("webp")};
    const QFileInfo info(path);
    return info.isFile() && suffixes.contains(info.suffix().toLower());
}

} // namespace

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    // One local directory (a model folder), one session file or one image (for the Vision workspace).
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() != 1 || !urls.first().isLocalFile()) return;
    const QString path = urls.first().toLocalFile();
    if (QFileInfo(path).isDir() || isSessionFile(path) || isImageFile(path)) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty()) return;
    const QString path = urls.first().toLocalFile();
    event->acceptProposedAction();
    if (isSessionFile(path)) {
        QString error;
        if (!openSessionFile(path, &error)) QMessageBox::warning(this, tr("Open Session"), error);
        return;
    }
    if (isImageFile(path)) {
        openImage(path);
        return;
    }
    openModel(path);
}

void MainWindow::addWorkspace(Workspace *workspace)
{
    m_workspaces.append(workspace);
    m_tabs->addTab(workspace, workspace->title());
    // View ▸ Go to Workspace: Ctrl+1 … Ctrl+9 in tab order, also in presentation mode (a window action).
    const int number = int(m_workspaces.size());
    QAction *go = m_workspaceMenu->addAction(tr("&%1 %2").arg(number).arg(workspace->title()), this,
                                             [this, workspace] { m_tabs->setCurrentWidget(workspace); });
    if (number <= 9) go->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_0 + number)));
    go->setProperty(kHelpTextProperty, tr("Go to the %1 workspace").arg(workspace->title()));
    addAction(go);
    workspace->setColorMap(m_colorMap);
    workspace->setColorScale(m_colorScale);
    // Its plots' right-click menu (Export Figure…, Copy Image, Export Data…) reports here.
    connect(workspace, &Workspace::statusMessage, this, &MainWindow::showTransientMessage);
    // Every workspace has its own runner; the status bar follows the one in the current tab.
    EngineRunner *runner = workspace->runner();
    const auto isCurrent = [this, workspace] { return currentWorkspace() == workspace; };
    connect(runner, &EngineRunner::started, this, [this, isCurrent] { if (isCurrent()) onRunStarted(); });
    connect(runner, &EngineRunner::idle, this, [this, isCurrent] { if (isCurrent()) onRunDone(); });
    connect(runner, &EngineRunner::progress, this, [this, isCurrent](double f) {
        if (isCurrent()) m_progress->setValue(int(f * 1000));
    });
    connect(runner, &EngineRunner::finished, this, [this, workspace, isCurrent](const SnapshotPtr &s) {
        if (!s) return;
        m_lastRun.insert(workspace, {QString::fromStdString(s->backend), s->elapsedMs});
        if (isCurrent()) showRunStatus();
    });
    // Failures are shown once, in the workspace's banner, next to what failed.
    connect(runner, &EngineRunner::cancelled, this,
            [this] { statusBar()->showMessage(tr("Cancelled; the last result is still shown"), 5000); });
}

EngineRunner *MainWindow::runner() const
{
    return m_explore->runner();
}

void MainWindow::onWorkspaceChanged()
{
    Workspace *w = currentWorkspace();
    if (w && w->runner()->isBusy()) onRunStarted();
    else onRunDone();
    showRunStatus();
}

void MainWindow::showRunStatus()
{
    const auto it = m_lastRun.constFind(currentWorkspace());
    if (it == m_lastRun.cend()) {
        m_backendLabel->setText(tr("backend: not run yet"));
        m_timeLabel->setText(tr("no run yet"));
    } else {
        // A run that used no attention kernel of its own (none do today) still says so rather than "backend: ".
        m_backendLabel->setText(tr("backend: %1").arg(it->backend.isEmpty() ? tr("none") : it->backend));
        m_timeLabel->setText(tr("last run %1 ms").arg(it->elapsedMs, 0, 'f', it->elapsedMs < 10 ? 2 : 0));
    }
    m_memoryLabel->setText(peakMemoryText());
}

Workspace *MainWindow::currentWorkspace() const
{
    return qobject_cast<Workspace *>(m_tabs->currentWidget());
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(tr("&Open Model Folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Model Folder"),
                                                              ExploreView::recentModels().value(0, QDir::homePath()));
        if (!dir.isEmpty()) openModel(dir);
    });
    open->setShortcut(QKeySequence::Open);
    open->setToolTip(tr("Open a Hugging Face checkpoint folder (config.json, model.safetensors, tokenizer files)"));
    file->addSeparator();
    QAction *openSession = file->addAction(tr("Open &Session…"), this, &MainWindow::openSessionDialog);
    openSession->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_recentSessionsMenu = file->addMenu(tr("&Recent Sessions"));
    rebuildRecentSessionsMenu();
    QAction *save = file->addAction(tr("Save Sessio&n"), this, [this] { saveSessionDialog(false); });
    save->setShortcut(QKeySequence::Save);
    save->setToolTip(tr("Save model, text, settings and every workspace's view as a *.attnscope.json file"));
    QAction *saveAs = file->addAction(tr("Save Session &As…"), this, [this] { saveSessionDialog(true); });
    saveAs->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    file->addSeparator();
    QAction *exportFig = file->addAction(tr("&Export Figure…"), this, [this] {
        showTransientMessage(exportFigureDialog(currentWorkspace(), this));
    });
    exportFig->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    file->addAction(tr("&Copy Figure Image"), this, [this] { showTransientMessage(copyFigureImage(currentWorkspace())); });
    file->addAction(tr("Export &Data…"), this, [this] { showTransientMessage(exportDataDialog(currentWorkspace(), this)); });
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    QAction *run = view->addAction(tr("&Run Again"), this, [this] {
        if (Workspace *w = currentWorkspace()) w->rerun();
    });
    run->setShortcut(QKeySequence::Refresh);
    m_cancelAction = view->addAction(tr("&Cancel Run"), this, [this] {
        if (Workspace *w = currentWorkspace()) w->runner()->cancel();
    });
    m_cancelAction->setShortcut(Qt::Key_Escape);
    m_cancelAction->setEnabled(false);
    view->addSeparator();
    QMenu *maps = view->addMenu(tr("Colour &Map"));
    m_colorMapGroup = new QActionGroup(this);
    for (ColorMap m : {ColorMap::Viridis, ColorMap::Cividis}) {
        QAction *a = maps->addAction(colorMapName(m));
        a->setCheckable(true);
        a->setData(int(m));
        m_colorMapGroup->addAction(a);
        connect(a, &QAction::triggered, this, [this, m] { setColorMap(m); });
    }
    // How weights become colours, for every weight heatmap; the contrast steps walk the percentile clips.
    QMenu *scales = view->addMenu(tr("Colour &Scale"));
    m_colorScaleGroup = new QActionGroup(this);
    for (const ColorScale &c : {ColorScale{}, ColorScale{ScaleMode::Auto}, ColorScale{ScaleMode::Percentile, 99.0},
                                ColorScale{ScaleMode::Percentile, 95.0}, ColorScale{ScaleMode::Percentile, 90.0},
                                ColorScale{ScaleMode::Log}, ColorScale{ScaleMode::Row}}) {
        QAction *a = scales->addAction(c.title());
        a->setCheckable(true);
        a->setData(c.spec());
        m_colorScaleGroup->addAction(a);
        connect(a, &QAction::triggered, this, [this, c] { setColorScale(c); });
        a->setStatusTip(tr("Colour every attention heatmap by this scale; the colour bars say which"));
    }
    scales->addSeparator();
    QAction *more = scales->addAction(tr("&More Contrast"), this, [this] { stepContrast(+1); });
    more->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_BracketRight));
    more->setStatusTip(tr("Clip the colour scale at a lower percentile: faint weights get brighter"));
    QAction *less = scales->addAction(tr("&Less Contrast"), this, [this] { stepContrast(-1); });
    less->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_BracketLeft));
    addAction(more);   // also in presentation mode, without the menu bar
    addAction(less);
    QMenu *themes = view->addMenu(tr("&Palette"));
    m_themeGroup = new QActionGroup(this);
    for (Theme t : {Theme::Light, Theme::Dark}) {
        QAction *a = themes->addAction(t == Theme::Light ? tr("&Light") : tr("&Dark"));
        a->setCheckable(true);
        a->setData(int(t));
        m_themeGroup->addAction(a);
        connect(a, &QAction::triggered, this, [this, t] { setTheme(t); });
    }
    createBackendMenu(view);
    m_workspaceMenu = view->addMenu(tr("&Go to Workspace"));
    view->addSeparator();
    m_presentationAction = view->addAction(tr("&Presentation Mode"), this, &MainWindow::setPresentationMode);
    m_presentationAction->setCheckable(true);
    m_presentationAction->setShortcuts({QKeySequence(Qt::Key_F11), QKeySequence(Qt::CTRL | Qt::Key_P)});
    m_presentationAction->setStatusTip(tr("Large type, thick lines, no menus or panels; Esc leaves, E saves the figure"));
    view->addAction(tr("Presentation &Export Folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Presentation Export Folder"), presentationFolder());
        if (!dir.isEmpty()) setPresentationFolder(dir);
    });
    QAction *full = view->addAction(tr("&Full Screen"), this, [this](bool on) {
        on ? showFullScreen() : showNormal();
    });
    full->setCheckable(true);
    full->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
    // Window-level actions: they work while the menu bar is hidden (presentation mode).
    addAction(m_presentationAction);
    m_leavePresentationAction = new QAction(tr("Leave Presentation Mode"), this);
    m_leavePresentationAction->setShortcut(Qt::Key_Escape);
    m_leavePresentationAction->setEnabled(false);
    m_leavePresentationAction->setProperty(kHelpTextProperty, tr("Presentation mode: leave it"));
    connect(m_leavePresentationAction, &QAction::triggered, this, [this] { setPresentationMode(false); });
    addAction(m_leavePresentationAction);
    m_presentationExportAction = new QAction(tr("Save Figure to the Presentation Folder"), this);
    m_presentationExportAction->setShortcut(Qt::Key_E);   // text boxes keep their E (ShortcutOverride)
    m_presentationExportAction->setEnabled(false);
    m_presentationExportAction->setProperty(kHelpTextProperty, tr("Presentation mode: save the figure to the presentation folder"));
    connect(m_presentationExportAction, &QAction::triggered, this, [this] {
        QString error;
        const QString path = exportPresentationFigure(&error);
        showTransientMessage(path.isEmpty() ? tr("Not saved: %1").arg(error)
                                            : tr("Saved %1").arg(QDir::toNativeSeparators(path)));
    });
    addAction(m_presentationExportAction);

    // ── Lessons menu: the Pipeline/lessons workspace adds its menuBar()->addMenu(...) line here. ──
    menuBar()->addMenu(createLessonsMenu(this, [this](const QJsonObject &lesson, QString *e) { return openLessonState(lesson, e); }));

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    addHelpPages(help, this, [this] { return currentWorkspace(); });
    help->addAction(tr("&About AttnScope"), this, &MainWindow::about);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::createBackendMenu(QMenu *view)
{
    // The engine's backends the GUI offers; CUDA greyed out with the reason where it cannot run.
    QMenu *menu = view->addMenu(tr("&Backend"));
    menu->setToolTipsVisible(true);
    m_backendGroup = new QActionGroup(this);
    const QList<QPair<attn::Backend, QString>> backends{
        {attn::Backend::Auto, tr("&Auto")},
        {attn::Backend::Reference, tr("&Reference (fp64 oracle)")},
        {attn::Backend::Tiled, tr("&Tiled (CPU)")},
        {attn::Backend::Cuda, tr("&CUDA")}};
    for (const auto &[backend, label] : backends) {
        QAction *a = menu->addAction(label);
        a->setCheckable(true);
        a->setData(int(backend));
        m_backendGroup->addAction(a);
        if (backend == attn::Backend::Cuda && !attn::cudaAvailable()) {
            const QString reason = QString::fromStdString(attn::cudaUnavailableReason());
            a->setText(tr("CUDA (unavailable: %1)").arg(reason));
            a->setToolTip(tr("CUDA is unavailable: %1").arg(reason));
            a->setStatusTip(a->toolTip());
            a->setEnabled(false);
        }
        connect(a, &QAction::triggered, this, [this, backend] { setBackend(backend); });
    }
}

void MainWindow::createStatusBar()
{
    m_backendLabel = new QLabel;
    m_timeLabel = new QLabel;
    m_memoryLabel = new QLabel(peakMemoryText());
    m_progress = new QProgressBar;
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(180);
    m_progress->setTextVisible(false);
    m_cancelButton = new QToolButton;
    m_cancelButton->setDefaultAction(m_cancelAction);
    m_cancelButton->setText(tr("Cancel"));
    m_cancelButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_progress->hide();
    m_cancelButton->hide();
    for (QLabel *label : {m_backendLabel, m_timeLabel, m_memoryLabel}) label->setContentsMargins(10, 0, 10, 0);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancelButton);
    statusBar()->addPermanentWidget(m_backendLabel);
    statusBar()->addPermanentWidget(m_timeLabel);
    statusBar()->addPermanentWidget(m_memoryLabel);
    m_progressDelay = new QTimer(this);
    m_progressDelay->setSingleShot(true);
    m_progressDelay->setInterval(kProgressDelayMs);
    connect(m_progressDelay, &QTimer::timeout, this, [this] {
        m_progress->show();
        m_cancelButton->show();
    });
}

QString MainWindow::statusText() const
{
    return QStringList{m_backendLabel->text(), m_timeLabel->text(), m_memoryLabel->text()}.join(QStringLiteral(" · "));
}

void MainWindow::onRunStarted()
{
    m_cancelAction->setEnabled(true);
    m_progress->setValue(0);
    if (!m_progress->isVisible()) m_progressDelay->start();
}

void MainWindow::onRunDone()
{
    m_cancelAction->setEnabled(false);
    m_progressDelay->stop();
    m_progress->hide();
    m_cancelButton->hide();
}

void MainWindow::setColorScale(ColorScale scale)
{
    m_colorScale = scale;
    for (Workspace *w : m_workspaces) w->setColorScale(scale);
    for (QAction *a : m_colorScaleGroup->actions()) a->setChecked(a->data().toString() == scale.spec());
}

void MainWindow::stepContrast(int direction)
{
    const std::vector<ColorScale> steps = contrastSteps();
    // From a scale that is not a step (log, per row, data range), more contrast starts at the first clip.
    int at = -1;
    for (int i = 0; i < int(steps.size()); ++i)
        if (steps[std::size_t(i)] == m_colorScale) at = i;
    const int next = std::clamp(at < 0 ? (direction > 0 ? 1 : 0) : at + direction, 0, int(steps.size()) - 1);
    setColorScale(steps[std::size_t(next)]);
    showTransientMessage(tr("Colour scale: %1").arg(m_colorScale.title()));
}

void MainWindow::setColorMap(ColorMap map)
{
    m_colorMap = map;
    for (Workspace *w : m_workspaces) w->setColorMap(map);
    for (QAction *a : m_colorMapGroup->actions()) a->setChecked(a->data().toInt() == int(map));
}

void MainWindow::setTheme(Theme theme)
{
    m_theme = theme;
    applyTheme(theme);
    // QApplication::setStyle gives the application its style's font again: keep presentation mode's large type
    // (a session opened in presentation mode sets its theme).
    if (m_presentation) setApplicationFont(presentationFont());
    for (QAction *a : m_themeGroup->actions()) a->setChecked(a->data().toInt() == int(theme));
}

bool MainWindow::exportFigure(const QString &path, QString *error)
{
    return exportWorkspaceFigure(currentWorkspace(), path, error);
}

attn::Backend MainWindow::backend() const
{
    return m_subject->backend();
}

void MainWindow::setBackend(attn::Backend backend)
{
    if (backend == attn::Backend::Cuda && !attn::cudaAvailable()) backend = attn::Backend::Auto;
    m_subject->setBackend(backend);
    for (QAction *a : m_backendGroup->actions()) a->setChecked(a->data().toInt() == int(backend));
}

Workspace *MainWindow::findWorkspace(const QString &keyOrTitle) const
{
    for (Workspace *w : m_workspaces)
        if (workspaceKey(w) == keyOrTitle || w->title() == keyOrTitle) return w;
    return nullptr;
}

QString MainWindow::workspaceKey(const Workspace *workspace)
{
    return workspace->objectName().isEmpty() ? workspace->title().toLower() : workspace->objectName();
}

bool MainWindow::showWorkspace(const QString &keyOrTitle)
{
    Workspace *w = findWorkspace(keyOrTitle);
    if (w) m_tabs->setCurrentWidget(w);
    return w != nullptr;
}

void MainWindow::setPresentationMode(bool on)
{
    if (on == m_presentation) return;
    m_presentation = on;
    m_presentationAction->setChecked(on);
    // Esc leaves presentation mode there; elsewhere it cancels a run.
    m_cancelAction->setShortcut(on ? QKeySequence() : QKeySequence(Qt::Key_Escape));
    m_leavePresentationAction->setEnabled(on);
    m_presentationExportAction->setEnabled(on);
    menuBar()->setVisible(!on);
    statusBar()->setVisible(!on);
    // The workspaces stay one click (or Ctrl+1 … Ctrl+9) away: the tab bar keeps the normal type, a compact bar.
    m_tabs->tabBar()->setFont(on ? m_normalFont : QFont());
    // Large type for every widget (the plots follow their font) and thick plot lines.
    setPresentationStyle(on);
    setApplicationFont(on ? presentationFont() : m_normalFont);   // titles, formulas and tables keep their ratio to it (kit/fontscale.h)
    if (on) {
        m_wasFullScreen = isFullScreen();
        showFullScreen();
    } else if (!m_wasFullScreen) {
        showNormal();
    }
}

QFont MainWindow::presentationFont() const
{
    QFont font = m_normalFont;
    font.setPointSizeF(std::max(14.0, m_normalFont.pointSizeF() * 1.6));
    return font;
}

QString MainWindow::presentationFolder() const
{
    const QString fallback = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation) +
                             QStringLiteral("/AttnScope");
    return QSettings().value(QStringLiteral("presentation/folder"), fallback).toString();
}

void MainWindow::setPresentationFolder(const QString &folder)
{
    QSettings().setValue(QStringLiteral("presentation/folder"), folder);
}

QString MainWindow::exportPresentationFigure(QString *error)
{
    const QString dir = presentationFolder();
    if (!QDir().mkpath(dir)) {
        if (error) *error = tr("cannot create the folder %1").arg(dir);
        return {};
    }
    const QString name = QStringLiteral("attnscope-%1-%2.png")
                             .arg(currentWorkspace() ? workspaceKey(currentWorkspace()) : QStringLiteral("figure"),
                                  QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz")));
    const QString path = QDir(dir).filePath(name);
    // The figure as File ▸ Export Figure writes it, in the normal type: its publication layout, not the screen's
    // large type. The type is put back before the next paint.
    if (m_presentation) setApplicationFont(m_normalFont);
    const bool ok = exportFigure(path, error);
    if (m_presentation) setApplicationFont(presentationFont());
    return ok ? path : QString();
}

void MainWindow::showTransientMessage(const QString &text)
{
    if (text.isEmpty()) return;   // a dialog was cancelled
    if (statusBar()->isVisible()) {
        statusBar()->showMessage(text, 5000);
        return;
    }
    m_toast->setText(text);
    m_toast->adjustSize();
    m_toast->move((width() - m_toast->width()) / 2, height() - m_toast->height() - 40);
    m_toast->raise();
    m_toast->show();
    QTimer::singleShot(3000, m_toast, &QWidget::hide);
}

void MainWindow::about()
{
    QMessageBox box(this);
    box.setWindowTitle(tr("About AttnScope"));
    box.setIconPixmap(QIcon(QStringLiteral(":/icons/attnscope.svg")).pixmap(64, 64));
    box.setTextFormat(Qt::RichText);
    box.setText(buildInfoHtml());
    box.exec();
}

void MainWindow::readSettings()
{
    QSettings settings;
    // The first start opens at 1600×1000, or the screen's free area where that is smaller (a 1280×720 laptop).
    // restoreGeometry() itself moves a saved window back onto a screen that has become smaller.
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray())) {
        QSize size(1600, 1000);
        if (const QScreen *s = screen()) size = size.boundedTo(s->availableGeometry().size());
        resize(size);
    }
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    setColorMap(colorMapFromName(settings.value(QStringLiteral("view/colorMap")).toString()));
    setColorScale(ColorScale::parse(settings.value(QStringLiteral("view/colorScale")).toString()).value_or(ColorScale{}));
    setTheme(themeFromName(settings.value(QStringLiteral("view/theme")).toString()));
    setBackend(attn::parseBackend(settings.value(QStringLiteral("view/backend")).toString().toStdString())
                   .value_or(attn::Backend::Auto));
    for (Workspace *w : m_workspaces) {
        settings.beginGroup(QStringLiteral("workspace/") + w->objectName());
        w->restoreSettings(settings);
        settings.endGroup();
    }
    m_tabs->setCurrentIndex(settings.value(QStringLiteral("window/workspace"), 0).toInt());
}

void MainWindow::writeSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/workspace"), m_tabs->currentIndex());
    settings.setValue(QStringLiteral("view/colorMap"), colorMapName(m_colorMap));
    settings.setValue(QStringLiteral("view/colorScale"), m_colorScale.spec());
    settings.setValue(QStringLiteral("view/theme"), themeName(m_theme));
    settings.setValue(QStringLiteral("view/backend"), QString::fromStdString(attn::backendName(m_subject->backend())));
    for (Workspace *w : m_workspaces) {
        settings.beginGroup(QStringLiteral("workspace/") + w->objectName());
        w->saveSettings(settings);
        settings.endGroup();
    }
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    setPresentationMode(false);   // the saved geometry and font are the normal ones
    for (Workspace *w : m_workspaces) w->runner()->cancel();
    writeSettings();
    event->accept();
}

} // namespace attnui
