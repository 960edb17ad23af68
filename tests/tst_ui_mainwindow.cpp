// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow offscreen: it opens on a sample model with its first example and shows its tokens and heads, the
// model picker lists the samples, a head can be enlarged from the overview or the statistics table, bad input
// and bad folders show an error once while the last result and model stay, the raw experiment is still there,
// figures export (every workspace's, as vectors), the Backend menu greys out CUDA with the reason, presentation
// mode hides the chrome, enlarges type and saves the figure with one key.

#include "shell/buildinfo.h"
#include "shell/helpmenu.h"
#include "shell/mainwindow.h"
#include "plots/headgrid.h"
#include "plots/heatmapplot.h"
#include "workspaces/explore/modelrun.h"
#include "models/headstatsmodel.h"
#include "workspaces/explore/aggregationpanel.h"
#include "workspaces/explore/exploreview.h"
#include "workspaces/explore/headstatspanel.h"
#include "workspaces/explore/outputspanel.h"
#include "workspaces/pipeline/pipelinestages.h"
#include "workspaces/pipeline/pipelineview.h"
#include "kit/tokenchips.h"
#include "runner/enginerunner.h"
#include "kit/subject.h"
#include "kit/workspace.h"
#include "kit/texteditor.h"
#include "session/session.h"

#include <attnscope/attention.h>
#include <attnscope/textmodel.h>

#include <QClipboard>
#include <QComboBox>
#include <QLabel>
#include <QMenuBar>
#include <QStatusBar>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QDialog>
#include <QTextBrowser>

#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace attnui;

class TestUiMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void opensAndShowsAHeatmap();
    void helpPagesAndWorkspaceKeys();
    void modelPickerListsSamples();
    void encoderDecoderFolderOpensInItsWorkspace();
    void visionFolderOpensInItsWorkspace();
    void clickingAHeadEnlargesIt();
    void statisticsRowOpensTheHead();
    void aggregationsAndOutputsAreFilled();
    void badInputKeepsTheLastResult();
    void badFolderKeepsTheModel();
    void badFolderAtStartSaysWhy();
    void overlongTextIsRefused();
    void exampleHintFollowsTheText();
    void statusBarFollowsTheTabShown();
    void rawExperimentStaysAvailable();
    void pipelineFollowsExplore();
    void viewMenuSettingsApply();
    void exportsTheCurrentFigure();
    void exportsEveryWorkspacesFigure();
    void backendMenuExplainsCuda();
    void presentationModeExportsWithOneKey();
    void aboutNamesVersionsAndBackends();
    void exploreFollowsTheSubject();
};

void TestUiMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);   // settings go to a test location, never the user's
    QCoreApplication::setOrganizationName(QStringLiteral("AttnScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_ui_mainwindow"));
    QSettings().clear();
}

namespace {

// Waits for the first model result of a fresh window.
bool waitForModel(MainWindow &w)
{
    ExploreView *explore = w.explore();
    return QTest::qWaitFor([explore] { return explore->snapshot() != nullptr && explore->currentModel() != nullptr; },
                           20000);
}

} // namespace

void TestUiMainWindow::opensAndShowsAHeatmap()
{
    QVERIFY2(!attn::listSampleModels().empty(), "no sample model found");
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.findChild<QTabWidget *>()->count(), w.workspaces().size());   // one tab per registered workspace
    ExploreView *explore = w.explore();
    QVERIFY(waitForModel(w));
    // The default sample (induction-gpt2 when present, else the first), on its first example.
    const QString spec = QString::fromStdString(explore->currentModel()->spec());
    QCOMPARE(spec, ExploreView::defaultModelSpec());
    QStringList examples, hints;
    readExamples(QString::fromStdString(*attn::resolveModelSpec(spec.toStdString())), &examples, &hints);
    if (!examples.isEmpty()) QCOMPARE(explore->text(), examples.first());
    // Tokens come from the model's tokenizer and show as chips and as the heatmap's labels.
    auto tokenized = explore->currentModel()->tokenize(explore->text().toStdString());
    QVERIFY(tokenized.isOk());
    const int L = int(tokenized->ids.size());
    QCOMPARE(explore->chips()->tokens().size(), L);
    QCOMPARE(explore->chips()->tokens().first(), tokenDisplayLabel(tokenized->labels.front()));
    for (int i = 0; i < L; ++i) QCOMPARE(explore->chips()->isSpecial(i), bool(tokenized->special[std::size_t(i)]));
    HeatmapPlot *plot = explore->currentFigure();
    QCOMPARE(plot->data().rows, L);
    QCOMPARE(plot->data().rowLabels, explore->chips()->tokens());
    QCOMPARE(int(plot->data().scores.size()), L * L);   // hover shows the raw score
    QVERIFY2(plot->title().startsWith(QStringLiteral("L0 H0 of ")), qPrintable(plot->title()));
    const attn::ModelConfig &config = explore->currentModel()->model().config();
    QCOMPARE(explore->headGrid()->layers(), int(config.layers));
    QCOMPARE(explore->headGrid()->heads(), int(config.heads));
    QTRY_VERIFY(w.statusText().contains(QStringLiteral("last run")));
    QVERIFY2(QRegularExpression(QStringLiteral("^backend: [a-z]+ · ")).match(w.statusText()).hasMatch(), qPrintable(w.statusText()));
    QVERIFY(explore->errorText().isEmpty());
}

