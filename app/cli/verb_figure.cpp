// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope-cli figure: a workspace's figure, headless. The workspaces come from the same registry as the GUI's
// tabs (createWorkspaces()), over a Subject holding --model and --text; the one whose viewPrefixes() names the
// --view prefix shows it (showView()), and once its runner has gone idle its figureWidget() is exported by the
// same code as File ▸ Export Figure. This file knows no workspace by name.

#include "common.h"
#include "verbs.h"

#include <export/figureexport.h>
#include <runner/enginerunner.h>
#include <subject.h>
#include <workspace.h>
#include <workspaces.h>

#include <attnscope/attention.h>
#include <attnscope/textmodel.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QRegularExpression>
#include <QThread>

#include <memory>

namespace attncli {

namespace {

const QSize kWindow(1600, 960);         // the GUI's default window, less menus and status bar
constexpr int kSettleMs = 400;          // idle this long counts as done (views debounce their runs by ≤ 200 ms)
constexpr int kTimeoutMs = 120000;

// Pumps events until `runner` has been idle for kSettleMs; false on timeout.
bool waitUntilIdle(const attnui::EngineRunner *runner)
{
    QElapsedTimer total, idle;
    total.start();
    idle.start();
    while (total.elapsed() < kTimeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (runner->isBusy()) idle.restart();
        else if (idle.elapsed() >= kSettleMs) return true;
        QThread::msleep(5);
    }
    return false;
}

QtMessageHandler g_defaultHandler = nullptr;
bool g_quiet = false;   // --quiet: Qt's debug, info and warning messages are dropped too

// Notes from the offscreen platform (no size hints, no runtime folder): true, and of no interest to a script.
void filterMessages(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (g_quiet && (type == QtDebugMsg || type == QtInfoMsg || type == QtWarningMsg)) return;
    if (message.contains(QLatin1String("propagateSizeHints")) || message.contains(QLatin1String("XDG_RUNTIME_DIR"))) return;
    g_defaultHandler(type, context, message);
}

} // namespace

std::unique_ptr<QCoreApplication> createApplication(int &argc, char **argv)
{
    if (argc >= 2 && qstrcmp(argv[1], "figure") == 0) {
        // No display needed: draw offscreen unless the caller chose a platform.
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
        g_defaultHandler = qInstallMessageHandler(filterMessages);
        return std::make_unique<QApplication>(argc, argv);
    }
    return std::make_unique<QCoreApplication>(argc, argv);
}

int figureVerb(const QStringList &args)
{
    const QString verb = QStringLiteral("figure");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Draw one view of a workspace, as the GUI draws it, and write it as PNG, SVG or PDF (by the suffix of --out).\n"
        "Views: grid, head:L.H, lines:L, statistics, rollout, outputs (Explore), and each workspace's own\n"
        "(pipeline:L.H, masks:L.H, equivariance:L.H, faithfulness, compare:...). Layers and heads count from 0."));
    parser.addOptions({
        {QStringLiteral("model"), kModelHelp, QStringLiteral("M")},
        {QStringLiteral("text"), QStringLiteral("the input text (UTF-8)"), QStringLiteral("T")},
        {QStringLiteral("view"), QStringLiteral("what to draw, e.g. grid, head:0.2, lines:1"), QStringLiteral("V")},
        {QStringLiteral("out"), QStringLiteral("the file to write: .png, .svg or .pdf"), QStringLiteral("F")},
        {QStringLiteral("dpi"), QStringLiteral("PNG resolution (default 192; 96 = one pixel per point of --size)"),
         QStringLiteral("N"), QStringLiteral("192")},
        {QStringLiteral("size"),
         QStringLiteral("figure size in logical pixels of 1/96 inch, caption included (default: as the workspace "
                        "lays it out in a %1x%2 window)").arg(kWindow.width()).arg(kWindow.height()),
         QStringLiteral("WxH")},
        {QStringLiteral("backend"), QStringLiteral("reference|tiled|unfused|cuda|auto (default auto)"), QStringLiteral("B"),
         QStringLiteral("auto")},
        {QStringLiteral("mask"),
         QStringLiteral("model|bidirectional|causal|window:W|causal-window:W (default model: the model's own); "
                        "Explore views only"),
         QStringLiteral("MASK"), QStringLiteral("model")},
        {QStringLiteral("pad"), QStringLiteral("append K padding tokens, masked as keys (default 0); Explore views only"),
         QStringLiteral("K"), QStringLiteral("0")},
        {QStringLiteral("heads"), QStringLiteral("not for figure: a figure draws the heads --view names"),
         QStringLiteral("HEADS")},
    });
    addChatterOptions(parser);
    if (auto stop = parseVerbArguments(parser, verb, args)) return *stop;
    const auto bad = [&](const QString &message) {
        printError(verb, message);
        return kExitBadArguments;
    };
    if (parser.isSet(QStringLiteral("heads")))
        return bad(QStringLiteral("--heads: a figure draws the heads its --view names (head:L.H, lines:L, ...); "
                                  "figure takes no --heads"));
    Chatter chatter;
    if (QString error; !readChatter(parser, chatter, error)) return bad(error);
    g_quiet = chatter.quiet;
    if (QString error; !requireOptions(parser, {"model", "text", "view", "out"}, error)) return bad(error);

    attnui::FigureOptions options;
    QString error;
    if (!readInteger(parser, QStringLiteral("dpi"), options.dpi, error, attnui::kMinFigureDpi)) return bad(error);
    if (options.dpi > attnui::kMaxFigureDpi)
        return bad(QStringLiteral("--dpi: %1 is above %2").arg(options.dpi).arg(attnui::kMaxFigureDpi));
    if (parser.isSet(QStringLiteral("size"))) {
        const QString text = parser.value(QStringLiteral("size"));
        const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("^(\\d{2,5})x(\\d{2,5})$")).match(text);
        const int w = m.hasMatch() ? m.captured(1).toInt() : 0, h = m.hasMatch() ? m.captured(2).toInt() : 0;
        if (w < 200 || h < 150 || w > 20000 || h > 20000)
            return bad(QStringLiteral("--size: '%1' is not WxH with W in 200..20000 and H in 150..20000").arg(text));
        options.size = QSize(w, h);
    }
    const QString out = parser.value(QStringLiteral("out"));
    if (!attnui::figureFormatForPath(out))
        return bad(QStringLiteral("--out: '%1' does not end in .png, .svg or .pdf").arg(out));
    const QString backendName = parser.value(QStringLiteral("backend"));
    const auto backend = attn::parseBackend(backendName.toStdString());
    if (!backend) return bad(QStringLiteral("--backend: unknown backend '%1' (reference|tiled|unfused|cuda|auto)").arg(backendName));
    const auto maskChoice = attn::parseMaskChoice(parser.value(QStringLiteral("mask")).toStdString());
    if (!maskChoice) return bad(QStringLiteral("--mask: %1").arg(QString::fromStdString(maskChoice.status().message())));
    int padding = 0;
    if (!readInteger(parser, QStringLiteral("pad"), padding, error, 0)) return bad(error);
    const QString view = parser.value(QStringLiteral("view"));
    const QString prefix = view.section(QLatin1Char(':'), 0, 0);
    if (!qobject_cast<QApplication *>(QCoreApplication::instance()))
        return bad(QStringLiteral("figure needs a QApplication (run it as 'attnscope-cli figure ...')"));

    // The model and text every workspace starts from.
    const QString spec = parser.value(QStringLiteral("model"));
    progress(chatter, verb, QStringLiteral("opening %1").arg(spec));
    auto opened = attn::TextModel::open(spec.toStdString());
    if (!opened) {
        printError(verb, QStringLiteral("--model %1: %2").arg(spec, QString::fromStdString(opened.status().message())));
        return kExitError;
    }
    auto model = std::make_shared<const attn::TextModel>(std::move(*opened));
    const QString text = parser.value(QStringLiteral("text"));
    if (auto tokens = model->tokenize(text.toStdString()); !tokens) {
        printError(verb, QStringLiteral("--text: %1").arg(QString::fromStdString(tokens.status().message())));
        return kExitError;
    }
    attnui::Subject subject;
    subject.setModel(model, spec);
    subject.setText(text);
    subject.setBackend(*backend);
    subject.setRunOptions(maskChoice->override(), padding);

    // The workspace that draws this view; the others are dropped (their runs cancelled) at once.
    std::unique_ptr<attnui::Workspace> workspace;
    QStringList known;
    for (attnui::Workspace *w : attnui::createWorkspaces(&subject)) {
        known += w->viewPrefixes();
        if (!workspace && w->viewPrefixes().contains(prefix)) workspace.reset(w);
        else delete w;
    }
    if (!workspace)
        return bad(QStringLiteral("--view: unknown view '%1' (views: %2)").arg(view, known.join(QStringLiteral(", "))));
    if (!workspace->honoursRunOptions())
        for (const char *option : {"mask", "pad"})
            if (parser.isSet(QString::fromLatin1(option)))
                return bad(QStringLiteral("--%1: the view '%2' (%3 workspace) cannot honour it; --mask and --pad apply "
                                          "to the Explore views (grid, head:L.H, lines:L, statistics, rollout, outputs)")
                               .arg(QLatin1String(option), view, workspace->title()));
    progress(chatter, verb, QStringLiteral("running the %1 workspace").arg(workspace->title()));
    // Offscreen, laid out as on screen: at the GUI's default window size, or with room for the controls beside a
    // figure of the requested size.
    workspace->resize(options.size.isEmpty() ? kWindow : options.size.expandedTo(kWindow) + QSize(480, 160));
    workspace->show();
    if (!waitUntilIdle(workspace->runner())) {
        printError(verb, QStringLiteral("timed out waiting for the %1 workspace").arg(workspace->title()));
        return kExitError;
    }
    if (!workspace->showView(view, &error)) return bad(QStringLiteral("--view: %1").arg(error));
    if (!waitUntilIdle(workspace->runner())) {
        printError(verb, QStringLiteral("timed out waiting for the %1 workspace").arg(workspace->title()));
        return kExitError;
    }
    QWidget *figure = workspace->figureWidget();
    if (!figure) {
        printError(verb, QStringLiteral("the %1 workspace has nothing to draw for '%2'").arg(workspace->title(), view));
        return kExitError;
    }
    options.caption = workspace->figureCaption();
    if (options.size.isEmpty()) options.size = attnui::defaultFigureSize(figure, options.caption);
    if (!attnui::exportFigure(figure, out, options, &error)) {
        printError(verb, error);
        return kExitError;
    }
    progress(chatter, verb, QStringLiteral("wrote %1").arg(out));
    return kExitOk;
}

} // namespace attncli
