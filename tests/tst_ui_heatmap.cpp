// SPDX-License-Identifier: GPL-3.0-or-later
// HeatmapPlot offscreen: pixel → cell mapping, token tick labels (all, then thinned), masked cells as NaN,
// hover signals, and PNG/SVG/PDF export.

#include "plots/heatmaplod.h"
#include "plots/heatmapplot.h"

#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace attnui;

namespace {

QStringList words(int n)
{
    QStringList out;
    for (int i = 0; i < n; ++i) out << QStringLiteral("w%1").arg(i);
    return out;
}

HeatmapData matrix(int rows, int cols, bool causal = false)
{
    HeatmapData d;
    d.rows = rows;
    d.cols = cols;
    d.rowLabels = words(rows);
    d.colLabels = words(cols);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            d.values.push_back(float(i * cols + j) / float(rows * cols));
            d.masked.push_back(causal && j > i ? 1 : 0);
            d.scores.push_back(float(i - j));
        }
    return d;
}

void showPlot(HeatmapPlot &plot, QSize size)
{
    plot.resize(size);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    QCoreApplication::processEvents();
}

} // namespace

class TestUiHeatmap : public QObject {
    Q_OBJECT
private slots:
    void cellAtCentreOfEachCell_data();
    void cellAtCentreOfEachCell();
    void tickLabelsAreTheTokens();
    void cellTextKeepsTinyValues();
    void cellTextContrastsWithItsCell();
    void manyTokensAreThinned();
    void maskedCellsAreNaN();
    void hoverReportsTheCell();
    void exportWritesFiles();
    void exportRefusesUnwritablePaths();
    void poolingKeepsPeaksAndSkipsMasked_data();
    void poolingKeepsPeaksAndSkipsMasked();
    void largeMatrixStaysExactOnHover();
    void asyncDataIsAppliedAndSuperseded();
    void zoomingInShowsFullResolution();
};

void TestUiHeatmap::cellAtCentreOfEachCell_data()
{
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addRow("1x1") << 1 << 1;
    QTest::addRow("3x5") << 3 << 5;
    QTest::addRow("11x11") << 11 << 11;
    QTest::addRow("1x7") << 1 << 7;
    QTest::addRow("97x97") << 97 << 97;
}

void TestUiHeatmap::cellAtCentreOfEachCell()
{
    QFETCH(int, rows);
    QFETCH(int, cols);
    HeatmapPlot plot;
    plot.setData(matrix(rows, cols));
    showPlot(plot, QSize(700, 600));
    const QRect area = plot.plotArea();
    QVERIFY(area.width() > 100 && area.height() > 100);
    // The centre of cell (i, j) from the matrix area alone: query 0 on top, key 0 on the left.
    for (int i = 0; i < rows; i += std::max(1, rows / 7))
        for (int j = 0; j < cols; j += std::max(1, cols / 7)) {
            const QPointF centre(area.left() + (j + 0.5) * area.width() / cols,
                                 area.top() + (i + 0.5) * area.height() / rows);
            const auto cell = plot.cellAt(centre);
            QVERIFY2(cell.has_value(), qPrintable(QStringLiteral("no cell at (%1, %2)").arg(i).arg(j)));
            QCOMPARE(cell->row, i);
            QCOMPARE(cell->col, j);
            QVERIFY(QLineF(plot.cellCenter(i, j), centre).length() < 2.0);
        }
    QVERIFY(!plot.cellAt(QPointF(area.left() - 5, area.top() + 5)).has_value());
    QVERIFY(!plot.cellAt(QPointF(area.right() + 5, area.bottom() + 5)).has_value());
}

void TestUiHeatmap::cellTextKeepsTinyValues()
{
    // Round-off differences (equivariance's 1e-7) are not printed as "0.00"; an exact 0 is "0".
    QCOMPARE(HeatmapPlot::cellText(0.1234), QStringLiteral("0.12"));
    QCOMPARE(HeatmapPlot::cellText(-0.5), QStringLiteral("-0.50"));
    QCOMPARE(HeatmapPlot::cellText(0.005), QStringLiteral("0.01"));
    QCOMPARE(HeatmapPlot::cellText(0.0), QStringLiteral("0"));
    QCOMPARE(HeatmapPlot::cellText(1.2e-7), QStringLiteral("1e-7"));
    QCOMPARE(HeatmapPlot::cellText(-3.4e-8), QStringLiteral("-3e-8"));
    QCOMPARE(HeatmapPlot::cellText(0.0049), QStringLiteral("5e-3"));
    QCOMPARE(HeatmapPlot::cellText(2e-12), QStringLiteral("2e-12"));
}

