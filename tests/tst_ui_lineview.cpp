// SPDX-License-Identifier: GPL-3.0-or-later
// LineView offscreen (the BertViz-style token line view): the strongest pair gets the strongest line, masked
// and negligible pairs get none, head checkboxes hide a head's lines, hovering a token keeps only its lines and
// reports it, and the painted canvas is not blank.

#include "workspaces/explore/lineview.h"

#include <QCheckBox>
#include <QImage>
#include <QtTest>

using namespace attnui;

namespace {

// Two heads over four tokens, causal. Head 0 attends to the previous token (query 3 → key 2 at 0.9, the
// strongest weight of the head); head 1 attends to the first token.
std::shared_ptr<ExploreSnapshot> snapshot()
{
    auto s = std::make_shared<ExploreSnapshot>();
    const int n = 4;
    s->tokens = {QStringLiteral("the"), QStringLiteral("cat"), QStringLiteral("sat"), QStringLiteral("down")};
    s->layers = 1;
    s->heads = 2;
    s->masked.assign(n * n, 0);
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) s->masked[std::size_t(i * n + j)] = 1;
    s->weights = {{1.0f, 0, 0, 0,  0.3f, 0.7f, 0, 0,  0.1f, 0.8f, 0.1f, 0,  0.005f, 0.045f, 0.9f, 0.05f},
                  {1.0f, 0, 0, 0,  0.6f, 0.4f, 0, 0,  0.5f, 0.25f, 0.25f, 0,  0.4f, 0.2f, 0.2f, 0.2f}};
    return s;
}

const LineView::Line *find(const std::vector<LineView::Line> &lines, int head, int query, int key)
{
    for (const LineView::Line &l : lines)
        if (l.head == head && l.query == query && l.key == key) return &l;
    return nullptr;
}

} // namespace

class TestUiLineView : public QObject {
    Q_OBJECT
private slots:
    void strongestPairHasStrongestLine();
    void maskedAndNegligiblePairsHaveNoLine();
    void headCheckboxHidesItsLines();
    void hoverKeepsOnlyThatTokensLines();
    void paintsSomething();
};

void TestUiLineView::strongestPairHasStrongestLine()
{
    LineView view;
    view.setSnapshot(snapshot());
    view.setHeadEnabled(1, false);
    const auto lines = view.lines();
    QVERIFY(!lines.empty());
    // The first row (query 0 → key 0, weight 1) is the strongest of head 0; among rows 1.., query 3 → key 2.
    const auto strongest = std::max_element(lines.begin(), lines.end(), [](const auto &a, const auto &b) {
        return a.opacity < b.opacity;
    });
    QCOMPARE(strongest->query, 0);
    QCOMPARE(strongest->key, 0);
    const LineView::Line *top = find(lines, 0, 3, 2);
    QVERIFY(top);
    for (const LineView::Line &l : lines)
        if (l.query == 3) {
            QVERIFY(l.opacity <= top->opacity);
            QVERIFY(l.width <= top->width);
        }
    QVERIFY(top->opacity > find(lines, 0, 3, 1)->opacity);
    QVERIFY(top->width > find(lines, 0, 3, 1)->width);
    // Drawn last among its head, so nothing weaker paints over it.
    QCOMPARE(lines.back().weight, 1.0);
}

void TestUiLineView::maskedAndNegligiblePairsHaveNoLine()
{
    LineView view;
    view.setSnapshot(snapshot());
    const auto lines = view.lines();
    QVERIFY(!find(lines, 0, 0, 1));   // masked (causal)
    QVERIFY(!find(lines, 0, 3, 0));   // 0.005: below the threshold
    QVERIFY(find(lines, 1, 3, 0));
}

void TestUiLineView::headCheckboxHidesItsLines()
{
    LineView view;
    view.setSnapshot(snapshot());
    const auto boxes = view.findChildren<QCheckBox *>();
    QCOMPARE(boxes.size(), 2);
    QVERIFY(view.isHeadEnabled(1));
    boxes[1]->click();
    QVERIFY(!view.isHeadEnabled(1));
    for (const LineView::Line &l : view.lines()) QCOMPARE(l.head, 0);
    view.setHeadEnabled(1, true);
    QVERIFY(boxes[1]->isChecked());
}

void TestUiLineView::hoverKeepsOnlyThatTokensLines()
{
    LineView view;
    view.resize(600, 400);
    view.setSnapshot(snapshot());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy spy(&view, &LineView::tokenHovered);
    const QRect sat = view.tokenRect(LineView::Side::Query, 2);
    QTest::mouseMove(view.canvas(), sat.center());
    QTRY_COMPARE(view.hoveredIndex(), 2);
    QCOMPARE(view.hoveredSide(), LineView::Side::Query);
    QVERIFY(!spy.isEmpty());
    QCOMPARE(spy.last().at(0).toInt(), 2);
    QCOMPARE(spy.last().at(1).toInt(), -1);
    const auto lines = view.lines();
    QCOMPARE(int(lines.size()), 6);   // head 0: 0.1, 0.8, 0.1; head 1: 0.5, 0.25, 0.25
    for (const LineView::Line &l : lines) QCOMPARE(l.query, 2);
    // A key: every query's line into it.
    QTest::mouseMove(view.canvas(), view.tokenRect(LineView::Side::Key, 0).center());
    QTRY_COMPARE(view.hoveredSide(), LineView::Side::Key);
    for (const LineView::Line &l : view.lines()) QCOMPARE(l.key, 0);
    view.setHoveredToken(LineView::Side::Query, -1);
    QCOMPARE(spy.last().at(0).toInt(), -1);
    QVERIFY(view.lines().size() > 6);
}

void TestUiLineView::paintsSomething()
{
    LineView view;
    view.resize(600, 400);
    view.setSnapshot(snapshot());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage img = view.canvas()->grab().toImage();
    // Head 0's colour must appear somewhere between the two label columns.
    const QColor head0 = LineView::headColor(0);
    const int x0 = view.tokenRect(LineView::Side::Query, 0).right() + 8;
    const int x1 = view.tokenRect(LineView::Side::Key, 0).left() - 8;
    int tinted = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = x0; x < x1; ++x) {
            const QColor c = img.pixelColor(x, y);
            if (c.blue() > c.red() + 30 && std::abs(c.hue() - head0.hue()) < 20) ++tinted;
        }
    QVERIFY2(tinted > 50, qPrintable(QStringLiteral("%1 tinted pixels").arg(tinted)));
}

QTEST_MAIN(TestUiLineView)
#include "tst_ui_lineview.moc"