// The status bar follows the tab shown: a workspace that has not run says so (never an empty "backend:"), and
// Explore's runs while another tab is shown do not write over it.
void TestUiMainWindow::statusBarFollowsTheTabShown()
{
    MainWindow w;
    w.show();
    QVERIFY(waitForModel(w));
    Workspace *compare = w.findWorkspace(QStringLiteral("compare"));
    Workspace *faithfulness = w.findWorkspace(QStringLiteral("faithfulness"));
    QVERIFY(compare && faithfulness);
    const auto runStatus = [&w] { return w.statusText().section(QStringLiteral(" · "), 0, 1); };
    QVERIFY(w.showWorkspace(QStringLiteral("compare")));   // hidden until now, so it has not run
    QCOMPARE(runStatus(), QStringLiteral("backend: not run yet · no run yet"));
    QTRY_VERIFY_WITH_TIMEOUT(runStatus().contains(QStringLiteral("last run")) && !compare->runner()->isBusy(), 30000);
    const QString shown = runStatus();
    QVERIFY2(QRegularExpression(QStringLiteral("^backend: [a-z]+ · last run ")).match(shown).hasMatch(), qPrintable(shown));
    QSignalSpy exploreDone(w.explore()->runner(), &EngineRunner::finished);
    w.explore()->rerun();   // Explore runs behind Compare: the status bar keeps Compare's run
    QVERIFY(exploreDone.wait(20000));
    QCOMPARE(runStatus(), shown);
    // Faithfulness runs on the Backend menu's choice and names it (it used to leave "backend: " empty).
    QVERIFY(w.showWorkspace(QStringLiteral("faithfulness")));
    QTRY_VERIFY_WITH_TIMEOUT(runStatus().contains(QStringLiteral("last run")) && !faithfulness->runner()->isBusy(), 60000);
    QVERIFY2(QRegularExpression(QStringLiteral("^backend: [a-z]+ · last run ")).match(runStatus()).hasMatch(), qPrintable(runStatus()));
}

void TestUiMainWindow::modelPickerListsSamples()
{
    MainWindow w;
    QComboBox *picker = w.explore()->modelPicker();
    // Text models only: an encoder–decoder sample is the Encoder–Decoder workspace's, a ViT the Vision workspace's.
    for (const attn::SampleModelInfo &s : attn::listSampleModels())
        QVERIFY2((picker->findData(QStringLiteral("sample:") + QString::fromStdString(s.name)) >= 0) != (s.encoderDecoder || s.vision),
                 s.name.c_str());
    QVERIFY(picker->findText(QStringLiteral("Random attention layer"), Qt::MatchStartsWith) >= 0);
    QVERIFY(picker->findText(QStringLiteral("Open Folder"), Qt::MatchStartsWith) >= 0);
    QVERIFY(waitForModel(w));
    QCOMPARE(picker->currentData().toString(), ExploreView::defaultModelSpec());

    // A folder opened by path (as by drag-and-drop) becomes current and joins the recent folders.
    QString folder;
    for (const attn::SampleModelInfo &s : attn::listSampleModels())
        if (s.name.find("gpt2") != std::string::npos) folder = QString::fromStdString(s.folder);
    if (folder.isEmpty()) QSKIP("no GPT-2 sample model to open by folder");
    const auto before = w.explore()->currentModel();
    w.openModel(folder);
    QTRY_VERIFY2_WITH_TIMEOUT(w.explore()->currentModel() != before && !w.explore()->isLoading(), qPrintable(w.explore()->errorText()), 20000);
    QCOMPARE(QString::fromStdString(w.explore()->currentModel()->spec()), folder);
    QVERIFY(ExploreView::recentModels().contains(QFileInfo(folder).absoluteFilePath()));
    QVERIFY(picker->findData(QFileInfo(folder).absoluteFilePath()) >= 0);
}

