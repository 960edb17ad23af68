// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

#include "buildinfo.h"
#include "plots/heatmapplot.h"
#include "runner/enginerunner.h"
#include "subject.h"
#include "views/exploreview.h"
#include "workspace.h"
#include "workspaces.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QFileDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
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

    m_tabs = new QTabWidget;
    m_tabs->setDocumentMode(true);
    setCentralWidget(m_tabs);
    createMenus();
    createStatusBar();
    for (Workspace *w : createWorkspaces(m_subject)) addWorkspace(w);
    m_explore = qobject_cast<ExploreView *>(m_workspaces.value(0));
    Q_ASSERT(m_explore);
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::onWorkspaceChanged);
    readSettings();
}

MainWindow::~MainWindow() = default;

void MainWindow::openModel(const QString &spec)
{
    m_tabs->setCurrentWidget(m_explore);
    m_explore->openModel(spec);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    // Only a model folder is accepted: one local directory.
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.first().isLocalFile() && QFileInfo(urls.first().toLocalFile()).isDir())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty()) return;
    openModel(urls.first().toLocalFile());
    event->acceptProposedAction();
}

void MainWindow::addWorkspace(Workspace *workspace)
{
    m_workspaces.append(workspace);
    m_tabs->addTab(workspace, workspace->title());
    workspace->setColorMap(m_colorMap);
    // Every workspace has its own runner; the status bar follows the one in the current tab.
    EngineRunner *runner = workspace->runner();
    const auto isCurrent = [this, workspace] { return currentWorkspace() == workspace; };
    connect(runner, &EngineRunner::started, this, [this, isCurrent] { if (isCurrent()) onRunStarted(); });
    connect(runner, &EngineRunner::idle, this, [this, isCurrent] { if (isCurrent()) onRunDone(); });
    connect(runner, &EngineRunner::progress, this, [this, isCurrent](double f) {
        if (isCurrent()) m_progress->setValue(int(f * 1000));
    });
    connect(runner, &EngineRunner::finished, this, [this](const SnapshotPtr &s) {
        m_backendLabel->setText(tr("backend: %1").arg(QString::fromStdString(s->backend)));
        m_timeLabel->setText(tr("last run %1 ms").arg(s->elapsedMs, 0, 'f', s->elapsedMs < 10 ? 2 : 0));
        m_memoryLabel->setText(peakMemoryText());
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
    QAction *exportFig = file->addAction(tr("&Export Figure…"), this, &MainWindow::exportFigureDialog);
    exportFig->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
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
    QMenu *themes = view->addMenu(tr("&Palette"));
    m_themeGroup = new QActionGroup(this);
    for (Theme t : {Theme::Light, Theme::Dark}) {
        QAction *a = themes->addAction(t == Theme::Light ? tr("&Light") : tr("&Dark"));
        a->setCheckable(true);
        a->setData(int(t));
        m_themeGroup->addAction(a);
        connect(a, &QAction::triggered, this, [this, t] { setTheme(t); });
    }
    view->addSeparator();
    QAction *full = view->addAction(tr("&Full Screen"), this, [this](bool on) {
        on ? showFullScreen() : showNormal();
    });
    full->setCheckable(true);
    full->setShortcut(QKeySequence::FullScreen);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About AttnScope"), this, &MainWindow::about);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::createStatusBar()
{
    m_backendLabel = new QLabel(tr("backend: –"));
    m_timeLabel = new QLabel(tr("no run yet"));
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
    for (QAction *a : m_themeGroup->actions()) a->setChecked(a->data().toInt() == int(theme));
}

bool MainWindow::exportFigure(const QString &path, QString *error)
{
    Workspace *w = currentWorkspace();
    HeatmapPlot *plot = w ? w->currentFigure() : nullptr;
    if (!plot || plot->data().rows == 0) {
        if (error) *error = tr("there is no figure to export yet");
        return false;
    }
    // The figure as it is on screen; a plot not shown yet (tests, first start) gets a sensible size.
    QSize size = plot->size();
    if (!plot->isVisible() || size.width() < 200 || size.height() < 200) size = QSize(900, 800);
    return plot->saveFigure(path, size, error);
}

void MainWindow::exportFigureDialog()
{
    QSettings settings;
    const QString dir = settings.value(QStringLiteral("export/dir"),
                                       QStandardPaths::writableLocation(QStandardPaths::PicturesLocation)).toString();
    QString selected;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export Figure"), dir + QStringLiteral("/attention.png"),
        tr("PNG image (*.png);;SVG vector image (*.svg);;PDF document (*.pdf)"), &selected);
    if (path.isEmpty()) return;
    settings.setValue(QStringLiteral("export/dir"), QFileInfo(path).absolutePath());
    QString error;
    if (!exportFigure(path, &error)) {
        QMessageBox::warning(this, tr("Export Figure"), tr("The figure was not saved: %1").arg(error));
        return;
    }
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 5000);
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
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray())) resize(1600, 1000);
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    setColorMap(colorMapFromName(settings.value(QStringLiteral("view/colorMap")).toString()));
    setTheme(themeFromName(settings.value(QStringLiteral("view/theme")).toString()));
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
    settings.setValue(QStringLiteral("view/theme"), themeName(m_theme));
    for (Workspace *w : m_workspaces) {
        settings.beginGroup(QStringLiteral("workspace/") + w->objectName());
        w->saveSettings(settings);
        settings.endGroup();
    }
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    for (Workspace *w : m_workspaces) w->runner()->cancel();
    writeSettings();
    event->accept();
}

} // namespace attnui
