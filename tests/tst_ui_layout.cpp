// SPDX-License-Identifier: GPL-3.0-or-later
// Layouts that fit a small screen: the main window laid out offscreen at 1280×720 and 1366×768 on the default
// sample model, one row per workspace, per Explore tab and for Faithfulness' dataset mode (after a 3-example run
// on sample:rationale-bert). In the workspace shown, no plot's drawing area is below its stated minimum, no plot
// has a title, axis label or legend entry that does not fit, no label or button is narrower or shorter than its
// text needs (clipped), Masks' custom-mask editor has cells big enough for the mouse, and the window's minimum size
// is at most 1280×700. Every lesson is opened with the dock at 1600×1000 (the same checks) and on a 1280×720
// window (it must never grow the window). The first window never exceeds the screen. No timing is asserted: the
// waits only let the runs finish.

#include "kit/workspace.h"
#include "lessons/lessonpanel.h"
#include "plots/boxplot.h"
#include "plots/heatmapplot.h"
#include "plots/xyplot.h"
#include "shell/mainwindow.h"
#include "workspaces/explore/exploreview.h"
#include "workspaces/faithfulness/datasetcontrols.h"
#include "workspaces/faithfulness/datasetmode.h"
#include "workspaces/faithfulness/faithfulnessview.h"
#include "workspaces/masks/masksview.h"

#include <QAbstractButton>
#include <QJsonObject>
#include <QLabel>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

using namespace attnui;

namespace {

// The smallest drawing areas the workspaces promise at 1280×720. A heatmap's matrix: 120 px a side is where a
// 24-token sample text still gets 5 px cells and its thinned tick labels stay apart. A chart's axes: 160×80 px
// holds a curve or bars with three readable y ticks.
constexpr int kMinHeatmap = 120;
constexpr QSize kMinChart(160, 80);
// Masks' custom mask is edited with the mouse: 14 px cells are hit with a mouse or touchpad without aiming.
constexpr int kMinEditableCellPx = 14;
// The limits: a window that fits a 1280×720 screen with a task bar, and the lesson dock at 1600×1000.
constexpr QSize kMaxMinimumWindow(1280, 700);
constexpr QSize kLessonWindow(1600, 1000);

bool runnersIdle(const MainWindow &w)
{
    if (w.explore()->isLoading()) return false;
    for (Workspace *ws : w.workspaces())
        if (ws->runner()->isBusy() || (ws->isVisible() && ws->hasPendingRun())) return false;
    return true;
}

bool settle(const MainWindow &w, int timeoutMs = 120000)
{
    // Idle for a while: debounced runs and the queued replots after them.
    QElapsedTimer quiet;
    quiet.start();
    return QTest::qWaitFor([&] {
        if (!runnersIdle(w)) quiet.restart();
        return quiet.elapsed() > 600;
    }, timeoutMs);
}

// The window at `size`, shown, its first runs done.
bool showAt(MainWindow &w, QSize size)
{
    w.resize(size);
    w.show();
    return QTest::qWaitForWindowExposed(&w) && settle(w);
}

// A widget is visible to the user when it and its parents are shown and it is not scrolled out of its viewport
// (inside a scroll area, a clipped label is one that is cut by its own size, not by the viewport).
bool shown(const QWidget *w)
{
    return w->isVisible() && w->width() > 0 && w->height() > 0;
}

QStringList clippedLabels(const QWidget *root)
{
    QStringList out;
    for (const QLabel *l : root->findChildren<QLabel *>()) {
        if (!shown(l) || l->text().isEmpty() || !l->pixmap().isNull()) continue;
        const int room = l->width();
        if (l->wordWrap()) {
            if (l->heightForWidth(room) > l->height() + 1)
                out << QStringLiteral("label '%1': needs %2 px height, has %3").arg(l->text().left(50)).arg(l->heightForWidth(room)).arg(l->height());
        } else if (l->minimumSizeHint().width() > room + 1 && l->textFormat() != Qt::RichText) {
            out << QStringLiteral("label '%1': needs %2 px width, has %3").arg(l->text().left(50)).arg(l->minimumSizeHint().width()).arg(room);
        }
    }
    for (const QAbstractButton *b : root->findChildren<QAbstractButton *>()) {
        if (!shown(b) || b->text().isEmpty()) continue;
        if (b->minimumSizeHint().width() > b->width() + 1)
            out << QStringLiteral("button '%1': needs %2 px width, has %3").arg(b->text()).arg(b->minimumSizeHint().width()).arg(b->width());
    }
    return out;
}

QStringList smallOrClippedPlots(const QWidget *root)
{
    QStringList out;
    for (const HeatmapPlot *p : root->findChildren<HeatmapPlot *>()) {
        if (!shown(p) || p->data().rows == 0) continue;
        const QRect a = p->plotArea();
        if (a.width() < kMinHeatmap || a.height() < kMinHeatmap)
            out << QStringLiteral("heatmap '%1': %2×%3 px").arg(p->title()).arg(a.width()).arg(a.height());
        for (const QString &t : p->clippedTexts()) out << QStringLiteral("heatmap '%1': clipped '%2'").arg(p->title(), t);
    }
    for (const XYPlot *p : root->findChildren<XYPlot *>()) {
        if (!shown(p)) continue;
        const QRect a = p->plotArea();
        if (a.width() < kMinChart.width() || a.height() < kMinChart.height())
            out << QStringLiteral("chart '%1': %2×%3 px").arg(p->title()).arg(a.width()).arg(a.height());
        for (const QString &t : p->clippedTexts()) out << QStringLiteral("chart '%1': clipped '%2'").arg(p->title(), t);
    }
    for (const BoxPlot *p : root->findChildren<BoxPlot *>()) {
        if (!shown(p) || p->boxes().isEmpty()) continue;
        const QRect a = p->plotArea();
        if (a.width() < kMinChart.width() || a.height() < kMinChart.height())
            out << QStringLiteral("box plot '%1': %2×%3 px").arg(p->title()).arg(a.width()).arg(a.height());
        for (const QString &t : p->clippedTexts()) out << QStringLiteral("box plot '%1': clipped '%2'").arg(p->title(), t);
    }
    return out;
}

// With ATTNSCOPE_LAYOUT_DEBUG set: what asks for the room (minimum sizes down the widget tree), to fix a failure.
void dumpMinimums(const QWidget *w, int depth = 0)
{
    if (!qEnvironmentVariableIsSet("ATTNSCOPE_LAYOUT_DEBUG") || depth > 7 || w->isHidden()) return;
    const QSize m = w->minimumSizeHint().expandedTo(w->minimumSize());
    if (m.width() >= 300 || m.height() >= 200)
        qInfo("%s%s '%s' min %dx%d size %dx%d", qPrintable(QString(depth * 2, QLatin1Char(' '))), w->metaObject()->className(),
              qPrintable(w->objectName()), m.width(), m.height(), w->width(), w->height());
    for (const QObject *c : w->children())
        if (c->isWidgetType()) dumpMinimums(static_cast<const QWidget *>(c), depth + 1);
}

} // namespace

