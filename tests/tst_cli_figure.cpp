// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope-cli figure, run as scripts run it (QProcess, no display): every Explore view and every view prefix
// of every registered workspace (read from createWorkspaces(), so a new workspace is covered without editing
// this file) as PNG, SVG and PDF; the files decode, the SVG carries the token labels as <text> and no large
// embedded bitmap; the examples in docs/cli.md run; a bad view exits 2 naming --view; an unwritable output
// exits 1 and leaves no file.

#include "export/figureexport.h"
#include "runner/enginerunner.h"
#include "kit/subject.h"
#include "workspaces/explore/exploreview.h"
#include "kit/workspace.h"
#include "kit/workspaces.h"

#include <attnscope/textmodel.h>

#include <QAbstractButton>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPointer>
#include <QProcess>
#include <QRegularExpression>
#include <QSvgRenderer>
#include <QTextDocument>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

namespace {

const QString kModel = QStringLiteral("sample:induction-gpt2");
const QString kText = QStringLiteral("the cat sat on the mat");

struct CliRun {
    int exitCode = -1;
    QString out, err;
};

CliRun runCli(const QStringList &args, int timeoutMs = 120000)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));   // the verb must choose offscreen by itself
    env.remove(QStringLiteral("DISPLAY"));
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(ATTNSCOPE_CLI_PATH), args);
    CliRun run;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        run.err = QStringLiteral("timed out");
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

// Waits until the workspace's runner has been idle for a while (views debounce their runs).
void settle(attnui::Workspace *w)
{
    QElapsedTimer idle;
    idle.start();
    (void)QTest::qWaitFor([&] {
        if (w->runner()->isBusy()) idle.restart();
        return idle.elapsed() > 400;
    }, 60000);
}

// What a view's figure is laid out as, read in this process from the same workspace the CLI builds.
struct ViewLayout {
    QString title, spec;
    double minAspect = 0, maxAspect = 0;
    QString caption;
    QPointer<QWidget> figure;   // for figureCaptionHeight(); lives as long as `workspaces`
    QStringList controls;       // text of the controls inside the figure: never drawn in it
    QStringList labelWords;     // the words of the figure's own labels (a legend may say "H0" as a check box does)
};

// One view spec per prefix of every registered workspace: the prefix itself, or with the first layer and head,
// whichever the workspace accepts. `keep`: the workspaces, so that ViewLayout::figure stays valid.
QList<ViewLayout> registeredLayouts(std::vector<std::unique_ptr<attnui::Workspace>> *keep, attnui::Subject *subject)
{
    QList<ViewLayout> views;
    for (attnui::Workspace *w : attnui::createWorkspaces(subject)) {
        keep->emplace_back(w);
        if (w->opensEncoderDecoderModels()) continue;   // its views are of encoder-decoder models: encoderDecoderViews
        if (w->opensVisionModels()) continue;           // and these of Vision Transformers: visionViews
        w->resize(1400, 900);
        w->show();
        settle(w);
        for (const QString &prefix : w->viewPrefixes()) {
            for (const QString &spec : {prefix, prefix + QStringLiteral(":0.0"), prefix + QStringLiteral(":0")}) {
                QString error;
                if (!w->showView(spec, &error)) continue;
                settle(w);
                ViewLayout v{w->title(), spec};
                const attnui::FigureLayout layout = w->figureLayout();
                v.minAspect = layout.minAspect;
                v.maxAspect = layout.maxAspect;
                v.caption = w->figureCaption();
                v.figure = w->figureWidget();
                if (v.figure) {
                    for (const QAbstractButton *b : v.figure->findChildren<QAbstractButton *>())
                        if (b->isVisibleTo(v.figure) && b->text().size() >= 2) v.controls << QString(b->text()).remove('&');
                    for (const QLabel *l : v.figure->findChildren<QLabel *>()) {
                        if (l->buddy()) {
                            if (l->isVisibleTo(v.figure)) v.controls << QString(l->text()).remove('&');
                            continue;
                        }
                        QTextDocument doc;
                        doc.setHtml(l->text());
                        v.labelWords << doc.toPlainText().replace(QChar(0xA0), QLatin1Char(' ')).split(QLatin1Char(' '), Qt::SkipEmptyParts);
                    }
                }
                views.append(v);
                break;
            }
        }
    }
    return views;
}