void TestUiHeatmap::cellTextContrastsWithItsCell()
{
    // Relative luminance by hand (WCAG): viridis' top #fde725 is L = 0.80 (dark text, HSL lightness 0.57 would
    // also say so); its 0.94 colour, about #dde318, is L = 0.71 although its HSL lightness is 0.49; the teal
    // middle #21918c is L = 0.22, where dark text contrasts 4.8 : 1 and white 3.5 : 1; the purple bottom
    // #440154 is L = 0.015.
    const QColor dark(20, 20, 20), light(245, 245, 245);
    QCOMPARE(textColorOn(QColor(0xfd, 0xe7, 0x25)), dark);
    QCOMPARE(textColorOn(QColor(0xdd, 0xe3, 0x18)), dark);
    QCOMPARE(textColorOn(QColor(0x21, 0x91, 0x8c)), dark);
    QCOMPARE(textColorOn(QColor(0x44, 0x01, 0x54)), light);
    QCOMPARE(textColorOn(QColor(0x3b, 0x52, 0x8b)), light);   // viridis at about 0.25
    QCOMPARE(textColorOn(Qt::black), light);
    QCOMPARE(textColorOn(Qt::white), dark);
}

void TestUiHeatmap::tickLabelsAreTheTokens()
{
    HeatmapPlot plot;
    const QStringList tokens = {"the", "cat", "sat", "on", "the", "mat", "because", "the", "cat", "was", "tired"};
    HeatmapData d = matrix(11, 11);
    d.rowLabels = d.colLabels = tokens;
    plot.setData(d);
    showPlot(plot, QSize(900, 800));
    QCOMPARE(plot.rowTickLabels(), tokens);
    QCOMPARE(plot.colTickLabels(), tokens);
}

void TestUiHeatmap::manyTokensAreThinned()
{
    HeatmapPlot plot;
    plot.setData(matrix(300, 300));
    showPlot(plot, QSize(600, 600));
    const QStringList rows = plot.rowTickLabels(), cols = plot.colTickLabels();
    QVERIFY2(rows.size() > 5 && rows.size() < 100, qPrintable(QString::number(rows.size())));
    QVERIFY2(cols.size() > 5 && cols.size() < 100, qPrintable(QString::number(cols.size())));
    QCOMPARE(rows.first(), QStringLiteral("w0"));
    for (const QString &label : cols) QVERIFY(words(300).contains(label));
}

void TestUiHeatmap::maskedCellsAreNaN()
{
    HeatmapPlot plot;
    const HeatmapData d = matrix(4, 4, true);
    plot.setData(d);
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            if (j > i)
                QVERIFY2(std::isnan(plot.cellValue(i, j)), qPrintable(QStringLiteral("(%1, %2)").arg(i).arg(j)));
            else
                QCOMPARE(plot.cellValue(i, j), double(d.values[std::size_t(i * 4 + j)]));
        }
    QVERIFY(plot.hoverText({0, 3}).contains(QStringLiteral("masked")));
    QVERIFY(plot.hoverText({3, 1}).contains(QStringLiteral("weight")));
}

void TestUiHeatmap::hoverReportsTheCell()
{
    HeatmapPlot plot;
    plot.setData(matrix(5, 6));
    showPlot(plot, QSize(700, 600));
    QSignalSpy hovered(&plot, &HeatmapPlot::cellHovered);
    QSignalSpy clicked(&plot, &HeatmapPlot::cellClicked);
    const QPoint p = plot.plotWidget()->mapFrom(&plot, plot.cellCenter(3, 4).toPoint());
    QTest::mouseMove(plot.plotWidget(), p);
    QTRY_COMPARE(hovered.size(), 1);
    QCOMPARE(hovered.at(0).at(0).toInt(), 3);
    QCOMPARE(hovered.at(0).at(1).toInt(), 4);
    QTest::mouseClick(plot.plotWidget(), Qt::LeftButton, {}, p);
    QCOMPARE(clicked.size(), 1);
    QCOMPARE(clicked.at(0).at(0).toInt(), 3);
    QCOMPARE(clicked.at(0).at(1).toInt(), 4);
}