class TestUiLayout : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void opensWithinScreen();
    void fits_data();
    void fits();
    void lessonDockFits_data();
    void lessonDockFits();
};

void TestUiLayout::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AttnScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_ui_layout"));
    QSettings().clear();
}

void TestUiLayout::opensWithinScreen()
{
    // No saved geometry: the first window is 1600×1000 at most and never larger than the screen's free area
    // (the offscreen screen is 800×800, smaller than that default).
    MainWindow w;
    QVERIFY(w.screen());
    const QSize available = w.screen()->availableGeometry().size();
    QVERIFY2(w.width() <= available.width() && w.height() <= available.height(),
             qPrintable(QStringLiteral("window %1×%2 on a %3×%4 screen").arg(w.width()).arg(w.height())
                            .arg(available.width()).arg(available.height())));
}

void TestUiLayout::fits_data()
{
    QTest::addColumn<QString>("workspace");
    QTest::addColumn<int>("tab");   // Explore's tab; −1 for the others
    QTest::addColumn<bool>("dataset");   // Faithfulness in its dataset mode, after a run over 3 bundled examples
    QTest::addColumn<QSize>("window");
    for (const QSize size : {QSize(1280, 720), QSize(1366, 768)}) {
        const QByteArray at = QByteArray::number(size.width()) + 'x' + QByteArray::number(size.height());
        const QStringList tabs{"head", "lines", "statistics", "rollout", "outputs", "datasetheads"};
        for (int t = 0; t < tabs.size(); ++t)
            QTest::addRow("%s explore %s", at.constData(), qPrintable(tabs[t])) << "explore" << t << false << size;
        for (const char *w : {"pipeline", "masks", "equivariance", "faithfulness", "compare", "approx", "seq2seq"})
            QTest::addRow("%s %s", at.constData(), w) << w << -1 << false << size;
        QTest::addRow("%s faithfulness dataset", at.constData()) << "faithfulness" << -1 << true << size;
    }
}