// The same as (title, spec) pairs, with a model and workspaces of its own.
QList<QPair<QString, QString>> registeredViews()
{
    auto opened = attn::TextModel::open(kModel.toStdString());
    if (!opened) return {};
    attnui::Subject subject;
    subject.setModel(std::make_shared<const attn::TextModel>(std::move(*opened)), kModel);
    subject.setText(kText);
    std::vector<std::unique_ptr<attnui::Workspace>> workspaces;
    QList<QPair<QString, QString>> views;
    for (const ViewLayout &v : registeredLayouts(&workspaces, &subject)) views.append({v.title, v.spec});
    return views;
}

// Text of every <text> element, unescaped and trimmed.
QStringList svgTexts(const QString &svg)
{
    QStringList texts;
    static const QRegularExpression re(QStringLiteral("<text[^>]*>([^<]*)</text>"));
    for (auto it = re.globalMatch(svg); it.hasNext();) {
        QString t = it.next().captured(1);
        t.replace(QStringLiteral("&lt;"), QStringLiteral("<")).replace(QStringLiteral("&gt;"), QStringLiteral(">"));
        t.replace(QStringLiteral("&quot;"), QStringLiteral("\"")).replace(QStringLiteral("&apos;"), QStringLiteral("'"));
        t.replace(QStringLiteral("&amp;"), QStringLiteral("&"));
        texts << t.trimmed();
    }
    return texts;
}

// The largest embedded <image> as a fraction of the figure's area.
double largestImageFraction(const QString &svg, QSize figure)
{
    double largest = 0;
    static const QRegularExpression re(QStringLiteral("<image[^>]*width=\"([0-9.]+)\"[^>]*height=\"([0-9.]+)\""));
    for (auto it = re.globalMatch(svg); it.hasNext();) {
        const auto m = it.next();
        largest = std::max(largest, m.captured(1).toDouble() * m.captured(2).toDouble() /
                                        (double(figure.width()) * figure.height()));
    }
    return largest;
}

} // namespace

class TestCliFigure : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void writesEveryView_data();
    void writesEveryView();
    void defaultLayoutsFitTheirViews();
    void docExamplesRun();
    void badViewIsAnArgumentError_data();
    void badViewIsAnArgumentError();
    void unwritableOutputLeavesNoFile();
    void maskAndPadChangeTheFigure();
    void runOptionsTheViewCannotHonour_data();
    void runOptionsTheViewCannotHonour();
    void quietAndProgress();
    void visionViews_data();
    void visionViews();
    void encoderDecoderViews_data();
    void encoderDecoderViews();
    void encoderDecoderOptionsAreChecked_data();
    void encoderDecoderOptionsAreChecked();

private:
    QTemporaryDir m_dir;
    QStringList m_labels;   // the tokens as the heatmaps label them
};

void TestCliFigure::initTestCase()
{
    QVERIFY(m_dir.isValid());
    auto model = attn::TextModel::open(kModel.toStdString());
    QVERIFY2(model.isOk(), model.status().message().c_str());
    auto tokens = model->tokenize(kText.toStdString());
    QVERIFY(tokens.isOk());
    for (const std::string &label : tokens->labels) {
        const QString trimmed = QString::fromStdString(label).trimmed();
        if (!trimmed.isEmpty()) m_labels << trimmed;   // a lone space is drawn as a visible-space sign
    }
    QVERIFY(m_labels.size() >= 4);
}

void TestCliFigure::writesEveryView_data()
{
    QTest::addColumn<QString>("view");
    QTest::addColumn<bool>("tokenLabels");   // the figure labels its axes or lines with the tokens
    for (const char *view : {"grid", "head:0.1", "lines:0", "statistics", "rollout", "outputs"})
        QTest::addRow("Explore %s", view) << QString::fromLatin1(view)
                                          << QStringList{QStringLiteral("head:0.1"), QStringLiteral("lines:0"),
                                                         QStringLiteral("rollout")}.contains(QLatin1String(view));
    const auto views = registeredViews();
    QVERIFY2(!views.isEmpty(), "no workspace offers a view");
    for (const auto &[title, spec] : views)
        if (title != QLatin1String("Explore")) QTest::addRow("%s %s", qPrintable(title), qPrintable(spec)) << spec << false;
}