void TestUiHeatmap::exportWritesFiles()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    HeatmapPlot plot;
    plot.setData(matrix(6, 6, true));
    plot.setTitle(QStringLiteral("export test"));
    QString error;
    const QString png = dir.filePath("m.png"), svg = dir.filePath("m.svg"), pdf = dir.filePath("m.pdf");
    QVERIFY2(plot.saveFigure(png, QSize(400, 300), &error), qPrintable(error));
    QVERIFY2(plot.saveFigure(svg, QSize(400, 300), &error), qPrintable(error));
    QVERIFY2(plot.saveFigure(pdf, QSize(400, 300), &error), qPrintable(error));
    const QImage image(png);
    QCOMPARE(image.size(), QSize(800, 600));   // scale 2
    QFile s(svg);
    QVERIFY(s.open(QIODevice::ReadOnly));
    const QByteArray svgText = s.readAll();
    QVERIFY(svgText.contains("<svg"));
    QVERIFY(svgText.contains("export test"));
    QFile p(pdf);
    QVERIFY(p.open(QIODevice::ReadOnly));
    QVERIFY(p.read(5) == "%PDF-");
    QVERIFY(!plot.saveFigure(dir.filePath("m.bmpx"), QSize(400, 300), &error));
    QVERIFY(error.contains(QStringLiteral("bmpx")));
}

void TestUiHeatmap::exportRefusesUnwritablePaths()
{
    HeatmapPlot plot;
    plot.setData(matrix(3, 3));
    QString error;
    const QString path = QStringLiteral("/nonexistent-dir/for/sure/m.png");
    QVERIFY(!plot.saveFigure(path, QSize(300, 300), &error));
    QVERIFY2(error.contains(path), qPrintable(error));
    QVERIFY(!QFile::exists(path));
}

void TestUiHeatmap::poolingKeepsPeaksAndSkipsMasked_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("stride");
    QTest::addRow("n=1000 stored as is") << 1000 << 1;
    QTest::addRow("n=1025 stride 2") << 1025 << 2;
    QTest::addRow("n=4096 stride 4") << 4096 << 4;
    QTest::addRow("n=3001 stride 3") << 3001 << 3;
}

void TestUiHeatmap::poolingKeepsPeaksAndSkipsMasked()
{
    QFETCH(int, n);
    QFETCH(int, stride);
    // Zeros, one peak, causal mask; a masked cell holds a large value that must not show.
    std::vector<float> values(std::size_t(n) * std::size_t(n), 0.0f);
    std::vector<std::uint8_t> masked(values.size(), 0);
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) masked[std::size_t(i) * std::size_t(n) + std::size_t(j)] = 1;
    const int pi = n - 2, pj = n / 3;
    values[std::size_t(pi) * std::size_t(n) + std::size_t(pj)] = 0.75f;
    values[std::size_t(1) * std::size_t(n) + std::size_t(n - 1)] = 9.0f;   // masked
    const HeatmapLevel level = poolHeatmap(values.data(), masked.data(), n, n, {0, n - 1, 0, n - 1});
    QCOMPARE(level.rowStride, stride);
    QCOMPARE(level.colStride, stride);
    QVERIFY(level.storageRows <= kMaxStorageCells && level.storageCols <= kMaxStorageCells);
    auto stored = [&](int i, int j) {
        return level.cells[std::size_t(i / stride) * std::size_t(level.storageCols) + std::size_t(j / stride)];
    };
    QCOMPARE(stored(pi, pj), 0.75);
    QVERIFY(std::isnan(stored(0, n - 1)));             // a block with every cell masked
    double maxSeen = 0.0;
    for (double v : level.cells)
        if (!std::isnan(v)) maxSeen = std::max(maxSeen, v);
    QCOMPARE(maxSeen, 0.75);                            // the masked 9 never shows
    // Cell centres: the first and last stored centres in matrix coordinates.
    QCOMPARE(level.keyLower, (stride - 1) / 2.0);
}

