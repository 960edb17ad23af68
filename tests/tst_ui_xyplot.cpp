// SPDX-License-Identifier: GPL-3.0-or-later
// XYPlot offscreen: bars, scatter with a least-squares line (checked against a hand computation), lines with a
// legend, hover text and point lookup, and export to PNG/SVG/PDF.

#include "plots/xyplot.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace attnui;

class TestUiXYPlot : public QObject {
    Q_OBJECT
private slots:
    void bars();
    void scatterWithFit();
    void lines();
    void exportFormats_data();
    void exportFormats();
};

void TestUiXYPlot::bars()
{
    XYPlot plot;
    plot.resize(600, 400);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setAxisLabels(QStringLiteral("token"), QStringLiteral("Δ"));
    plot.setBars({QStringLiteral("the"), QStringLiteral("cat"), QStringLiteral("sat")},
                 {XYSeries{QStringLiteral("causal"), {}, {1.0, 2.0, 3.0}, {}},
                  XYSeries{QStringLiteral("window"), {}, {0.5, 0.0}, {}}});   // short: padded with NaN
    QCOMPARE(plot.kind(), XYKind::Bars);
    QCOMPARE(plot.series().size(), 2);
    QCOMPARE(plot.series()[1].y.size(), std::size_t(3));
    QVERIFY(std::isnan(plot.series()[1].y[2]));
    QCOMPARE(plot.hoverText({0, 1}), QStringLiteral("causal\ncat: 2.0000"));
    QVERIFY(plot.seriesColor(0) != plot.seriesColor(1));
    QTest::qWait(50);
    // The top of a bar is under its own series and category.
    const QPointF top = plot.pointCenter({0, 2}) + QPointF(0, 5);
    QCOMPARE(plot.pointAt(top), (std::optional<XYPoint>{XYPoint{0, 2}}));
}

void TestUiXYPlot::scatterWithFit()
{
    XYPlot plot;
    plot.resize(600, 400);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    // y = 1 + 2x exactly, then one point off the line: slope and intercept by hand.
    // x = 0,1,2,3; y = 1,3,5,8 → x̄ = 1.5, ȳ = 4.25, Sxx = 5,
    // Sxy = (−1.5)(−3.25) + (−0.5)(−1.25) + (0.5)(0.75) + (1.5)(3.75) = 11.5 → b = 2.3, a = 4.25 − 3.45 = 0.8.
    plot.setScatter(XYSeries{QStringLiteral("tokens"), {0, 1, 2, 3}, {1, 3, 5, 8},
                             {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d")}},
                    true);
    QVERIFY(plot.fit());
    QVERIFY(std::abs(plot.fit()->first - 0.8) < 1e-12);
    QVERIFY(std::abs(plot.fit()->second - 2.3) < 1e-12);
    plot.setAxisLabels(QStringLiteral("attention"), QStringLiteral("LOO"));
    QCOMPARE(plot.hoverText({0, 3}), QStringLiteral("tokens\nd\nattention = 3.0000,  LOO = 8.0000"));
    QTest::qWait(50);
    QCOMPARE(plot.pointAt(plot.pointCenter({0, 2})), (std::optional<XYPoint>{XYPoint{0, 2}}));
    // Without spread in x there is no line.
    plot.setScatter(XYSeries{{}, {1, 1}, {0, 1}, {}}, true);
    QVERIFY(!plot.fit());
}

void TestUiXYPlot::lines()
{
    XYPlot plot;
    plot.setLines({XYSeries{QStringLiteral("deletion"), {0, 0.5, 1}, {1, 0.4, 0.1}, {}},
                   XYSeries{QStringLiteral("insertion"), {0, 0.5, 1}, {0.1, 0.7, 1}, {}}});
    plot.setTitle(QStringLiteral("curves"));
    QCOMPARE(plot.kind(), XYKind::Lines);
    QCOMPARE(plot.title(), QStringLiteral("curves"));
    QCOMPARE(plot.series()[1].name, QStringLiteral("insertion"));
    plot.setColorMap(ColorMap::Cividis);
    QCOMPARE(plot.seriesColor(0), colorAt(ColorMap::Cividis, 0.05));
    plot.clear();
    QCOMPARE(plot.kind(), XYKind::None);
    QVERIFY(plot.series().isEmpty());
}

void TestUiXYPlot::exportFormats_data()
{
    QTest::addColumn<QString>("suffix");
    QTest::addColumn<QByteArray>("magic");
    QTest::addRow("png") << "png" << QByteArray("\x89PNG");
    QTest::addRow("svg") << "svg" << QByteArray("<?xml");
    QTest::addRow("pdf") << "pdf" << QByteArray("%PDF");
}

void TestUiXYPlot::exportFormats()
{
    QFETCH(QString, suffix);
    QFETCH(QByteArray, magic);
    XYPlot plot;
    plot.setBars({QStringLiteral("x")}, {XYSeries{QStringLiteral("s"), {}, {1.0}, {}}});
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("figure.") + suffix);
    QString error;
    QVERIFY2(plot.saveFigure(path, QSize(400, 300), &error), qPrintable(error));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.read(magic.size()) == magic);
    QVERIFY(!plot.saveFigure(dir.filePath(QStringLiteral("figure.bmp")), QSize(400, 300), &error));
    QVERIFY(error.contains(QStringLiteral("bmp")));
}

QTEST_MAIN(TestUiXYPlot)
#include "tst_ui_xyplot.moc"