void TestCliFigure::writesEveryView()
{
    QFETCH(QString, view);
    QFETCH(bool, tokenLabels);
    const QString base = m_dir.filePath(QString(view).replace(QLatin1Char(':'), QLatin1Char('_')));
    const QSize size(900, 640);
    for (const char *suffix : {"png", "svg", "pdf"}) {
        const QString out = base + QLatin1Char('.') + QLatin1String(suffix);
        const CliRun run = runCli({QStringLiteral("figure"), QStringLiteral("--model"), kModel, QStringLiteral("--text"),
                                   kText, QStringLiteral("--view"), view, QStringLiteral("--out"), out,
                                   QStringLiteral("--size"), QStringLiteral("900x640"), QStringLiteral("--dpi"),
                                   QStringLiteral("144")});
        QVERIFY2(run.exitCode == 0, qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(run.err)));
        QVERIFY(run.out.isEmpty());
        QFile file(out);
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(out));
        const QByteArray bytes = file.readAll();
        if (qstrcmp(suffix, "png") == 0) {
            const QImage image = QImage::fromData(bytes, "PNG");
            QVERIFY(!image.isNull());
            QCOMPARE(image.size(), size * 1.5);   // 144 dpi over 96
            // Provenance in the PNG's text chunks: the model's weights named with their digest.
            const QJsonObject provenance = QJsonDocument::fromJson(image.text(QStringLiteral("AttnScope provenance")).toUtf8()).object();
            QCOMPARE(provenance.value("model").toObject().value("source").toString(), kModel);
            QVERIFY(provenance.value("attnscope").toObject().value("version").toString().size() >= 5);
            bool weights = false;
            for (const QJsonValue &f : provenance.value("model").toObject().value("files").toArray())
                weights |= f.toObject().value("file").toString() == QLatin1String("model.safetensors") &&
                           f.toObject().value("sha256").toString().size() == 64;
            QVERIFY2(weights, qPrintable(image.text(QStringLiteral("AttnScope provenance"))));
            QVERIFY(image.text(QStringLiteral("Description")).startsWith(QLatin1String("AttnScope ")));
        } else if (qstrcmp(suffix, "svg") == 0) {
            QSvgRenderer renderer(bytes);
            QVERIFY(renderer.isValid());
            const QString svg = QString::fromUtf8(bytes);
            const QStringList texts = svgTexts(svg);
            QVERIFY2(texts.size() >= 3, "labels are drawn as bitmaps, not <text>");
            if (tokenLabels)
                for (const QString &label : m_labels)
                    QVERIFY2(texts.contains(label), qPrintable(QStringLiteral("no <text> '%1'").arg(label)));
            QVERIFY2(largestImageFraction(svg, size) < 0.25, "the figure is one big embedded bitmap");
            const QRegularExpressionMatch desc = QRegularExpression(QStringLiteral("<desc>([^<]*)</desc>")).match(svg);
            QVERIFY2(desc.hasMatch() && desc.captured(1).contains(QLatin1String("sha256")), "no provenance in <desc>");
        } else {
            QVERIFY(bytes.startsWith("%PDF-"));
            QVERIFY(bytes.right(64).contains("%%EOF"));
            QVERIFY(bytes.size() > 2000);
            QVERIFY2(bytes.contains("attnscope-provenance.json"), "no provenance attached to the PDF");
        }
    }
}

