// SPDX-License-Identifier: GPL-3.0-or-later
// The colour-scale modes and the noise floor (plots/colorscale.h) on hand-computed matrices, the --scale spec
// round trip, and HeatmapPlot drawing with them: the range and label of its colour bar, the colours of its cells.

#include "plots/colorscale.h"
#include "plots/heatmapplot.h"

#include <QtTest>

#include <cmath>

using namespace attnui;

class TestColorScale : public QObject {
    Q_OBJECT
private slots:
    void specsRoundTrip();
    void badSpecsAreRefusedByName();
    void fixedKeepsTheViewsRange();
    void autoSpansTheShownCells();
    void percentileIsTheNearestRank();
    void logCoversFourDecadesBelowTheMaximum();
    void rowDividesEachRowByItsMaximum();
    void constantMatrixKeepsARange();
    void noiseFloorZeroesRoundOff();
    void plotShowsTheScaleInItsColourBar();
    void plotLeavesDivergingMapsSymmetric();
};

void TestColorScale::specsRoundTrip()
{
    for (const QString &s : {QStringLiteral("fixed"), QStringLiteral("auto"), QStringLiteral("pct:99"),
                             QStringLiteral("pct:99.5"), QStringLiteral("pct:50"), QStringLiteral("log"), QStringLiteral("row")}) {
        const auto parsed = ColorScale::parse(s);
        QVERIFY2(parsed, qPrintable(s));
        QCOMPARE(parsed->spec(), s);
    }
    QCOMPARE(ColorScale::parse(QStringLiteral("pct:95"))->percentile, 95.0);
    QCOMPARE(ColorScale::parse(QStringLiteral("PCT:95"))->mode, ScaleMode::Percentile);
    QCOMPARE(ColorScale::parse(QStringLiteral("pct:91"))->title(), QStringLiteral("Clip at the 91st Percentile"));
    QCOMPARE(ColorScale::parse(QStringLiteral("pct:92"))->title(), QStringLiteral("Clip at the 92nd Percentile"));
    QCOMPARE(ColorScale::parse(QStringLiteral("pct:99"))->title(), QStringLiteral("Clip at the 99th Percentile"));
    // The contrast steps start at the fixed scale and clip ever lower.
    const std::vector<ColorScale> steps = contrastSteps();
    QCOMPARE(steps.front().mode, ScaleMode::Fixed);
    for (std::size_t i = 2; i < steps.size(); ++i) QVERIFY(steps[i].percentile < steps[i - 1].percentile);
}

void TestColorScale::badSpecsAreRefusedByName()
{
    for (const QString &s : {QStringLiteral("pct"), QStringLiteral("pct:100"), QStringLiteral("pct:20"),
                             QStringLiteral("pct:x"), QStringLiteral("linear"), QString()}) {
        QString error;
        QVERIFY2(!ColorScale::parse(s, &error), qPrintable(s));
        QVERIFY(error.contains(QLatin1String("fixed, auto, pct:P")));
        QVERIFY(error.contains(QLatin1Char('\'') + s + QLatin1Char('\'')));
    }
}

void TestColorScale::fixedKeepsTheViewsRange()
{
    const std::vector<float> v{0.1f, 0.2f, 0.3f, 0.4f};
    const ScaledMatrix s = scaleMatrix(v.data(), nullptr, 2, 2, ColorScale{}, 0.0, 1.0);
    QVERIFY(s.values.empty());
    QCOMPARE(s.lower, 0.0);
    QCOMPARE(s.upper, 1.0);
    QVERIFY(s.labelSuffix.isEmpty());
    QVERIFY(!s.logarithmic);
}

void TestColorScale::autoSpansTheShownCells()
{
    // The masked cell (0.9) and the NaN do not count.
    const std::vector<float> v{0.2f, 0.9f, std::nanf(""), 0.05f, 0.5f, 0.3f};
    const std::vector<std::uint8_t> m{0, 1, 0, 0, 0, 0};
    const ScaledMatrix s = scaleMatrix(v.data(), m.data(), 2, 3, {ScaleMode::Auto});
    QVERIFY(s.values.empty());
    QCOMPARE(s.lower, double(0.05f));
    QCOMPARE(s.upper, double(0.5f));
    QCOMPARE(s.labelSuffix, QStringLiteral(" (data range)"));
}