void TestUiMainWindow::encoderDecoderFolderOpensInItsWorkspace()
{
    // Opened by path (File ▸ Open Folder, drag-and-drop): a T5 folder is no text model, so Explore keeps its model
    // and the Encoder–Decoder workspace opens it and runs its first example.
    QString folder;
    for (const attn::SampleModelInfo &s : attn::listSampleModels())
        if (s.encoderDecoder) folder = QString::fromStdString(s.folder);
    if (folder.isEmpty()) QSKIP("no encoder-decoder sample model");
    MainWindow w;
    w.show();
    QVERIFY(waitForModel(w));
    const auto before = w.explore()->currentModel();
    w.openModel(folder);
    Workspace *current = w.findWorkspace(QStringLiteral("Encoder–Decoder"));
    QVERIFY(current);
    QCOMPARE(w.currentWorkspace(), current);
    QCOMPARE(current->sessionState().value("model").toString(), folder);
    QVERIFY(current->runner()->waitForIdle(60000));
    QTRY_VERIFY_WITH_TIMEOUT(current->figureWidget() != nullptr, 20000);
    QVERIFY2(current->errorText().isEmpty(), qPrintable(current->errorText()));
    QCOMPARE(w.explore()->currentModel(), before);
}

void TestUiMainWindow::visionFolderOpensInItsWorkspace()
{
    // A ViT folder is no text model either: the Vision workspace opens it; Explore keeps its model.
    const QString folder = QStringLiteral(ATTNSCOPE_TEST_DATA_DIR "/fixtures/models/vit-cls-d48h3");
    MainWindow w;
    w.show();
    QVERIFY(waitForModel(w));
    const auto before = w.explore()->currentModel();
    w.openModel(folder);
    Workspace *vision = w.findWorkspace(QStringLiteral("Vision"));
    QVERIFY(vision);
    QCOMPARE(w.currentWorkspace(), vision);
    QCOMPARE(vision->sessionState().value("model").toString(), folder);
    // An image (as dropped on the window) goes to it too.
    w.openImage(QStringLiteral(ATTNSCOPE_TEST_DATA_DIR "/fixtures/vision/gradient_45x37.png"));
    QVERIFY(vision->runner()->waitForIdle(60000));
    QTRY_VERIFY_WITH_TIMEOUT(vision->figureWidget() != nullptr, 20000);
    QVERIFY2(vision->errorText().isEmpty(), qPrintable(vision->errorText()));
    QCOMPARE(w.explore()->currentModel(), before);
}

void TestUiMainWindow::clickingAHeadEnlargesIt()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    ExploreView *explore = w.explore();
    QVERIFY(waitForModel(w));
    HeadGrid *grid = explore->headGrid();
    QVERIFY(grid->heads() >= 3);
    QTest::mouseClick(grid, Qt::LeftButton, {}, grid->thumbnailRect(0, 2).center());
    QCOMPARE(grid->selectedHead(), 2);
    QVERIFY2(explore->currentFigure()->title().startsWith(QStringLiteral("L0 H2 of ")),
             qPrintable(explore->currentFigure()->title()));
}

void TestUiMainWindow::statisticsRowOpensTheHead()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    ExploreView *explore = w.explore();
    QVERIFY(waitForModel(w));
    HeadStatsPanel *stats = explore->statisticsPanel();
    const auto s = explore->snapshot();
    QCOMPARE(stats->model()->rowCount(), s->layers * s->heads);
    explore->setCurrentTab(ExploreView::StatisticsTab);
    QCOMPARE(explore->currentFigure(), stats->plot());
    QCOMPARE(stats->plot()->data().rows, s->layers);
    // Sort by previous-token score, descending: the top row is the head with the largest score.
    stats->proxy()->sort(HeadStatsModel::PreviousToken, Qt::DescendingOrder);
    const QModelIndex top = stats->proxy()->index(0, 0);
    const int layer = top.data(HeadStatsModel::LayerRole).toInt(), head = top.data(HeadStatsModel::HeadRole).toInt();
    for (const attn::HeadStatistics &h : s->stats) QVERIFY(h.previousToken <= s->stats[std::size_t(layer * s->heads + head)].previousToken);
    QTableView *table = stats->table();
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(top).center());
    QCOMPARE(explore->headGrid()->selectedLayer(), layer);
    QCOMPARE(explore->headGrid()->selectedHead(), head);
    QCOMPARE(explore->currentFigure(), explore->headPlot());   // back on the head tab
}

