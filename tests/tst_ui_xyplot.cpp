// SPDX-License-Identifier: GPL-3.0-or-later
// XYPlot offscreen: bars, scatter with a least-squares line (checked against a hand computation), lines with a
// legend, hover text and point lookup, and export to PNG/SVG/PDF.

#include "plots/xyplot.h"

#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <tuple>
#include <limits>

using namespace attnui;

class TestUiXYPlot : public QObject {
    Q_OBJECT
private slots:
    void bars();
    void denseBars();
    void scatterWithFit();
    void scatterLabelsDoNotPileUp();
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

void TestUiXYPlot::denseBars()
{
    // 300 categories on a 600 px plot are under 3 px each: one line per category instead of a bar. The left half
    // of series 0 is +1 and the right half of series 1 is −1, so each half of the picture shows one series' colour
    // on one side of the zero line.
    XYPlot plot;
    plot.resize(600, 400);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    const int n = 300;
    QStringList cats;
    std::vector<double> a(n, 0.0), b(n, 0.0);
    for (int i = 0; i < n; ++i) {
        cats << QStringLiteral("t%1").arg(i);
        (i < n / 2 ? a : b)[std::size_t(i)] = i < n / 2 ? 1.0 : -1.0;
    }
    b[7] = std::numeric_limits<double>::quiet_NaN();   // a missing value draws nothing and does not break the rest
    plot.setBars(cats, {XYSeries{QStringLiteral("causal"), {}, a, {}}, XYSeries{QStringLiteral("window"), {}, b, {}}});
    QVERIFY(plot.denseBars());
    // The hover names every series: their lines share the category's pixel column.
    QCOMPARE(plot.hoverText({1, 200}), QStringLiteral("t200\ncausal: 0.0000\nwindow: -1.0000"));
    QTest::qWait(50);
    const QRect area = plot.plotArea();
    const QImage image = plot.grab().toImage();
    const auto dist = [](QColor x, QColor y) {
        return std::abs(x.red() - y.red()) + std::abs(x.green() - y.green()) + std::abs(x.blue() - y.blue());
    };
    const int aboveZero = area.top() + area.height() / 4, belowZero = area.bottom() - area.height() / 4;
    // Two series are drawn with alpha 200 over the plot's white background.
    const auto drawn = [&](int series) {
        const QColor c = plot.seriesColor(series);
        const auto mix = [](int v) { return (v * 200 + 255 * 55) / 255; };
        return QColor(mix(c.red()), mix(c.green()), mix(c.blue()));
    };
    QVERIFY(dist(drawn(0), drawn(1)) > 90);
    // Where two lines of a series overlap by a fraction of a pixel the colour is darker: a pixel shows a series
    // when it is far from white (grid lines are light grey) and nearer that series' colour than the other's.
    const QColor white(255, 255, 255);
    const auto inked = [&](QColor px) { return dist(px, white) > 150; };
    const auto shows = [&](QColor px, int series) { return inked(px) && dist(px, drawn(series)) < dist(px, drawn(1 - series)); };
    int leftA = 0, rightB = 0, wrong = 0;
    for (int x = area.left() + 4; x < area.right() - 4; ++x) {
        const bool left = x < area.left() + area.width() / 2 - 4, right = x > area.left() + area.width() / 2 + 4;
        const QColor up = image.pixelColor(x, aboveZero), down = image.pixelColor(x, belowZero);
        if (left && shows(up, 0)) ++leftA;
        if (right && shows(down, 1)) ++rightB;
        if ((right && inked(up)) || (left && inked(down))) ++wrong;
    }
    const int half = area.width() / 2 - 8;
    QVERIFY2(leftA > half * 95 / 100, qPrintable(QStringLiteral("%1 of %2 columns").arg(leftA).arg(half)));
    QVERIFY2(rightB > half * 95 / 100, qPrintable(QStringLiteral("%1 of %2 columns").arg(rightB).arg(half)));
    QCOMPARE(wrong, 0);
    QCOMPARE(plot.pointAt(plot.pointCenter({1, 200}) + QPointF(0, -3)), (std::optional<XYPoint>{XYPoint{0, 200}}));
    // Wide enough for 300 bars (over 3 px each): bars again, and the hover names its own series.
    plot.resize(1400, 400);
    QTest::qWait(50);
    QVERIFY(!plot.denseBars());
    QCOMPARE(plot.hoverText({1, 200}), QStringLiteral("window\nt200: -1.0000"));
    plot.resize(600, 400);
    QTest::qWait(50);
    QVERIFY(plot.denseBars());
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

void TestUiXYPlot::scatterLabelsDoNotPileUp()
{
    // 60 tokens, most of them in a cluster near the origin (as attention vs perturbation importance usually is),
    // three far out. Drawn labels never overlap, there are at most kMaxPointLabels, the far points keep theirs, and
    // every point's label is still in its hover text.
    XYPlot plot;
    plot.resize(600, 400);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    XYSeries s;
    s.name = QStringLiteral("tokens");
    for (int i = 0; i < 57; ++i) {
        s.x.push_back(0.01 * (i % 8));
        s.y.push_back(0.01 * (i / 8));
        s.labels << QStringLiteral("tok%1").arg(i);
    }
    for (auto [x, y, name] : {std::tuple{1.0, 0.05, "right"}, std::tuple{0.04, 1.0, "top"}, std::tuple{0.9, 0.9, "both"}}) {
        s.x.push_back(x);
        s.y.push_back(y);
        s.labels << QString::fromLatin1(name);
    }
    plot.setScatter(s, false);
    QTest::qWait(50);
    const QList<int> shown = plot.labelledPoints();
    const QList<QRect> rects = plot.pointLabelRects();
    QCOMPARE(rects.size(), shown.size());
    QVERIFY2(!shown.isEmpty() && shown.size() <= XYPlot::kMaxPointLabels, qPrintable(QString::number(shown.size())));
    QVERIFY2(shown.size() < 60, "every label drawn: they pile up in the cluster");
    for (int i = 0; i < rects.size(); ++i) {
        QVERIFY(plot.plotArea().contains(rects[i]));
        for (int j = i + 1; j < rects.size(); ++j)
            QVERIFY2(!rects[i].intersects(rects[j]), qPrintable(QStringLiteral("labels %1 and %2 overlap").arg(shown[i]).arg(shown[j])));
    }
    for (int far : {57, 58, 59}) QVERIFY2(shown.contains(far), qPrintable(QString::number(far)));
    int hidden = -1;
    for (int i = 0; i < 57 && hidden < 0; ++i)
        if (!shown.contains(i)) hidden = i;
    QVERIFY(hidden >= 0);
    QVERIFY(plot.hoverText({0, hidden}).contains(QStringLiteral("tok%1").arg(hidden)));
    // Without overlap and under the cap, every label is drawn.
    plot.setScatter(XYSeries{QStringLiteral("tokens"), {0, 1, 2}, {0, 1, 2}, {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}}, false);
    QTest::qWait(50);
    QCOMPARE(plot.labelledPoints().size(), 3);
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