void TestColorScale::percentileIsTheNearestRank()
{
    // 0.01, 0.02, ..., 1.00: the 90th percentile by nearest rank is the 90th value, 0.90; the 99.5th is the
    // 100th (ceil(99.5) = 100), 1.00.
    std::vector<float> v;
    for (int i = 100; i >= 1; --i) v.push_back(float(i) / 100.0f);
    ScaledMatrix s = scaleMatrix(v.data(), nullptr, 10, 10, {ScaleMode::Percentile, 90.0});
    QCOMPARE(s.upper, double(0.90f));
    QCOMPARE(s.lower, 0.0);   // the weights' own lower bound
    QCOMPARE(s.labelSuffix, QStringLiteral(" (clipped at 90th pct, 0.9)"));
    s = scaleMatrix(v.data(), nullptr, 10, 10, {ScaleMode::Percentile, 99.5});
    QCOMPARE(s.upper, 1.0);
    // One peak among near-uniform weights: 90 cells of 0.001, 9 of 0.002 and one of 0.9. The 95th percentile is
    // 0.002, so the 0.001/0.002 difference spans half the colours instead of a thousandth of them.
    std::vector<float> flat(100, 0.001f);
    for (int i = 90; i < 99; ++i) flat[i] = 0.002f;
    flat[37] = 0.9f;
    s = scaleMatrix(flat.data(), nullptr, 10, 10, {ScaleMode::Percentile, 95.0});
    QCOMPARE(s.lower, 0.0);
    QCOMPARE(s.upper, double(0.002f));
}

void TestColorScale::logCoversFourDecadesBelowTheMaximum()
{
    const std::vector<float> v{0.5f, 0.0f, 1e-7f, 0.05f};
    const ScaledMatrix s = scaleMatrix(v.data(), nullptr, 2, 2, {ScaleMode::Log});
    QVERIFY(s.logarithmic);
    QCOMPARE(s.upper, double(0.5f));
    QVERIFY(std::abs(s.lower - 0.5e-4) < 1e-12);
    QCOMPARE(s.values.size(), std::size_t(4));
    QCOMPARE(s.values[0], 0.5f);
    QCOMPARE(s.values[1], float(s.lower));   // zero and tiny values sit at the floor
    QCOMPARE(s.values[2], float(s.lower));
    QCOMPARE(s.values[3], 0.05f);
    QCOMPARE(s.labelSuffix, QStringLiteral(" (log scale, floor 5e-05)"));
    // Nothing positive: the fixed range, no log.
    const std::vector<float> zeros(4, 0.0f);
    QVERIFY(!scaleMatrix(zeros.data(), nullptr, 2, 2, {ScaleMode::Log}).logarithmic);
}

void TestColorScale::rowDividesEachRowByItsMaximum()
{
    // Row 0: max 0.5 (the masked 0.8 does not count); row 1: max 0.25; row 2: all zero stays zero.
    const std::vector<float> v{0.5f, 0.25f, 0.8f, 0.1f, 0.25f, 0.05f, 0.0f, 0.0f, 0.0f};
    const std::vector<std::uint8_t> m{0, 0, 1, 0, 0, 0, 0, 0, 0};
    const ScaledMatrix s = scaleMatrix(v.data(), m.data(), 3, 3, {ScaleMode::Row});
    const std::vector<float> want{1.0f, 0.5f, 1.6f, 0.4f, 1.0f, 0.2f, 0.0f, 0.0f, 0.0f};
    QCOMPARE(s.values.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) QVERIFY2(std::abs(s.values[i] - want[i]) < 1e-6f, qPrintable(QString::number(i)));
    QCOMPARE(s.lower, 0.0);
    QCOMPARE(s.upper, 1.0);
}

void TestColorScale::constantMatrixKeepsARange()
{
    const std::vector<float> v(6, 0.25f);
    const ScaledMatrix s = scaleMatrix(v.data(), nullptr, 2, 3, {ScaleMode::Auto});
    QCOMPARE(s.lower, -0.25);
    QCOMPARE(s.upper, 0.75);
    const std::vector<float> z(6, 0.0f);
    const ScaledMatrix t = scaleMatrix(z.data(), nullptr, 2, 3, {ScaleMode::Auto});
    QCOMPARE(t.lower, 0.0);
    QCOMPARE(t.upper, 1.0);
}

void TestColorScale::noiseFloorZeroesRoundOff()
{
    const std::vector<float> v{1e-8f, -3e-7f, 0.2f, -0.01f, 0.0f};
    const std::vector<float> out = applyNoiseFloor(v.data(), v.size(), 1e-6);
    QCOMPARE(out, (std::vector<float>{0.0f, 0.0f, 0.2f, -0.01f, 0.0f}));
    QVERIFY(applyNoiseFloor(v.data(), v.size(), 0.0).empty());          // no floor
    const std::vector<float> clean{0.2f, 0.0f, -0.5f};
    QVERIFY(applyNoiseFloor(clean.data(), clean.size(), 1e-6).empty());  // nothing below it
    QCOMPARE(noiseFloorSuffix(1e-6), QStringLiteral(" |Δ| < 1e-06 → 0"));
    QVERIFY(noiseFloorSuffix(0).isEmpty());
}