void TestUiMainWindow::aggregationsAndOutputsAreFilled()
{
    MainWindow w;
    ExploreView *explore = w.explore();
    QVERIFY(waitForModel(w));
    const auto s = explore->snapshot();
    const int L = s->length();
    AggregationPanel *agg = explore->aggregationPanel();
    // Flow waits for its tab: shown, the view re-runs with it.
    QVERIFY(s->flowDeferred && s->flow.empty());
    explore->setCurrentTab(ExploreView::AggregationTab);
    QTRY_VERIFY_WITH_TIMEOUT(!explore->snapshot()->flow.empty(), 20000);
    const auto withFlow = explore->snapshot();
    QCOMPARE(int(withFlow->flow.size()), L * L);
    QCOMPARE(agg->meanPlot()->data().rows, L);
    QCOMPARE(agg->aggregatePlot()->data().rows, L);
    QVERIFY(agg->aggregatePlot()->title().contains(QStringLiteral("rollout")));
    agg->setMethod(AggregationPanel::Method::Flow);
    QVERIFY(agg->aggregatePlot()->title().contains(QStringLiteral("flow")));
    QCOMPARE(agg->aggregatePlot()->data().values.size(), withFlow->flow.size());
    QVERIFY(!explore->outputsPanel()->headline().isEmpty());
}

void TestUiMainWindow::badInputKeepsTheLastResult()
{
    MainWindow w;
    w.show();
    ExploreView *explore = w.explore();
    QVERIFY(waitForModel(w));
    const auto before = explore->snapshot();
    const int rows = explore->currentFigure()->data().rows;
    explore->setText(QStringLiteral("   "));
    QTRY_VERIFY_WITH_TIMEOUT(!explore->errorText().isEmpty(), 10000);
    QVERIFY(explore->errorText().contains(QStringLiteral("empty")));
    QCOMPARE(explore->snapshot(), before);   // still on screen
    QCOMPARE(explore->currentFigure()->data().rows, rows);
    // Longer than the model's positions: the message says so.
    const int positions = int(explore->currentModel()->model().config().maxPositions);
    if (positions > 0) {
        explore->setText(QString(QStringLiteral("the ")).repeated(positions + 10));
        QTRY_VERIFY_WITH_TIMEOUT(explore->errorText().contains(QStringLiteral("positions")), 10000);
        QCOMPARE(explore->snapshot(), before);
    }
    explore->setText(QStringLiteral("the dog"));
    QTRY_VERIFY_WITH_TIMEOUT(explore->snapshot() != before, 10000);
    QVERIFY(explore->errorText().isEmpty());
}

void TestUiMainWindow::badFolderKeepsTheModel()
{
    MainWindow w;
    ExploreView *explore = w.explore();
    QVERIFY(waitForModel(w));
    const auto model = explore->currentModel();
    const auto before = explore->snapshot();
    QTemporaryDir empty;
    w.openModel(empty.path());
    QTRY_VERIFY_WITH_TIMEOUT(!explore->noticeText().isEmpty(), 10000);
    const QString notice = explore->noticeText();
    QVERIFY2(notice.contains(QFileInfo(empty.path()).fileName()), qPrintable(notice));
    QVERIFY2(notice.contains(QStringLiteral("Showing %1 instead").arg(QString::fromStdString(model->displayName()))),
             qPrintable(notice));
    QCOMPARE(explore->currentModel(), model);
    QCOMPARE(explore->snapshot(), before);
    QCOMPARE(explore->modelPicker()->currentData().toString(), QString::fromStdString(model->spec()));
    // Still usable: an edit runs on the same model; the notice stays until the user closes it or a model opens.
    explore->setText(QStringLiteral("the cat"));
    QTRY_VERIFY_WITH_TIMEOUT(explore->snapshot() != before, 10000);
    QCOMPARE(explore->currentModel(), model);
    QVERIFY(explore->errorText().isEmpty());
    QCOMPARE(explore->noticeText(), notice);
    w.openModel(QString::fromStdString(model->spec()));
    QTRY_VERIFY_WITH_TIMEOUT(explore->noticeText().isEmpty() && !explore->isLoading(), 20000);
}

// `attnscope /a/bad/folder` at start: nothing else is open, the random attention layer is shown, and the window
// keeps saying why (the run of the fallback used to hide the message at once).
void TestUiMainWindow::badFolderAtStartSaysWhy()
{
    QTemporaryDir empty;
    MainWindow w;
    w.show();
    ExploreView *explore = w.explore();
    w.openModel(empty.path());
    QTRY_VERIFY_WITH_TIMEOUT(explore->snapshot() && explore->snapshot()->source.contains(QStringLiteral("random")) &&
                                 !w.runner()->isBusy(), 20000);
    QVERIFY(!explore->currentModel());
    const QString notice = explore->noticeText();
    QVERIFY2(notice.contains(QFileInfo(empty.path()).fileName()) &&
                 notice.contains(QStringLiteral("Showing the random attention layer instead")), qPrintable(notice));
}