void TestCliFigure::defaultLayoutsFitTheirViews()
{
    // Every view's default figure (its own layout, whatever the window) and the same at a journal column's width:
    // the content's aspect ratio (the figure less its wrapped caption) is within the range the view states, the
    // column figure prints exactly 3.5 in wide at 300 dpi, and no control or hover hint is drawn in it.
    auto opened = attn::TextModel::open(kModel.toStdString());
    QVERIFY(opened.isOk());
    attnui::Subject subject;
    subject.setModel(std::make_shared<const attn::TextModel>(std::move(*opened)), kModel);
    subject.setText(kText);
    std::vector<std::unique_ptr<attnui::Workspace>> workspaces;
    const QList<ViewLayout> views = registeredLayouts(&workspaces, &subject);
    QVERIFY(views.size() >= 10);
    const auto figureArgs = [](const QString &view, const QString &out) {
        return QStringList{QStringLiteral("figure"), QStringLiteral("--model"), kModel, QStringLiteral("--text"),
                           kText, QStringLiteral("--view"), view, QStringLiteral("--out"), out};
    };
    for (const ViewLayout &v : views) {
        const QString what = v.title + QLatin1Char(' ') + v.spec;
        QVERIFY2(v.figure, qPrintable(what + ": no figure"));
        QVERIFY2(v.minAspect > 0 && v.minAspect < v.maxAspect, qPrintable(what + ": no aspect range"));
        const QString base = m_dir.filePath(QStringLiteral("layout-") + QString(v.spec).replace(QLatin1Char(':'), QLatin1Char('_')));

        // Default: one logical pixel per pixel at 96 dpi.
        CliRun run = runCli(figureArgs(v.spec, base + QStringLiteral(".png")) << QStringLiteral("--dpi") << QStringLiteral("96"));
        QVERIFY2(run.exitCode == 0, qPrintable(what + QStringLiteral(": ") + run.err));
        const QImage image(base + QStringLiteral(".png"));
        QVERIFY(!image.isNull());
        const int caption = attnui::figureCaptionHeight(v.figure, v.caption, image.width());
        const double aspect = double(image.width()) / (image.height() - caption);
        QVERIFY2(aspect >= v.minAspect * 0.99 && aspect <= v.maxAspect * 1.01,
                 qPrintable(QStringLiteral("%1: %2x%3 (caption %4) has aspect %5, outside %6..%7")
                                .arg(what).arg(image.width()).arg(image.height()).arg(caption).arg(aspect)
                                .arg(v.minAspect).arg(v.maxAspect)));
        QVERIFY2(image.width() >= 300 && image.height() - caption >= 200,
                 qPrintable(QStringLiteral("%1: %2x%3 is too small to read").arg(what).arg(image.width()).arg(image.height())));

        // A journal column: laid out no wider than the print over kMinTextScale, scaled to 3.5 in.
        run = runCli(figureArgs(v.spec, base + QStringLiteral("-column.png")) << QStringLiteral("--width")
                                                                               << QStringLiteral("3.5in"));
        QVERIFY2(run.exitCode == 0, qPrintable(what + QStringLiteral(": ") + run.err));
        const QImage column(base + QStringLiteral("-column.png"));
        QCOMPARE(column.width(), 1050);
        QCOMPARE(column.dotsPerMeterX(), qRound(300 / 0.0254));
        const double print = 3.5 * 96, laidOut = std::clamp(double(image.width()), print, print / attnui::kMinTextScale);
        const double pixels = print / laidOut * 300 / 96;   // device pixels per logical pixel of the layout
        const double columnAspect = column.width() / (column.height() - attnui::figureCaptionHeight(v.figure, v.caption, qRound(laidOut)) * pixels);
        QVERIFY2(columnAspect >= v.minAspect * 0.98 && columnAspect <= v.maxAspect * 1.02,
                 qPrintable(QStringLiteral("%1 at 3.5 in: aspect %2, outside %3..%4").arg(what).arg(columnAspect)
                                .arg(v.minAspect).arg(v.maxAspect)));

        // No widget chrome: controls are left out, hover hints are not drawn.
        run = runCli(figureArgs(v.spec, base + QStringLiteral(".svg")));
        QVERIFY2(run.exitCode == 0, qPrintable(what + QStringLiteral(": ") + run.err));
        QFile svg(base + QStringLiteral(".svg"));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QStringList texts = svgTexts(QString::fromUtf8(svg.readAll()));
        for (const QString &t : texts) {
            QVERIFY2(!t.contains(QLatin1String("Hover"), Qt::CaseInsensitive) &&
                         !t.contains(QLatin1String("click"), Qt::CaseInsensitive),
                     qPrintable(QStringLiteral("%1: a hint is drawn: '%2'").arg(what, t)));
        }
        // A control's text is drawn no more often than the figure's own labels say it (the line view's legend
        // reads "H0" once; its check box "H0" would make it twice).
        for (const QString &c : v.controls)
            QVERIFY2(texts.count(c) <= v.labelWords.count(c),
                     qPrintable(QStringLiteral("%1: a control is drawn: '%2'").arg(what, c)));
    }
}

void TestCliFigure::docExamplesRun()
{
    // Every `attnscope-cli figure` line in the ```sh blocks of docs/cli.md, writing into the temporary folder.
    QFile doc(QStringLiteral(ATTNSCOPE_DOCS_DIR "/cli.md"));
    QVERIFY(doc.open(QIODevice::ReadOnly | QIODevice::Text));
    int examples = 0;
    bool inShell = false;
    for (const QString &line : QString::fromUtf8(doc.readAll()).split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1String("```"))) inShell = line == QLatin1String("```sh");
        if (!inShell || !line.startsWith(QLatin1String("attnscope-cli figure "))) continue;
        QStringList args = QProcess::splitCommand(line).mid(1);
        const int out = args.indexOf(QStringLiteral("--out"));
        QVERIFY2(out >= 0 && out + 1 < args.size(), qPrintable(line));
        args[out + 1] = m_dir.filePath(QStringLiteral("doc%1-").arg(examples) + QFileInfo(args[out + 1]).fileName());
        // The examples run from the repository root: an image path in them is relative to it.
        if (const int image = args.indexOf(QStringLiteral("--image")); image >= 0 && image + 1 < args.size())
            args[image + 1] = QStringLiteral(ATTNSCOPE_DOCS_DIR "/../") + args[image + 1];
        const CliRun run = runCli(args);
        QVERIFY2(run.exitCode == 0, qPrintable(line + QStringLiteral("\n") + run.err));
        QVERIFY(QFileInfo(args[out + 1]).size() > 1000);
        ++examples;
    }
    QVERIFY2(examples >= 3, "docs/cli.md lost its figure examples");
}