void TestUiLayout::fits()
{
    QFETCH(QString, workspace);
    QFETCH(int, tab);
    QFETCH(bool, dataset);
    QFETCH(QSize, window);
    MainWindow w;
    QVERIFY(showAt(w, window));
    if (dataset) {
        w.openModel(QStringLiteral("sample:rationale-bert"));   // the model with a bundled rationale set
        QVERIFY(settle(w));
    }
    QVERIFY(w.showWorkspace(workspace));
    if (tab >= 0) w.explore()->setCurrentTab(ExploreView::Tab(tab));
    if (dataset) {
        auto *faith = qobject_cast<FaithfulnessView *>(w.currentWorkspace());
        QVERIFY(faith);
        QString error;
        // The quick suite: the layout is what is tested, not the numbers.
        QVERIFY2(faith->restoreSessionState(QJsonObject{{"random_seeds", 2}, {"permutation_test", false}}, &error),
                 qPrintable(error));
        faith->setDatasetMode(true);
        DatasetControls *controls = faith->datasetMode()->datasetControls();
        controls->setDataset(QStringLiteral("sample"));
        controls->setLimit(3);
        controls->run();
        QVERIFY(faith->datasetMode()->runner()->waitForIdle(300000));
        QVERIFY2(faith->datasetMode()->snapshot(), qPrintable(controls->statusText()));
    }
    QVERIFY(settle(w));
    for (Workspace *each : w.workspaces()) dumpMinimums(each);
    QCOMPARE(w.size(), window);   // nothing forced the window to grow
    const QSize minimum = w.minimumSizeHint().expandedTo(w.minimumSize());
    QVERIFY2(minimum.width() <= kMaxMinimumWindow.width() && minimum.height() <= kMaxMinimumWindow.height(),
             qPrintable(QStringLiteral("minimum window %1×%2").arg(minimum.width()).arg(minimum.height())));
    Workspace *ws = w.currentWorkspace();
    QVERIFY(ws && ws->errorText().isEmpty());
    const QStringList problems = clippedLabels(ws) + smallOrClippedPlots(ws);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QStringLiteral("\n"))));
    if (auto *masks = qobject_cast<MasksView *>(ws)) {
        const int custom = masks->customPanel();
        QVERIFY(custom >= 0);
        HeatmapPlot *p = masks->customEditor();
        QVERIFY(shown(p) && p->data().rows > 0);
        const double cell = double(std::min(p->plotArea().width(), p->plotArea().height())) / p->data().rows;
        QVERIFY2(cell >= kMinEditableCellPx, qPrintable(QStringLiteral("custom mask cells %1 px").arg(cell)));
    }
}

void TestUiLayout::lessonDockFits_data()
{
    // At 1600×1000 every lesson's workspace must be usable beside the dock; on a 1280×720 screen the dock may
    // crowd the workspace (its figure scrolls) but must never push the window past the screen.
    QTest::addColumn<QSize>("window");
    QTest::addColumn<bool>("content");
    QTest::newRow("1600x1000") << kLessonWindow << true;
    QTest::newRow("1280x720") << QSize(1280, 720) << false;
}

void TestUiLayout::lessonDockFits()
{
    QFETCH(QSize, window);
    QFETCH(bool, content);
    MainWindow w;
    QVERIFY(showAt(w, window));
    auto *panel = w.findChild<LessonPanel *>();
    QVERIFY(panel);
    QVERIFY(!panel->lessons().isEmpty());
    for (const Lesson &lesson : panel->lessons()) {
        QVERIFY2(panel->openLesson(lesson.id), qPrintable(panel->errorText()));
        QVERIFY(settle(w));
        QVERIFY(panel->isVisible());
        dumpMinimums(&w);
        if (qEnvironmentVariableIsSet("ATTNSCOPE_LAYOUT_DEBUG"))
            for (Workspace *each : w.workspaces())
                qInfo("%s min %dx%d", qPrintable(each->objectName()), each->minimumSizeHint().width(), each->minimumSizeHint().height());
        QVERIFY2(w.width() <= window.width() && w.height() <= window.height(),
                 qPrintable(QStringLiteral("%1: window grew to %2×%3").arg(lesson.id).arg(w.width()).arg(w.height())));
        const QSize minimum = w.minimumSizeHint().expandedTo(w.minimumSize());
        QVERIFY2(minimum.width() <= window.width() && minimum.height() <= window.height(),
                 qPrintable(QStringLiteral("%1: minimum %2×%3").arg(lesson.id).arg(minimum.width()).arg(minimum.height())));
        if (!content) continue;
        const QStringList problems = clippedLabels(w.currentWorkspace()) + smallOrClippedPlots(w.currentWorkspace());
        QVERIFY2(problems.isEmpty(), qPrintable(lesson.id + QStringLiteral(": ") + problems.join(QStringLiteral("\n"))));
    }
}

QTEST_MAIN(TestUiLayout)
#include "tst_ui_layout.moc"