// A paste or a keystroke that would make the text longer than kMaxTextChars is refused whole: the text and the
// result stay, the banner says why (issue 14: a 180 MB text crashed Qt's text layout).
void TestUiMainWindow::overlongTextIsRefused()
{
    MainWindow w;
    w.show();
    ExploreView *explore = w.explore();
    QVERIFY(waitForModel(w));
    explore->setText(QStringLiteral("the dog"));
    QTRY_VERIFY_WITH_TIMEOUT(!w.runner()->isBusy() && !explore->hasPendingRun(), 10000);
    const auto before = explore->snapshot();
    auto *editor = explore->findChild<TextEditor *>();
    QVERIFY(editor);
    editor->moveCursor(QTextCursor::End);
    QGuiApplication::clipboard()->setText(QString(kMaxTextChars - 6, QLatin1Char('x')));
    QSignalSpy refused(editor, &TextEditor::refused);
    editor->paste();
    QCOMPARE(refused.count(), 1);
    QCOMPARE(explore->text(), QStringLiteral("the dog"));
    QVERIFY2(explore->errorText().contains(QStringLiteral("1000001 characters; the limit is 1000000")),
             qPrintable(explore->errorText()));
    QCOMPARE(explore->snapshot(), before);
    // A text that fits is pasted as usual.
    QGuiApplication::clipboard()->setText(QStringLiteral(" and the cat"));
    editor->paste();
    QCOMPARE(explore->text(), QStringLiteral("the dog and the cat"));
    // Typing at the limit: refused; typing over a selection keeps the length and is taken.
    TextEditor full;
    full.setPlainText(QString(kMaxTextChars, QLatin1Char('a')));
    full.moveCursor(QTextCursor::End);
    QSignalSpy fullRefused(&full, &TextEditor::refused);
    QTest::keyClick(&full, Qt::Key_B);
    QCOMPARE(fullRefused.count(), 1);
    QCOMPARE(full.document()->characterCount() - 1, kMaxTextChars);
    // Enter and Tab add a character too.
    QTest::keyClick(&full, Qt::Key_Return);
    QTest::keyClick(&full, Qt::Key_Enter);
    QTest::keyClick(&full, Qt::Key_Tab);
    QCOMPARE(fullRefused.count(), 4);
    QCOMPARE(full.document()->characterCount() - 1, kMaxTextChars);
    full.moveCursor(QTextCursor::Left, QTextCursor::KeepAnchor);
    QTest::keyClick(&full, Qt::Key_B);
    QCOMPARE(fullRefused.count(), 4);
    const QString after = full.toPlainText();
    QCOMPARE(after.size(), kMaxTextChars);
    QCOMPARE(after.back(), QLatin1Char('b'));
}

// An example's "What to look for" names its heads and positions: it goes once the text is edited and comes back
// when the text is that example again.
void TestUiMainWindow::exampleHintFollowsTheText()
{
    MainWindow w;
    w.show();
    ExploreView *explore = w.explore();
    QVERIFY(waitForModel(w));
    auto *hint = explore->findChild<QLabel *>(QStringLiteral("exampleHint"));
    QVERIFY(hint);
    const QString example = explore->text();
    QVERIFY2(hint->isVisible() && hint->text().startsWith(QStringLiteral("What to look for")), qPrintable(hint->text()));
    const QString shown = hint->text();
    explore->setText(example + QStringLiteral(" and more"));
    QVERIFY(!hint->isVisible());
    explore->setText(example);
    QVERIFY(hint->isVisible());
    QCOMPARE(hint->text(), shown);
}