void TestCliFigure::badViewIsAnArgumentError_data()
{
    QTest::addColumn<QString>("view");
    QTest::addRow("unknown view") << QStringLiteral("nosuchview");
    QTest::addRow("head outside the model") << QStringLiteral("head:9.0");
    QTest::addRow("head without L.H") << QStringLiteral("head:1");
    QTest::addRow("layer outside the model") << QStringLiteral("lines:7");
    QTest::addRow("argument where none is taken") << QStringLiteral("statistics:2");
}

void TestCliFigure::badViewIsAnArgumentError()
{
    QFETCH(QString, view);
    const QString out = m_dir.filePath(QStringLiteral("bad.png"));
    const CliRun run = runCli({QStringLiteral("figure"), QStringLiteral("--model"), kModel, QStringLiteral("--text"), kText,
                               QStringLiteral("--view"), view, QStringLiteral("--out"), out});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(QStringLiteral("--view")), qPrintable(run.err));
    QVERIFY(!QFileInfo::exists(out));
}

void TestCliFigure::unwritableOutputLeavesNoFile()
{
    const QString out = m_dir.filePath(QStringLiteral("no-such-folder/fig.svg"));
    const CliRun run = runCli({QStringLiteral("figure"), QStringLiteral("--model"), kModel, QStringLiteral("--text"), kText,
                               QStringLiteral("--view"), QStringLiteral("head:0.0"), QStringLiteral("--out"), out});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(out), qPrintable(run.err));
    QVERIFY(!QFileInfo::exists(out));
    QVERIFY(!QFileInfo::exists(QFileInfo(out).absolutePath()));
}

// --mask and --pad reach the Explore run: on the causal GPT-2 sample a bidirectional head map has weights above
// the diagonal, so its SVG and PNG differ from the causal one; so does a map with padding keys.
void TestCliFigure::maskAndPadChangeTheFigure()
{
    QHash<QString, QByteArray> files;
    const QList<QStringList> variants = {{}, {QStringLiteral("--mask"), QStringLiteral("causal")},
                                         {QStringLiteral("--mask"), QStringLiteral("bidirectional")},
                                         {QStringLiteral("--pad"), QStringLiteral("2")}};
    for (const QStringList &extra : variants)
        for (const char *suffix : {"svg", "png"}) {
            const QString name = (extra.isEmpty() ? QStringLiteral("model") : extra.join(QLatin1Char('_')).remove(QLatin1Char('-'))) +
                                 QLatin1Char('.') + QLatin1String(suffix);
            const QString out = m_dir.filePath(QStringLiteral("mask-") + name);
            const CliRun run = runCli(QStringList{QStringLiteral("figure"), QStringLiteral("--model"), kModel,
                                                  QStringLiteral("--text"), kText, QStringLiteral("--view"),
                                                  QStringLiteral("head:0.1"), QStringLiteral("--out"), out,
                                                  QStringLiteral("--size"), QStringLiteral("700x500")} + extra);
            QVERIFY2(run.exitCode == 0, qPrintable(QStringLiteral("%1: exit %2: %3").arg(name).arg(run.exitCode).arg(run.err)));
            QFile file(out);
            QVERIFY(file.open(QIODevice::ReadOnly));
            files[name] = file.readAll();
        }
    for (const char *suffix : {".svg", ".png"}) {
        const QString s = QLatin1String(suffix);
        QVERIFY2(files["mask_bidirectional" + s] != files["mask_causal" + s], suffix);
        QVERIFY2(files["pad_2" + s] != files["model" + s], suffix);
    }
    // The padded figure labels the padding tokens too: more <text> labels than the plain one.
    QVERIFY(svgTexts(QString::fromUtf8(files["pad_2.svg"])).size() > svgTexts(QString::fromUtf8(files["model.svg"])).size());
    QVERIFY(files["mask_bidirectional.svg"].contains("bidirectional"));   // the caption names the mask

    // What the figure drew: the Explore run with the Subject's options. Bidirectional on GPT-2: nothing masked,
    // weight above the diagonal; padding: the padding keys masked, their columns exactly 0.
    auto opened = attn::TextModel::open(kModel.toStdString());
    QVERIFY(opened.isOk());
    attnui::Subject subject;
    subject.setModel(std::make_shared<const attn::TextModel>(std::move(*opened)), kModel);
    subject.setText(kText);
    for (const int padding : {0, 2}) {
        subject.setRunOptions(attn::MaskSpec::bidirectional(), padding);
        std::unique_ptr<attnui::ExploreView> explore;
        for (attnui::Workspace *w : attnui::createWorkspaces(&subject)) {
            if (!explore) explore.reset(dynamic_cast<attnui::ExploreView *>(w));
            if (explore.get() != w) delete w;
        }
        QVERIFY(explore);
        explore->resize(1400, 900);
        explore->show();
        settle(explore.get());
        const auto snap = explore->snapshot();
        QVERIFY(snap);
        const int L = int(snap->tokens.size());
        const std::vector<float> &w = snap->weights[1];   // head 0.1
        QCOMPARE(w.size(), std::size_t(L) * L);
        double above = 0;
        for (int i = 0; i < L; ++i)
            for (int j = 0; j < L; ++j) {
                const bool pad = j >= L - padding;
                QCOMPARE(snap->masked[std::size_t(i) * L + j], std::uint8_t(pad ? 1 : 0));
                if (pad) QCOMPARE(w[std::size_t(i) * L + j], 0.0f);
                else if (j > i) above += w[std::size_t(i) * L + j];
            }
        QVERIFY2(above > 0.1, qPrintable(QString::number(above)));
    }
}

