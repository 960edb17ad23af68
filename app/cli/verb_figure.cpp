// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope-cli figure: a workspace's figure, headless. The workspaces come from the same registry as the GUI's
// tabs (createWorkspaces()), over a Subject holding --model and --text; the one whose viewPrefixes() names the
// --view prefix shows it (showView()), and once its runner has gone idle its figureWidget() is exported by the
// same code as File ▸ Export Figure. This file knows no workspace by name.

#include "common.h"
#include "verbs.h"

#include <export/figureexport.h>
#include <kit/figureactions.h>
#include <kit/subject.h>
#include <kit/workspace.h>
#include <kit/workspaces.h>
#include <plots/heatmapplot.h>
#include <runner/enginerunner.h>

#include <attnscope/attention.h>
#include <attnscope/seq2seqrun.h>
#include <attnscope/textmodel.h>
#include <attnscope/vit.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QRegularExpression>
#include <QThread>

#include <algorithm>
#include <memory>

namespace attncli {

namespace {

const QSize kWindow(1600, 960);         // the GUI's default window, less menus and status bar
constexpr int kSettleMs = 400;          // idle this long counts as done (views debounce their runs by ≤ 200 ms)
constexpr int kTimeoutMs = 120000;

// Pumps events until the workspace's runner has been idle, and no heatmap of it is still being prepared on the
// work pool (a matrix over 512² cells is), for kSettleMs; false on timeout.
bool waitUntilIdle(const attnui::Workspace *workspace)
{
    const auto busy = [workspace] {
        if (workspace->runner()->isBusy() || workspace->isPreparingResult()) return true;
        for (const attnui::HeatmapPlot *plot : workspace->findChildren<attnui::HeatmapPlot *>())
            if (plot->isPreparing()) return true;
        return false;
    };
    QElapsedTimer total, idle;
    total.start();
    idle.start();
    while (total.elapsed() < kTimeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (busy()) idle.restart();
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

namespace {

// The layer and head numbers of a view ("pipeline:1.3", "lines:2"), checked against the model: a view may clamp a
// number it cannot show, and a figure of another head than the one asked for is a wrong figure. Empty when fine.
QString checkViewNumbers(const QString &view, const attn::ModelConfig &config)
{
    // Only the views whose argument is a head (L.H) or a layer (L); the view itself rejects other arguments.
    const QString prefix = view.section(QLatin1Char(':'), 0, 0), argument = view.section(QLatin1Char(':'), 1);
    const bool takesHead = QStringList{"head", "pipeline", "masks", "equivariance"}.contains(prefix);
    const bool takesLayer = prefix == QLatin1String("lines");
    const QRegularExpressionMatch head = QRegularExpression(QStringLiteral("^(\\d+)\\.(\\d+)$")).match(argument);
    const QRegularExpressionMatch layer = QRegularExpression(QStringLiteral("^(\\d+)$")).match(argument);
    const auto outside = [&](const QRegularExpressionMatch &m, int group, std::int64_t count) {
        bool ok = false;
        const qlonglong v = m.captured(group).toLongLong(&ok);
        return !ok || v >= count;
    };
    if (takesHead && head.hasMatch() && (outside(head, 1, config.layers) || outside(head, 2, config.heads)))
        return QStringLiteral("--view %1: the model has layers 0..%2 and heads 0..%3")
            .arg(view).arg(config.layers - 1).arg(config.heads - 1);
    if (takesLayer && layer.hasMatch() && outside(layer, 1, config.layers))
        return QStringLiteral("--view %1: the model has layers 0..%2").arg(view).arg(config.layers - 1);
    return {};
}

} // namespace

int figureVerb(const QStringList &args)
{
    VerbOptions opts(QStringLiteral("figure"), QStringLiteral(
        "Draw one view of a workspace, as the GUI draws it, and write it as PNG, SVG or PDF (by the suffix of --out).\n"
        "Views: grid, head:L.H, lines:L, statistics, rollout, outputs (Explore), and each workspace's own\n"
        "(pipeline:L.H, masks:L.H, equivariance:L.H, faithfulness, compare:...). Encoder-decoder models (T5, BART, Marian):\n"
        "head:enc:L.H, head:dec:L.H, head:cross:L.H, align:L.H, generation:STEP[:L.H] (H may be 'mean').\n"
        "Vision Transformers (--image instead of --text): overlay:L.H, overlay:L.mean, overlay:rollout, patches:L.H,\n"
        "patches:L.mean, patches:rollout.\n"
        "Layers, heads and steps count from 0."));
    using T = OptionType;
    opts.use({"model", "text", {"image", QStringLiteral("Vision Transformers: the image to draw (instead of --text)")}, {"text-pair", QStringLiteral("a second text, as a sentence pair (the tokenizer's pair template, token types for BERT); Explore views only")}, "truncate"});
    opts.add({{"view", T::Text, "V", "what to draw, e.g. grid, head:0.2, lines:1", {}}});
    opts.use({{"out", QStringLiteral("the file to write: .png, .svg or .pdf")}});
    opts.add({
        {"dpi", T::Integer, "N", "PNG resolution (96 = one pixel per point of --size)", "192", attnui::kMinFigureDpi,
         attnui::kMaxFigureDpi},
        {"size", T::Text, "WxH",
         QStringLiteral("figure size in logical pixels of 1/96 inch, caption included, W in 200..20000 and H in "
                        "150..20000 (default: the view's own figure layout, sized for its content)"), {}},
        {"scale", T::Text, "S",
         QStringLiteral("colour scale of the weight heatmaps: fixed (0-1, default), auto (data min-max), pct:P (clip at "
                        "the P-th percentile, 50 <= P < 100), log (four decades below the maximum), row (each row to "
                        "its maximum); the colour bar's label says which. Difference maps stay centred at 0"), {}},
        {"target-text", T::Text, "T",
         QStringLiteral("encoder-decoder models: the target to teacher-force (default: the model translates greedily)"), {}},
        {"max-new-tokens", T::Integer, "N", "encoder-decoder models without --target-text: tokens generated at most",
         "20", 1, 512},
        {"width", T::Text, "W",
         QStringLiteral("printed width, e.g. 3.5in (a journal column) or 7in (a page), also cm or mm, 1 to 20 "
                        "inches; the height follows the view's layout and --dpi defaults to 300"), {}},
    });
    opts.use({"backend",
              {"mask", QStringLiteral("model|bidirectional|causal|window:W|causal-window:W; model is the model's own; "
                                      "Explore views only")},
              {"pad", QStringLiteral("append K padding tokens, masked as keys; Explore views only")},
              {"heads", QStringLiteral("not for figure: a figure draws the heads --view names")},
              "quiet", "progress"});
    if (auto stop = opts.parse(args)) return *stop;
    const QString verb = opts.verb();
    if (opts.isSet("heads"))
        return opts.fail(QStringLiteral("--heads: a figure draws the heads its --view names (head:L.H, lines:L, ...); "
                                        "figure takes no --heads"));
    Chatter chatter;
    if (!opts.readChatter(chatter)) return opts.fail();
    g_quiet = chatter.quiet;
    attnui::FigureOptions options;
    attn::Backend backend = attn::Backend::Auto;
    attn::MaskChoice maskChoice;
    int padding = 0;
    // A Vision Transformer draws an image, every other model a text.
    const auto resolved = attn::resolveModelSpec(opts.value("model").toStdString());
    const bool vision = resolved && attn::isVitFolder(*resolved);
    if (opts.isSet("image") && !vision)
        return opts.fail(QStringLiteral("--image: only for Vision Transformer folders (config.json model_type \"vit\" or \"deit\"); "
                                        "%1 is not one").arg(opts.value("model")));
    if (vision && opts.isSet("text"))
        return opts.fail(QStringLiteral("--text: %1 is a Vision Transformer; give --image").arg(opts.value("model")));
    if (!opts.require({"model", vision ? "image" : "text", "view", "out"}) || !opts.read("dpi", options.dpi) ||
        !opts.readBackend(backend) || !opts.readMask(maskChoice) || !opts.read("pad", padding))
        return opts.fail();
    if (opts.isSet("size")) {
        const QString text = opts.value("size");
        const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("^(\\d{2,5})x(\\d{2,5})$")).match(text);
        const int w = m.hasMatch() ? m.captured(1).toInt() : 0, h = m.hasMatch() ? m.captured(2).toInt() : 0;
        if (w < 200 || h < 150 || w > 20000 || h > 20000)
            return opts.fail(QStringLiteral("--size: '%1' is not WxH with W in 200..20000 and H in 150..20000").arg(text));
        options.size = QSize(w, h);
    }
    if (opts.isSet("width")) {
        if (opts.isSet("size")) return opts.fail(QStringLiteral("--width: give --width or --size, not both"));
        const QString text = opts.value("width");
        const QRegularExpressionMatch m =
            QRegularExpression(QStringLiteral("^(\\d{1,3}(?:\\.\\d{1,3})?)(in|cm|mm)$")).match(text);
        const double perInch = !m.hasMatch() ? 0 : m.captured(2) == QLatin1String("in") ? 1 : m.captured(2) == QLatin1String("cm") ? 2.54 : 25.4;
        const double inches = m.hasMatch() ? m.captured(1).toDouble() / perInch : 0;
        if (inches < 1 || inches > 20)
            return opts.fail(QStringLiteral("--width: '%1' is not a width of 1 to 20 inches such as 3.5in, 7in, 8.9cm "
                                            "or 178mm").arg(text));
        options.widthInches = inches;
        if (!opts.isSet("dpi")) options.dpi = 300;
    }
    attnui::ColorScale colorScale;
    if (opts.isSet("scale")) {
        QString error;
        const auto parsed = attnui::ColorScale::parse(opts.value("scale"), &error);
        if (!parsed) return opts.fail(QStringLiteral("--scale: ") + error);
        colorScale = *parsed;
    }
    const QString out = opts.value("out");
    if (!attnui::figureFormatForPath(out))
        return opts.fail(QStringLiteral("--out: '%1' does not end in .png, .svg or .pdf").arg(out));
    const QString view = opts.value("view");
    if (!qobject_cast<QApplication *>(QCoreApplication::instance()))
        return opts.fail(QStringLiteral("figure needs a QApplication (run it as 'attnscope-cli figure ...')"));

    // The model and text every workspace starts from. An encoder-decoder model is no text model: the Subject names
    // it without one, and only a workspace that opens such models itself draws it.
    const QString spec = opts.value("model");
    const QString text = opts.value(vision ? "image" : "text");
    const bool encoderDecoder = attn::isSeq2SeqSpec(spec.toStdString());
    attnui::Subject subject;
    subject.setBackend(backend);
    if (vision) {
        for (const char *option : {"truncate", "text-pair", "mask", "pad", "target-text", "max-new-tokens"})
            if (opts.isSet(QString::fromLatin1(option)))
                return opts.fail(QStringLiteral("--%1: not for a Vision Transformer (%2)").arg(QLatin1String(option), spec));
        subject.setModel(nullptr, spec);
        subject.setText(text);   // the image's path: the Vision workspace reads it
    } else if (encoderDecoder) {
        for (const char *option : {"truncate", "text-pair", "mask", "pad"})
            if (opts.isSet(QString::fromLatin1(option)))
                return opts.fail(QStringLiteral("--%1: not for an encoder-decoder model (%2)").arg(QLatin1String(option), spec));
        subject.setModel(nullptr, spec);
        subject.setText(text);
    } else {
        for (const char *option : {"target-text", "max-new-tokens"})
            if (opts.isSet(QString::fromLatin1(option)))
                return opts.fail(QStringLiteral("--%1: only for encoder-decoder models; %2 has no decoder to give a "
                                                "target to").arg(QLatin1String(option), spec));
        progress(chatter, verb, QStringLiteral("opening %1").arg(spec));
        auto opened = attn::TextModel::open(spec.toStdString());
        if (!opened) {
            printError(verb, QStringLiteral("--model %1: %2").arg(spec, QString::fromStdString(opened.status().message())));
            return kExitError;
        }
        auto model = std::make_shared<const attn::TextModel>(std::move(*opened));
        attn::TokenizeOptions tokenize;
        tokenize.truncate = opts.isSet("truncate");
        if (opts.isSet("text-pair")) tokenize.pair = opts.value("text-pair").toStdString();
        const auto tokens = tokenizeOrReport(verb, *model, text, tokenize);
        if (!tokens) return kExitError;
        // A run that cannot succeed would leave a blank "No result yet" figure and exit 0: refuse it here.
        const attn::ModelConfig &config = model->model().config();
        if (config.maxPositions > 0 && std::int64_t(tokens->ids.size()) + padding > config.maxPositions)
            return opts.fail(QStringLiteral("--pad: %1 padding tokens after the text's %2 tokens exceed the model's %3 "
                                            "positions").arg(padding).arg(tokens->ids.size()).arg(config.maxPositions));
        if (QString problem = checkViewNumbers(view, config); !problem.isEmpty()) return opts.fail(problem);
        subject.setModel(model, spec);
        subject.setText(text);
        subject.setRunOptions(maskChoice.override(), padding);
        subject.setTruncate(tokenize.truncate);
        if (tokenize.pair) subject.setTextPair(opts.value("text-pair"));
    }

    // The workspace that draws this view; the others are dropped (their runs cancelled) at once.
    // A view belongs to the workspace with the longest prefix it starts with ("head:cross:1.0" is not Explore's
    // "head"), among those that can draw the model.
    std::unique_ptr<attnui::Workspace> workspace;
    QStringList known;
    qsizetype matched = 0;
    for (attnui::Workspace *w : attnui::createWorkspaces(&subject)) {
        const bool fits = w->opensEncoderDecoderModels() == encoderDecoder && w->opensVisionModels() == vision;
        if (fits) known += w->viewPrefixes();
        qsizetype longest = 0;
        for (const QString &p : w->viewPrefixes())
            if (view == p || view.startsWith(p + QLatin1Char(':'))) longest = std::max(longest, p.size());
        if (fits && longest > matched) {
            matched = longest;
            workspace.reset(w);
        } else {
            delete w;
        }
    }
    if (!workspace)
        return opts.fail(QStringLiteral("--view: unknown view '%1' for %2 (views: %3)")
                             .arg(view, vision           ? QStringLiteral("a Vision Transformer")
                                        : encoderDecoder ? QStringLiteral("an encoder-decoder model")
                                                         : QStringLiteral("this model"),
                                  known.join(QStringLiteral(", "))));
    if (encoderDecoder && (opts.isSet("target-text") || opts.isSet("max-new-tokens"))) {
        QJsonObject state;
        if (opts.isSet("target-text")) state.insert(QStringLiteral("target"), opts.value("target-text"));
        if (opts.isSet("max-new-tokens")) {
            if (opts.isSet("target-text"))
                return opts.fail(QStringLiteral("--max-new-tokens: only without --target-text (a target is teacher-forced)"));
            int maxNew = 20;
            if (!opts.read("max-new-tokens", maxNew)) return opts.fail();
            state.insert(QStringLiteral("max_new_tokens"), maxNew);
        }
        if (QString error; !workspace->restoreSessionState(state, &error)) return opts.fail(error);
    }
    if (!workspace->honoursRunOptions())
        for (const char *option : {"mask", "pad", "text-pair"})
            if (opts.isSet(QString::fromLatin1(option)))
                return opts.fail(QStringLiteral("--%1: the view '%2' (%3 workspace) cannot honour it; --mask, --pad and --text-pair apply "
                                          "to the Explore views (grid, head:L.H, lines:L, statistics, rollout, outputs)")
                               .arg(QLatin1String(option), view, workspace->title()));
    // Any failed run of the workspace is an error of the figure, never a blank or stale picture.
    QString runError;
    QObject::connect(workspace->runner(), &attnui::EngineRunner::failed, workspace.get(),
                     [&runError](const QString &message) { if (runError.isEmpty()) runError = message; });
    progress(chatter, verb, QStringLiteral("running the %1 workspace").arg(workspace->title()));
    // Offscreen, laid out as on screen: at the GUI's default window size, or with room for the controls beside a
    // figure of the requested size.
    workspace->setColorScale(colorScale);
    workspace->resize(options.size.isEmpty() ? kWindow : options.size.expandedTo(kWindow) + QSize(480, 160));
    workspace->show();
    if (!waitUntilIdle(workspace.get())) {
        printError(verb, QStringLiteral("timed out waiting for the %1 workspace").arg(workspace->title()));
        return kExitError;
    }
    if (QString error; !workspace->showView(view, &error)) return opts.fail(QStringLiteral("--view: %1").arg(error));
    if (!waitUntilIdle(workspace.get())) {
        printError(verb, QStringLiteral("timed out waiting for the %1 workspace").arg(workspace->title()));
        return kExitError;
    }
    if (!runError.isEmpty()) {
        printError(verb, QStringLiteral("the %1 workspace could not run: %2").arg(workspace->title(), runError));
        return kExitError;
    }
    QWidget *figure = workspace->figureWidget();
    if (!figure) {
        printError(verb, QStringLiteral("the %1 workspace has nothing to draw for '%2'").arg(workspace->title(), view));
        return kExitError;
    }
    options.caption = workspace->figureCaption();
    options.layout = workspace->figureLayout();
    options.provenance = attnui::workspaceProvenance(workspace.get());
    if (QString error; !attnui::exportFigure(figure, out, options, &error)) {
        printError(verb, error);
        return kExitError;
    }
    progress(chatter, verb, QStringLiteral("wrote %1").arg(out));
    return kExitOk;
}

} // namespace attncli