void TestUiHeatmap::largeMatrixStaysExactOnHover()
{
    const int n = 2000;
    HeatmapData d;
    d.rows = d.cols = n;
    d.values.assign(std::size_t(n) * n, 0.0f);
    d.values[std::size_t(1234) * n + 56] = 0.5f;
    d.rowLabels = d.colLabels = words(n);
    HeatmapPlot plot;
    plot.setData(std::move(d));
    showPlot(plot, QSize(700, 600));
    QCOMPARE(plot.cellValue(1234, 56), 0.5);
    QCOMPARE(plot.cellValue(1234, 57), 0.0);
    QVERIFY(plot.hoverText({1234, 56}).contains(QStringLiteral("0.5000")));
}

void TestUiHeatmap::asyncDataIsAppliedAndSuperseded()
{
    HeatmapPlot plot;
    QSignalSpy shown(&plot, &HeatmapPlot::dataShown);
    plot.setDataAsync([] { return matrix(5, 5); });
    QVERIFY(plot.isPreparing());
    QTRY_COMPARE(shown.count(), 1);
    QVERIFY(!plot.isPreparing());
    QCOMPARE(plot.data().rows, 5);
    // A synchronous setData after an async one wins; the async result is dropped when it arrives.
    plot.setDataAsync([] { return matrix(7, 7); });
    plot.setData(matrix(3, 3));
    QCOMPARE(plot.data().rows, 3);
    QTest::qWait(200);
    QCOMPARE(plot.data().rows, 3);
    QCOMPARE(shown.count(), 2);
}

void TestUiHeatmap::zoomingInShowsFullResolution()
{
    // 2000 × 2000 is stored pooled 2 × 2, so a single 1 at (10, 10) colours its neighbour (10, 11) too; zoomed in,
    // the window is stored again cell for cell and (10, 11) shows its own 0.
    const int n = 2000;
    HeatmapData d;
    d.rows = d.cols = n;
    d.values.assign(std::size_t(n) * n, 0.0f);
    d.values[std::size_t(10) * n + 10] = 1.0f;
    d.rowLabels = d.colLabels = words(n);
    HeatmapPlot plot;
    plot.setData(std::move(d));
    showPlot(plot, QSize(700, 600));
    auto colourAt = [&](int row, int col) {
        // Near a cell's corner: zoomed in, the weight is printed at its centre.
        const QPointF c = plot.cellCenter(row, col);
        const double half = (plot.cellCenter(row, col + 1).x() - c.x()) * 0.4;
        const QImage img = plot.grab().toImage();
        return img.pixelColor((c + QPointF(-half, -std::abs(half))).toPoint());
    };
    const QColor zero = colorAt(ColorMap::Viridis, 0.0), one = colorAt(ColorMap::Viridis, 1.0);
    auto near = [](QColor a, QColor b) {
        return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue()) < 40;
    };
    plot.showCells(0, 39, 0, 39);
    QVERIFY(plot.cellCenter(10, 11).x() - plot.cellCenter(10, 10).x() > 8);   // zoomed in: cells are large
    // The refine timer, the re-pooling on the work pool, then the replot: until then the 1 at (10, 10) colours
    // its pooled neighbours too (or, before the first replot, nothing of the new view is drawn yet).
    QTRY_VERIFY_WITH_TIMEOUT(near(colourAt(10, 10), one) && near(colourAt(10, 11), zero), 10000);
    QVERIFY2(near(colourAt(10, 10), one), qPrintable(colourAt(10, 10).name()));
    QVERIFY2(near(colourAt(10, 11), zero), qPrintable(colourAt(10, 11).name()));
    QVERIFY2(near(colourAt(11, 10), zero), qPrintable(colourAt(11, 10).name()));
}

QTEST_MAIN(TestUiHeatmap)
#include "tst_ui_heatmap.moc"