void TestCliFigure::runOptionsTheViewCannotHonour_data()
{
    QTest::addColumn<QString>("view");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("names");
    QString other;
    for (const auto &[title, spec] : registeredViews())
        if (title != QLatin1String("Explore") && other.isEmpty()) other = spec;
    QVERIFY(!other.isEmpty());
    QTest::addRow("--mask, %s", qPrintable(other)) << other << QStringList{"--mask", "bidirectional"} << "--mask";
    QTest::addRow("--pad, %s", qPrintable(other)) << other << QStringList{"--pad", "1"} << "--pad";
    QTest::addRow("--heads") << QStringLiteral("head:0.1") << QStringList{"--heads", "0.1"} << "--heads";
    QTest::addRow("bad --mask") << QStringLiteral("head:0.1") << QStringList{"--mask", "sideways"} << "--mask";
    QTest::addRow("negative --pad") << QStringLiteral("head:0.1") << QStringList{"--pad", "-1"} << "--pad";
    QTest::addRow("--quiet --progress") << QStringLiteral("head:0.1") << QStringList{"--quiet", "--progress"} << "--quiet";
    QTest::addRow("bad --scale") << QStringLiteral("head:0.1") << QStringList{"--scale", "pct:100"} << "--scale";
    QTest::addRow("--width with --size") << QStringLiteral("head:0.1") << QStringList{"--width", "3.5in", "--size", "700x500"} << "--width";
    QTest::addRow("bad --width") << QStringLiteral("head:0.1") << QStringList{"--width", "40in"} << "--width";
}

void TestCliFigure::runOptionsTheViewCannotHonour()
{
    QFETCH(QString, view);
    QFETCH(QStringList, extra);
    QFETCH(QString, names);
    const QString out = m_dir.filePath(QStringLiteral("cannot.png"));
    const CliRun run = runCli(QStringList{QStringLiteral("figure"), QStringLiteral("--model"), kModel,
                                          QStringLiteral("--text"), kText, QStringLiteral("--view"), view,
                                          QStringLiteral("--out"), out} + extra);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(names), qPrintable(run.err));
    if (names != QLatin1String("--heads") && names != QLatin1String("--scale") && names != QLatin1String("--width") && extra.first() != QLatin1String("--quiet") && extra.size() == 2 &&
        !extra.contains(QStringLiteral("sideways")) && !extra.contains(QStringLiteral("-1")))
        QVERIFY2(run.err.contains(view), qPrintable(run.err));   // the view that cannot honour it is named
    QVERIFY(!QFileInfo::exists(out));
}