void TestUiMainWindow::rawExperimentStaysAvailable()
{
    MainWindow w;
    ExploreView *explore = w.explore();
    QVERIFY(waitForModel(w));
    explore->useRawExperiment();
    QTRY_VERIFY_WITH_TIMEOUT(explore->snapshot() && explore->snapshot()->source.contains(QStringLiteral("random")),
                             10000);
    QCOMPARE(explore->currentFigure()->data().rows, 11);   // the default sentence, one token per word
    QCOMPARE(explore->currentFigure()->data().rowLabels.first(), QStringLiteral("the"));
    QCOMPARE(explore->headGrid()->heads(), 4);
    // Rows 5 and 7 repeat "the": the raw experiment gets duplicate-token scores too.
    QVERIFY(!std::isnan(explore->snapshot()->stats.front().duplicateToken));
    QCOMPARE(explore->chips()->tokens(), explore->currentFigure()->data().rowLabels);
    // A text the run refuses: the old tokens stay beside the old heatmap (the chips used to change at once).
    const auto before = explore->snapshot();
    const QStringList tokens = explore->chips()->tokens();
    explore->setText(QStringLiteral("   "));
    QTRY_VERIFY_WITH_TIMEOUT(!explore->errorText().isEmpty(), 10000);
    QCOMPARE(explore->snapshot(), before);
    QCOMPARE(explore->chips()->tokens(), tokens);
    // An accepted one: new tokens with their result.
    explore->setText(QStringLiteral("a b c"));
    QTRY_VERIFY_WITH_TIMEOUT(explore->snapshot() != before, 10000);
    QCOMPARE(explore->chips()->tokens(), (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
    QCOMPARE(explore->currentFigure()->data().rowLabels, explore->chips()->tokens());
}

// Pipeline follows what Explore shows: the head a user picks there, and the raw experiment (no model: Pipeline runs
// its own small random model on Explore's text, saying so) instead of the model and text shown before.
void TestUiMainWindow::pipelineFollowsExplore()
{
    MainWindow w;
    w.show();
    QVERIFY(waitForModel(w));
    auto *pipeline = qobject_cast<PipelineView *>(w.findWorkspace(QStringLiteral("pipeline")));
    QVERIFY(pipeline);
    emit w.explore()->headGrid()->headClicked(1, 2);
    QCOMPARE(pipeline->settings().layer, 1);
    QCOMPARE(pipeline->settings().head, 2);
    QVERIFY(w.showWorkspace(QStringLiteral("pipeline")));
    QTRY_VERIFY_WITH_TIMEOUT(pipeline->snapshot() && !pipeline->runner()->isBusy() && !pipeline->hasPendingRun(), 30000);
    QCOMPARE(pipeline->snapshot()->model, w.explore()->currentModel());
    QCOMPARE(pipeline->snapshot()->text, w.explore()->text());
    const auto before = pipeline->snapshot();
    w.explore()->useRawExperiment();
    QVERIFY(!w.subject()->model());
    QCOMPARE(w.subject()->text(), w.explore()->text());
    QTRY_VERIFY_WITH_TIMEOUT(pipeline->snapshot() != before && !pipeline->runner()->isBusy() && !pipeline->hasPendingRun(),
                             30000);
    QCOMPARE(pipeline->snapshot()->text, w.explore()->text());
    QVERIFY2(pipeline->snapshot()->note.contains(QStringLiteral("raw experiment")), qPrintable(pipeline->snapshot()->note));
    QVERIFY(pipeline->snapshot()->model != before->model);
}

void TestUiMainWindow::viewMenuSettingsApply()
{
    {
        MainWindow w;
        w.setColorMap(ColorMap::Cividis);
        QCOMPARE(w.explore()->currentFigure()->colorMap(), ColorMap::Cividis);
        w.setTheme(Theme::Dark);
        QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 128);
        QTRY_VERIFY(w.explore()->currentFigure()->palette().color(QPalette::Window).lightness() < 128);
        // View ▸ Colour Scale reaches every workspace's weight heatmaps; More Contrast walks the percentile clips.
        QAction *log = nullptr;
        for (QAction *a : w.findChildren<QAction *>())
            if (a->text() == ColorScale{ScaleMode::Log}.title()) log = a;
        QVERIFY(log);
        log->trigger();
        for (Workspace *ws : w.workspaces()) {
            QCOMPARE(ws->colorScale().mode, ScaleMode::Log);
            for (HeatmapPlot *p : ws->findChildren<HeatmapPlot *>()) QCOMPARE(p->colorScale().mode, ScaleMode::Log);
        }
        w.setColorScale({});
        w.stepContrast(+1);
        QCOMPARE(w.explore()->currentFigure()->colorScale(), contrastSteps()[1]);
        w.stepContrast(+1);
        QCOMPARE(w.explore()->currentFigure()->colorScale(), contrastSteps()[2]);
        w.stepContrast(-1);
        QCOMPARE(w.explore()->colorScale(), contrastSteps()[1]);
        w.close();   // writes settings
    }
    MainWindow again;
    QCOMPARE(again.colorMap(), ColorMap::Cividis);
    QCOMPARE(again.theme(), Theme::Dark);
    QCOMPARE(again.explore()->colorScale(), contrastSteps()[1]);
    again.setTheme(Theme::Light);
    again.setColorMap(ColorMap::Viridis);
    again.setColorScale({});
    again.close();
}

void TestUiMainWindow::exportsTheCurrentFigure()
{
    QTemporaryDir dir;
    MainWindow w;
    w.show();
    QVERIFY(waitForModel(w));
    QString error;
    for (const char *name : {"fig.png", "fig.svg", "fig.pdf"}) {
        const QString path = dir.filePath(QString::fromLatin1(name));
        QVERIFY2(w.exportFigure(path, &error), qPrintable(error));
        QVERIFY(QFileInfo(path).size() > 1000);
    }
}

void TestUiMainWindow::exportsEveryWorkspacesFigure()
{
    QTemporaryDir dir;
    MainWindow w;
    w.show();
    QVERIFY(waitForModel(w));
    for (Workspace *ws : w.workspaces()) {
        w.showWorkspace(MainWindow::workspaceKey(ws));
        QVERIFY(QTest::qWaitFor([ws] { return !ws->runner()->isBusy() && ws->figureWidget(); }, 30000));
        QTest::qWait(300);
        const QString path = dir.filePath(MainWindow::workspaceKey(ws) + QStringLiteral(".svg"));
        QString error;
        QVERIFY2(w.exportFigure(path, &error), qPrintable(ws->title() + QStringLiteral(": ") + error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray svg = file.readAll();
        QVERIFY2(svg.count("<text") >= 3, qPrintable(ws->title()));   // labels are text, not one bitmap
        QVERIFY(svg.contains(ws->figureCaption().left(20).toHtmlEscaped().toUtf8()) ||
                svg.contains(ws->figureCaption().left(8).toUtf8()));
    }
}

void TestUiMainWindow::backendMenuExplainsCuda()
{
    MainWindow w;
    QAction *cuda = nullptr;
    for (QAction *a : w.findChildren<QAction *>())
        if (a->text().contains(QStringLiteral("CUDA"))) cuda = a;
    QVERIFY(cuda);
    QCOMPARE(cuda->isEnabled(), attn::cudaAvailable());
    if (!attn::cudaAvailable()) {
        const QString reason = QString::fromStdString(attn::cudaUnavailableReason());
        QVERIFY2(cuda->text().contains(reason), qPrintable(cuda->text()));
        QVERIFY(cuda->toolTip().contains(reason));
        w.setBackend(attn::Backend::Cuda);
        QCOMPARE(w.backend(), attn::Backend::Auto);   // refused where it cannot run
    }
    w.setBackend(attn::Backend::Reference);
    QCOMPARE(w.subject()->backend(), attn::Backend::Reference);
    w.setBackend(attn::Backend::Auto);
}

void TestUiMainWindow::presentationModeExportsWithOneKey()
{
    QTemporaryDir dir;
    MainWindow w;
    w.show();
    QVERIFY(waitForModel(w));
    const qreal normal = QApplication::font().pointSizeF();
    w.setPresentationFolder(dir.path());
    w.setPresentationMode(true);
    QVERIFY(w.isPresentationMode());
    QVERIFY(!w.menuBar()->isVisible());
    QVERIFY(!w.statusBar()->isVisible());
    QVERIFY(QApplication::font().pointSizeF() > normal * 1.4);
    // The workspace tabs stay, as a compact bar in the normal type; Ctrl+2 switches to the second workspace.
    auto *tabs = w.findChild<QTabWidget *>();
    QVERIFY(tabs && tabs->tabBar()->isVisible());
    QCOMPARE(tabs->tabBar()->font().pointSizeF(), normal);
    // Titles and formulas grow with the type instead of keeping their first size (kit/fontscale.h).
    tabs->setCurrentIndex(1);
    QTRY_VERIFY(tabs->currentWidget()->isVisible());
    bool formulaScaled = false;
    for (QLabel *label : tabs->widget(1)->findChildren<QLabel *>())
        if (label->font().bold() && label->font().pointSizeF() > QApplication::font().pointSizeF() * 1.3) formulaScaled = true;
    QVERIFY2(formulaScaled, "no label 1.35 times the presentation type in the Pipeline");
    tabs->setCurrentIndex(0);
    w.activateWindow();
    w.setFocus();
    QTest::keyClick(&w, Qt::Key_E);
    QTRY_COMPARE(QDir(dir.path()).entryList({QStringLiteral("*.png")}).size(), 1);
    const QString png = QDir(dir.path()).filePath(QDir(dir.path()).entryList({QStringLiteral("*.png")}).first());
    QVERIFY(!QImage(png).isNull());
    QVERIFY(QApplication::font().pointSizeF() > normal * 1.4);   // the large type is back on screen
    QTest::keyClick(&w, Qt::Key_Escape);
    QVERIFY(!w.isPresentationMode());
    QVERIFY(w.menuBar()->isVisible());
    QCOMPARE(QApplication::font().pointSizeF(), normal);
    // E saved the figure in its publication layout and type: the same image File ▸ Export Figure writes.
    const QString normalPng = dir.filePath(QStringLiteral("normal.png"));
    QString error;
    QVERIFY2(w.exportFigure(normalPng, &error), qPrintable(error));
    QCOMPARE(QImage(png).size(), QImage(normalPng).size());
    QVERIFY2(QImage(png) == QImage(normalPng), "E's figure is not the one Export Figure writes");
}

void TestUiMainWindow::aboutNamesVersionsAndBackends()
{
    const QString html = buildInfoHtml();
    QVERIFY(html.contains(attnscopeVersion()));
    QVERIFY(html.contains(QString::fromLatin1(qVersion())));
    QVERIFY(html.contains(QStringLiteral("3.4")));   // Eigen
    QVERIFY(html.contains(QString::fromStdString(attn::cpuSimdLevel())));
    QVERIFY(html.contains(QStringLiteral("CUDA")));
    if (!attn::cudaAvailable())
        QVERIFY(html.contains(QString::fromStdString(attn::cudaUnavailableReason()).toHtmlEscaped()));
}

// Other workspaces write the shared Subject (Faithfulness's rationale examples set its text): Explore's text box
// follows and its model runs again on the new text, without echoing it back; a model set elsewhere is used as it is.
void TestUiMainWindow::exploreFollowsTheSubject()
{
    MainWindow w;
    QVERIFY(waitForModel(w));
    ExploreView *explore = w.explore();
    const QString text = QStringLiteral("a short text that nobody typed in explore");
    QSignalSpy textChanges(w.subject(), &Subject::textChanged);
    w.subject()->setText(text);
    QCOMPARE(explore->text(), text);
    QCOMPARE(textChanges.count(), 1);   // the text box's own change wrote the same text: no second signal
    QTRY_VERIFY_WITH_TIMEOUT(explore->snapshot() && explore->snapshot()->text == text, 20000);
    auto tokenized = explore->currentModel()->tokenize(text.toStdString());
    QVERIFY(tokenized.isOk());
    QCOMPARE(explore->chips()->tokens().size(), int(tokenized->labels.size()));
    QVERIFY(explore->errorText().isEmpty());

    const QString spec = QStringLiteral("random:layers=1,heads=2,d_model=16,seed=4");
    auto opened = attn::TextModel::open(spec.toStdString());
    QVERIFY(opened.isOk());
    const auto model = std::make_shared<const attn::TextModel>(std::move(opened).value());
    w.subject()->setModel(model, spec);
    QCOMPARE(explore->currentModel(), model);   // adopted, not opened a second time
    QVERIFY(!explore->isLoading());
    const auto ranOn = [explore] {
        const auto s = std::dynamic_pointer_cast<const ModelSnapshot>(explore->snapshot());
        return s ? s->model : TextModelPtr();
    };
    QTRY_COMPARE_WITH_TIMEOUT(ranOn(), model, 20000);
    QCOMPARE(explore->headGrid()->layers(), 1);
    QCOMPARE(explore->text(), text);
    QCOMPARE(w.subject()->model(), model);
}

QTEST_MAIN(TestUiMainWindow)
// Help: every workspace has a guide (F1 shows the one on screen), the shortcuts page lists every window action
// that has a shortcut, and Ctrl+1 … Ctrl+N go to the workspaces in tab order.
void TestUiMainWindow::helpPagesAndWorkspaceKeys()
{
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QList<Workspace *> spaces = w.workspaces();
    QVERIFY(spaces.size() >= 6);
    for (Workspace *ws : spaces)
        QVERIFY2(ws->guide().contains(QStringLiteral("<b>%1</b>").arg(ws->title())), qPrintable(ws->title()));
    const QString shortcuts = shortcutsHtml(&w);
    int listed = 0;
    for (const QAction *a : w.findChildren<QAction *>()) {
        if (a->shortcuts().isEmpty() || a->text().isEmpty()) continue;
        QString text = a->property(kHelpTextProperty).toString();
        if (text.isEmpty()) text = a->text().remove(QLatin1Char('&'));
        QVERIFY2(shortcuts.contains(text.toHtmlEscaped()), qPrintable(text));
        for (const QKeySequence &k : a->shortcuts())
            QVERIFY2(shortcuts.contains(k.toString(QKeySequence::NativeText).toHtmlEscaped()), qPrintable(text));
        ++listed;
    }
    QVERIFY(listed >= 10 + int(spaces.size()));
    QVERIFY(shortcuts.contains(QStringLiteral("Ctrl+3")));
    QVERIFY(shortcuts.contains(QStringLiteral("Go to the %1 workspace").arg(spaces[2]->title())));
    // Ctrl+N goes to the N-th workspace, from wherever the focus is.
    for (int n : {3, 1, int(spaces.size())}) {
        QTest::keyClick(&w, Qt::Key(Qt::Key_0 + n), Qt::ControlModifier);
        QCOMPARE(w.currentWorkspace(), spaces[n - 1]);
    }
    // F1: the guide of the workspace on screen.
    w.showWorkspace(QStringLiteral("masks"));
    QTest::keyClick(&w, Qt::Key_F1);
    QDialog *guide = nullptr;
    QTRY_VERIFY((guide = w.findChild<QDialog *>()) != nullptr);
    QCOMPARE(guide->windowTitle(), QStringLiteral("Guide: %1").arg(w.currentWorkspace()->title()));
    auto *text = guide->findChild<QTextBrowser *>();
    QVERIFY(text);
    QVERIFY(text->toPlainText().contains(QStringLiteral("custom mask")));
    guide->close();
}

#include "tst_ui_mainwindow.moc"
