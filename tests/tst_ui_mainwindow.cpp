// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow offscreen: it opens, the Explore workspace shows a heatmap of the default text, a head can be
// enlarged from the overview, bad input shows an error while the last result stays, figures export.

#include "buildinfo.h"
#include "mainwindow.h"
#include "plots/headgrid.h"
#include "plots/heatmapplot.h"
#include "views/exploreview.h"

#include <attnscope/attention.h>

#include <QSettings>
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
    void clickingAHeadEnlargesIt();
    void badInputKeepsTheLastResult();
    void viewMenuSettingsApply();
    void exportsTheCurrentFigure();
    void aboutNamesVersionsAndBackends();
};

void TestUiMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);   // settings go to a test location, never the user's
    QCoreApplication::setOrganizationName(QStringLiteral("AttnScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_ui_mainwindow"));
    QSettings().clear();
}

void TestUiMainWindow::opensAndShowsAHeatmap()
{
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.findChild<QTabWidget *>()->count(), 1);   // only workspaces that exist
    ExploreView *explore = w.explore();
    QTRY_VERIFY_WITH_TIMEOUT(explore->snapshot() != nullptr, 10000);
    HeatmapPlot *plot = explore->currentFigure();
    QCOMPARE(plot->data().rows, 11);
    QCOMPARE(plot->data().cols, 11);
    QCOMPARE(plot->data().rowLabels.first(), QStringLiteral("the"));
    QVERIFY(plot->title().contains(QStringLiteral("head 1")));
    QCOMPARE(explore->headGrid()->heads(), 4);
    QTRY_VERIFY(w.statusText().contains(QStringLiteral("backend: ")));
    QVERIFY(w.statusText().contains(QStringLiteral("last run")));
}

void TestUiMainWindow::clickingAHeadEnlargesIt()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    ExploreView *explore = w.explore();
    QTRY_VERIFY_WITH_TIMEOUT(explore->snapshot() != nullptr, 10000);
    HeadGrid *grid = explore->headGrid();
    QTest::mouseClick(grid, Qt::LeftButton, {}, grid->thumbnailRect(0, 2).center());
    QCOMPARE(grid->selectedHead(), 2);
    QVERIFY2(explore->currentFigure()->title().contains(QStringLiteral("head 3 of 4")),
             qPrintable(explore->currentFigure()->title()));
}

void TestUiMainWindow::badInputKeepsTheLastResult()
{
    MainWindow w;
    w.show();
    ExploreView *explore = w.explore();
    QTRY_VERIFY_WITH_TIMEOUT(explore->snapshot() != nullptr, 10000);
    const auto before = explore->snapshot();
    explore->setText(QStringLiteral("   "));
    QTRY_VERIFY_WITH_TIMEOUT(!explore->errorText().isEmpty(), 10000);
    QVERIFY(explore->errorText().contains(QStringLiteral("empty")));
    QCOMPARE(explore->snapshot(), before);   // still on screen
    QCOMPARE(explore->currentFigure()->data().rows, 11);
    explore->setText(QStringLiteral("one two three"));
    QTRY_VERIFY_WITH_TIMEOUT(explore->snapshot() != before, 10000);
    QCOMPARE(explore->currentFigure()->data().rows, 3);
    QVERIFY(explore->errorText().isEmpty());
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
        w.close();   // writes settings
    }
    MainWindow again;
    QCOMPARE(again.colorMap(), ColorMap::Cividis);
    QCOMPARE(again.theme(), Theme::Dark);
    again.setTheme(Theme::Light);
    again.setColorMap(ColorMap::Viridis);
    again.close();
}

void TestUiMainWindow::exportsTheCurrentFigure()
{
    QTemporaryDir dir;
    MainWindow w;
    w.show();
    QTRY_VERIFY_WITH_TIMEOUT(w.explore()->snapshot() != nullptr, 10000);
    QString error;
    for (const char *name : {"fig.png", "fig.svg", "fig.pdf"}) {
        const QString path = dir.filePath(QString::fromLatin1(name));
        QVERIFY2(w.exportFigure(path, &error), qPrintable(error));
        QVERIFY(QFileInfo(path).size() > 1000);
    }
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

QTEST_MAIN(TestUiMainWindow)
#include "tst_ui_mainwindow.moc"