void TestCliFigure::quietAndProgress()
{
    const QStringList args{QStringLiteral("figure"), QStringLiteral("--model"), kModel, QStringLiteral("--text"), kText,
                           QStringLiteral("--view"), QStringLiteral("head:0.0"), QStringLiteral("--out"),
                           m_dir.filePath(QStringLiteral("quiet.svg"))};
    CliRun run = runCli(args);   // stderr is a pipe, not a terminal: no progress
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(!run.err.contains(QStringLiteral("attnscope-cli figure:")), qPrintable(run.err));
    run = runCli(args + QStringList{QStringLiteral("--quiet")});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.err.isEmpty(), qPrintable(run.err));
    run = runCli(args + QStringList{QStringLiteral("--progress")});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.err.contains(QStringLiteral("attnscope-cli figure: wrote")), qPrintable(run.err));
    // Errors still print under --quiet, with their exit codes.
    run = runCli({QStringLiteral("figure"), QStringLiteral("--model"), kModel, QStringLiteral("--text"), kText,
                  QStringLiteral("--view"), QStringLiteral("head:0.0"), QStringLiteral("--out"),
                  m_dir.filePath(QStringLiteral("no-such-folder/q.svg")), QStringLiteral("--quiet")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY(run.err.contains(QStringLiteral("no-such-folder")));
}

// A Vision Transformer's views (the Vision workspace), on the bundled sample and one of its card's images, in
// every format: a PNG of a sensible shape, an SVG whose text is real text, a PDF.
void TestCliFigure::visionViews_data()
{
    QTest::addColumn<QString>("view");
    QTest::addColumn<QStringList>("labels");   // drawn as <text> in the SVG
    QTest::addRow("overlay:1.1") << "overlay:1.1" << QStringList{"attention weight"};
    QTest::addRow("overlay:2.mean") << "overlay:2.mean" << QStringList{"attention weight"};
    QTest::addRow("overlay:rollout") << "overlay:rollout" << QStringList{"rollout relevance"};
    QTest::addRow("patches:0.2") << "patches:0.2" << QStringList{"CLS", "r0c0", "query token"};
}

void TestCliFigure::visionViews()
{
    QFETCH(QString, view);
    QFETCH(QStringList, labels);
    QFile examples(QStringLiteral(ATTNSCOPE_TEST_DATA_DIR "/../sample_models/shapes-vit/examples.json"));
    QVERIFY(examples.open(QIODevice::ReadOnly));
    const QString image = QStringLiteral(ATTNSCOPE_TEST_DATA_DIR "/../sample_models/shapes-vit/") +
                          QJsonDocument::fromJson(examples.readAll()).array().first().toObject().value("image").toString();
    const QString base = m_dir.filePath(QStringLiteral("vit-") + QString(view).replace(QLatin1Char(':'), QLatin1Char('_')));
    for (const char *suffix : {"png", "svg", "pdf"}) {
        const QString out = base + QLatin1Char('.') + QLatin1String(suffix);
        const CliRun run = runCli({QStringLiteral("figure"), QStringLiteral("--model"), QStringLiteral("sample:shapes-vit"),
                                   QStringLiteral("--image"), image, QStringLiteral("--view"), view, QStringLiteral("--out"),
                                   out, QStringLiteral("--dpi"), QStringLiteral("96")});
        QVERIFY2(run.exitCode == 0, qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(run.err)));
        QFile file(out);
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(out));
        const QByteArray bytes = file.readAll();
        if (qstrcmp(suffix, "png") == 0) {
            const QImage png = QImage::fromData(bytes, "PNG");
            QVERIFY(!png.isNull());
            QVERIFY2(png.width() >= 400 && png.height() >= 350, qPrintable(QStringLiteral("%1x%2").arg(png.width()).arg(png.height())));
            QVERIFY2(double(png.width()) / png.height() <= 2.0, "a squashed strip");
        } else if (qstrcmp(suffix, "svg") == 0) {
            const QStringList texts = svgTexts(QString::fromUtf8(bytes));
            for (const QString &label : labels)
                QVERIFY2(texts.join(' ').contains(label), qPrintable(QStringLiteral("no <text> '%1' in %2").arg(label, texts.join('|'))));
        } else {
            QVERIFY(bytes.startsWith("%PDF-"));
        }
    }
}