namespace {

// The same colour to within one of the gradient's 256 levels (a cell exactly at the top of the range may fall
// into the level below it when the range's ends are not exact in binary).
bool sameLevel(const QColor &a, const QColor &b)
{
    return std::abs(a.red() - b.red()) <= 4 && std::abs(a.green() - b.green()) <= 4 && std::abs(a.blue() - b.blue()) <= 4;
}

HeatmapData ramp()
{
    HeatmapData d;
    d.rows = d.cols = 4;
    for (int i = 0; i < 16; ++i) d.values.push_back(float(i) / 100.0f);   // 0 .. 0.15: a flat map on 0–1
    for (int i = 0; i < 4; ++i) d.rowLabels << QStringLiteral("t%1").arg(i), d.colLabels << QStringLiteral("t%1").arg(i);
    return d;
}

} // namespace

void TestColorScale::plotShowsTheScaleInItsColourBar()
{
    HeatmapPlot plot;
    plot.resize(500, 400);
    plot.show();
    plot.setData(ramp());
    QCOMPARE(plot.colorRange(), (std::pair<double, double>(0.0, 1.0)));
    QCOMPARE(plot.valueLabel(), QStringLiteral("attention weight"));

    plot.setColorScale({ScaleMode::Auto});
    QCOMPARE(plot.colorRange().first, 0.0);
    QCOMPARE(plot.colorRange().second, double(0.15f));
    QCOMPARE(plot.valueLabel().replace(QLatin1Char('\n'), QLatin1Char(' ')), QStringLiteral("attention weight (data range)"));
    // The brightest cell now has the colour a weight of 1 has on the fixed scale, the darkest that of 0.
    HeatmapPlot fixed;
    fixed.resize(500, 400);
    HeatmapData ends = ramp();
    ends.values[15] = 1.0f;
    fixed.setData(ends);
    const QColor top = fixed.cellColor(3, 3), bottom = fixed.cellColor(0, 0);
    QVERIFY(top != bottom);
    QVERIFY(plot.cellColor(3, 3) != fixed.cellColor(3, 2));   // 0.15 on the fixed scale is dark
    QVERIFY(sameLevel(plot.cellColor(3, 3), top));
    QVERIFY(sameLevel(plot.cellColor(0, 0), bottom));
    // The hover and cellValue() keep the real weight.
    QCOMPARE(plot.cellValue(3, 3), double(0.15f));

    plot.setColorScale({ScaleMode::Row});
    QCOMPARE(plot.valueLabel().replace(QLatin1Char('\n'), QLatin1Char(' ')), QStringLiteral("attention weight ÷ row maximum"));
    QVERIFY(sameLevel(plot.cellColor(0, 3), top));   // every row's last cell is its maximum
    QVERIFY(sameLevel(plot.cellColor(2, 3), top));
    QVERIFY(!sameLevel(plot.cellColor(2, 2), top));

    // New data keeps the scale; the fixed scale restores 0–1 and the plain label.
    plot.setData(ramp());
    QCOMPARE(plot.valueLabel().replace(QLatin1Char('\n'), QLatin1Char(' ')), QStringLiteral("attention weight ÷ row maximum"));
    plot.setColorScale({});
    QCOMPARE(plot.colorRange(), (std::pair<double, double>(0.0, 1.0)));
    QCOMPARE(plot.valueLabel(), QStringLiteral("attention weight"));
}

void TestColorScale::plotLeavesDivergingMapsSymmetric()
{
    HeatmapPlot plot;
    plot.resize(500, 400);
    plot.show();
    HeatmapData d = ramp();
    d.values[5] = -0.15f;
    d.values[6] = 5e-9f;   // round-off
    plot.setData(d);
    plot.setValueLabel(QStringLiteral("Δ weight"));
    plot.setDivergingRange(0.15);
    plot.setColorScale({ScaleMode::Auto});
    QCOMPARE(plot.colorRange().first, -0.15);
    QCOMPARE(plot.colorRange().second, 0.15);
    QCOMPARE(plot.valueLabel(), QStringLiteral("Δ weight"));
    // A scale as narrow as the round-off makes it bright; under the noise floor it has the colour of an exact 0
    // (cell 0, 0), and the colour bar says why.
    plot.setDivergingRange(1e-8);
    QVERIFY(plot.cellColor(1, 2) != plot.cellColor(0, 0));
    plot.setNoiseFloor(1e-6);
    QCOMPARE(plot.cellColor(1, 2), plot.cellColor(0, 0));
    QVERIFY(plot.cellColor(1, 1) != plot.cellColor(0, 0));   // -0.15 is a real difference
    QCOMPARE(plot.valueLabel().replace(QLatin1Char('\n'), QLatin1Char(' ')), QStringLiteral("Δ weight |Δ| < 1e-06 → 0"));
    QCOMPARE(plot.cellValue(1, 2), double(5e-9f));
}

QTEST_MAIN(TestColorScale)
#include "tst_ui_colorscale.moc"
