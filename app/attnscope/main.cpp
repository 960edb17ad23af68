// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope: the GUI. Argument parsing and the main window; everything else lives in the libraries.

#include "shell/buildinfo.h"
#include "lessons/lessonpanel.h"
#include "shell/mainwindow.h"
#include "runner/enginerunner.h"
#include "kit/workspace.h"
#include "workspaces/explore/exploreview.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QScreen>
#include <QTimer>

#include <memory>

int main(int argc, char *argv[])
{
    // Qt 6 scales for high DPI by default; keep fractional factors (125 %, 150 %) exact rather than rounded.
    QApplication::setHighDpiScaleFactorRoundingPolicy(Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("AttnScope"));
    QApplication::setOrganizationDomain(QStringLiteral("attnscope.org"));
    QApplication::setApplicationName(QStringLiteral("AttnScope"));
    QApplication::setApplicationDisplayName(QStringLiteral("AttnScope"));
    QApplication::setApplicationVersion(attnui::attnscopeVersion());
    QApplication::setDesktopFileName(QStringLiteral("attnscope"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/attnscope.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("A native desktop lab for self-attention."));
    parser.addHelpOption();
    parser.addVersionOption();
    // For documentation and visual checks: save a picture of the window once the first result is shown, then quit.
    QCommandLineOption screenshot(QStringLiteral("screenshot"), QStringLiteral("Save the window to PATH and quit."),
                                  QStringLiteral("PATH"));
    screenshot.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(screenshot);
    // Which Explore tab to show first (head, lines, statistics, rollout, outputs, datasetheads): for documentation
    // screenshots.
    QCommandLineOption tab(QStringLiteral("tab"), QStringLiteral("Show this Explore tab."), QStringLiteral("NAME"));
    tab.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(tab);
    // Open a lesson (the base name of its file under resources/lessons, e.g. "scaling"): for screenshots and links.
    QCommandLineOption lesson(QStringLiteral("lesson"), QStringLiteral("Open this lesson."), QStringLiteral("ID"));
    lesson.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(lesson);
    // Which workspace to show (its key or title), presentation mode, a session to open: for screenshots.
    QCommandLineOption workspace(QStringLiteral("workspace"), QStringLiteral("Show this workspace."), QStringLiteral("NAME"));
    workspace.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(workspace);
    QCommandLineOption presentation(QStringLiteral("presentation"), QStringLiteral("Start in presentation mode."));
    presentation.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(presentation);
    // Not "--session": QApplication takes -session/--session for X11 session management before we see it.
    QCommandLineOption session(QStringLiteral("open-session"), QStringLiteral("Open this session file."), QStringLiteral("FILE"));
    session.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(session);
    parser.addPositionalArgument(QStringLiteral("model"),
                                 QStringLiteral("A model folder, sample:NAME or random:... spec, or a session file (*.attnscope.json), to open."),
                                 QStringLiteral("[model|session]"));
    parser.process(app);

    attnui::MainWindow window;
    window.show();
    // `attnscope FILE.attnscope.json` opens a session; anything else is a model folder or spec.
    if (!parser.positionalArguments().isEmpty()) {
        const QString first = parser.positionalArguments().first();
        if (first.endsWith(QLatin1String(".attnscope.json"))) {
            window.openStartupSession(first);
        } else {
            window.openModel(first);
        }
    }
    if (parser.isSet(tab)) {
        const QStringList tabs{QStringLiteral("head"), QStringLiteral("lines"), QStringLiteral("statistics"), QStringLiteral("rollout"),
                               QStringLiteral("outputs"), QStringLiteral("datasetheads")};
        const int index = tabs.indexOf(parser.value(tab));
        if (index >= 0) window.explore()->setCurrentTab(attnui::ExploreView::Tab(index));
    }

    if (parser.isSet(lesson)) {
        auto *panel = window.findChild<attnui::LessonPanel *>();
        if (!panel || !panel->openLesson(parser.value(lesson)))
            qWarning("lesson %s: %s", qPrintable(parser.value(lesson)), panel ? qPrintable(panel->errorText()) : "no panel");
    }

    if (parser.isSet(session)) {
        window.openStartupSession(parser.value(session));
    }
    if (parser.isSet(workspace) && !window.showWorkspace(parser.value(workspace)))
        qWarning("no workspace '%s'", qPrintable(parser.value(workspace)));
    if (parser.isSet(presentation)) {
        window.setPresentationMode(true);
        // The whole screen also where no window manager honours full screen (Xvfb, for the screenshots).
        if (const QScreen *s = window.screen()) window.setGeometry(s->geometry());
    }

    const bool anyWorkspace = parser.isSet(lesson) || parser.isSet(session) || parser.isSet(workspace);
    if (parser.isSet(screenshot) && anyWorkspace) {
        // A lesson or session may run in any workspace: grab once every runner has been idle for a while.
        const QString path = parser.value(screenshot);
        auto *poll = new QTimer(&window);
        auto quiet = std::make_shared<int>(0);
        QObject::connect(poll, &QTimer::timeout, &window, [&window, path, quiet] {
            bool busy = window.explore()->isLoading();
            for (auto *w : window.findChildren<attnui::Workspace *>())
                busy = busy || w->runner()->isBusy() || w->isPreparingResult();
            *quiet = busy ? 0 : *quiet + 1;
            if (*quiet < 6) return;
            QApplication::exit(window.grab().save(path) ? 0 : 1);
        });
        poll->start(250);
        QTimer::singleShot(60000, &app, [] { QApplication::exit(2); });
    } else if (parser.isSet(screenshot)) {
        const QString path = parser.value(screenshot);
        QObject::connect(window.explore(), &attnui::ExploreView::resultShown, &window, [&window, path] {
            // Let the layout and the queued replots settle before grabbing.
            QTimer::singleShot(500, &window, [&window, path] {
                const bool ok = window.grab().save(path);
                QApplication::exit(ok ? 0 : 1);
            });
        }, Qt::SingleShotConnection);
        QTimer::singleShot(60000, &app, [] { QApplication::exit(2); });   // never hang a script
    }
    return app.exec();
}