void TestCliFigure::encoderDecoderViews_data()
{
    QTest::addColumn<QString>("view");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QStringList>("labels");   // drawn as <text> in the SVG
    const QStringList source{"the", "big", "dog", "saw", "red", "cat"}, target{"le", "hund", "gros", "rojo", "vido"};
    QTest::addRow("head:enc:0.1") << "head:enc:0.1" << QStringList{} << source;
    QTest::addRow("head:dec:1.mean") << "head:dec:1.mean" << QStringList{} << QStringList{"hund", "gros"};
    QTest::addRow("head:cross:1.0") << "head:cross:1.0" << QStringList{} << source + target;
    QTest::addRow("align:1.mean") << "align:1.mean" << QStringList{} << source + target;
    QTest::addRow("generation:3") << "generation:3" << QStringList{} << source + QStringList{"le", "hund", "gros"};
    QTest::addRow("align teacher-forced") << "align:1.0"
                                          << QStringList{"--target-text", "le hund gros un gato rojo ha vido"}
                                          << source + target;
}

void TestCliFigure::encoderDecoderViews()
{
    QFETCH(QString, view);
    QFETCH(QStringList, extra);
    QFETCH(QStringList, labels);
    const QString base = m_dir.filePath(QStringLiteral("s2s-") + QString(view).replace(QLatin1Char(':'), QLatin1Char('_')) +
                                        QString::number(extra.size()));
    for (const char *suffix : {"png", "svg"}) {
        const QString out = base + QLatin1Char('.') + QLatin1String(suffix);
        const CliRun run = runCli(QStringList{QStringLiteral("figure"), QStringLiteral("--model"),
                                              QStringLiteral("sample:translation-t5"), QStringLiteral("--text"),
                                              QStringLiteral("the big dog saw a red cat"), QStringLiteral("--view"), view,
                                              QStringLiteral("--out"), out, QStringLiteral("--dpi"), QStringLiteral("96")}
                                  + extra);
        QVERIFY2(run.exitCode == 0, qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(run.err)));
        QFile file(out);
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(out));
        const QByteArray bytes = file.readAll();
        if (qstrcmp(suffix, "png") == 0) {
            const QImage image = QImage::fromData(bytes, "PNG");
            QVERIFY(!image.isNull());
            QVERIFY2(image.width() >= 400 && image.height() >= 300,
                     qPrintable(QStringLiteral("%1x%2").arg(image.width()).arg(image.height())));
            QVERIFY2(double(image.width()) / image.height() <= 4.5, "a squashed strip");
        } else {
            const QStringList texts = svgTexts(QString::fromUtf8(bytes));
            for (const QString &label : labels)
                QVERIFY2(texts.contains(label), qPrintable(QStringLiteral("no <text> '%1' in %2").arg(label, texts.join('|'))));
            for (const QString &t : texts)
                QVERIFY2(!t.contains(QLatin1String("Hover"), Qt::CaseInsensitive), qPrintable(t));
        }
    }
}

void TestCliFigure::encoderDecoderOptionsAreChecked_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QStringList t5{"figure", "--model", "sample:translation-t5", "--text", "the dog saw a cat", "--out"};
    const QStringList gpt{"figure", "--model", "sample:induction-gpt2", "--text", "bo he so", "--out"};
    QTest::addRow("target on a decoder-only model") << gpt + QStringList{"x.png", "--view", "grid", "--target-text", "a"}
                                                    << "--target-text";
    QTest::addRow("seq2seq view of a text model") << gpt + QStringList{"x.png", "--view", "align:0.0"} << "align:0.0";
    QTest::addRow("Explore view of a T5") << t5 + QStringList{"x.png", "--view", "grid"} << "encoder-decoder";
    QTest::addRow("pad on a T5") << t5 + QStringList{"x.png", "--view", "align:0.0", "--pad", "2"} << "--pad";
    QTest::addRow("head outside") << t5 + QStringList{"x.png", "--view", "head:cross:2.0"} << "head:cross:2.0";
    QTest::addRow("target and max-new-tokens")
        << t5 + QStringList{"x.png", "--view", "align:0.0", "--target-text", "le hund", "--max-new-tokens", "3"}
        << "--max-new-tokens";
}

void TestCliFigure::encoderDecoderOptionsAreChecked()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QStringList full = args;
    full[full.indexOf(QStringLiteral("x.png"))] = m_dir.filePath(QStringLiteral("refused.png"));
    const CliRun run = runCli(full);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(message), qPrintable(run.err));
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("refused.png"))));
}

QTEST_MAIN(TestCliFigure)
#include "tst_cli_figure.moc"
