// SPDX-License-Identifier: GPL-3.0-or-later
// AttentionMatrixModel: a well-behaved Qt model (QAbstractItemModelTester), headers are tokens, masked cells flagged.

#include "models/attentionmatrixmodel.h"
#include "models/headstatsmodel.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QtTest>

#include <cmath>
#include <limits>

using attnui::AttentionMatrixModel;
using attnui::HeadStatsModel;

class TestUiModels : public QObject {
    Q_OBJECT
private slots:
    void modelTesterAcceptsResetsAndShapes();
    void headersAreTokens();
    void cellsAndRoles();
    void maskedCellsAreFlagged();
    void mismatchedSizesGiveAnEmptyModel();
    void headStatsSortWithUndefinedLast();
};

void TestUiModels::modelTesterAcceptsResetsAndShapes()
{
    AttentionMatrixModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    model.setMatrix({"a", "b"}, {"a", "b", "c"}, {0.1f, 0.2f, 0.7f, 0.3f, 0.3f, 0.4f});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), 3);
    model.setMatrix({"x"}, {"x"}, {1.0f});   // shrink
    QCOMPARE(model.rowCount(), 1);
    model.setMatrix({"p", "q", "r"}, {"p", "q", "r"}, std::vector<float>(9, 1.0f / 3.0f), std::vector<std::uint8_t>(9, 0),
                    std::vector<float>(9, 0.5f));   // grow, with mask and scores
    QCOMPARE(model.columnCount(), 3);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), 0);
}

void TestUiModels::headersAreTokens()
{
    AttentionMatrixModel model;
    model.setMatrix({"the", "cat"}, {"the", "cat", "sat"}, std::vector<float>(6, 0.0f));
    QCOMPARE(model.headerData(0, Qt::Vertical).toString(), QStringLiteral("the"));
    QCOMPARE(model.headerData(1, Qt::Vertical).toString(), QStringLiteral("cat"));
    QCOMPARE(model.headerData(2, Qt::Horizontal).toString(), QStringLiteral("sat"));
    QVERIFY(!model.headerData(3, Qt::Horizontal).isValid());
    QVERIFY(model.headerData(1, Qt::Vertical, Qt::ToolTipRole).toString().contains(QStringLiteral("query 1")));
}

void TestUiModels::cellsAndRoles()
{
    AttentionMatrixModel model;
    model.setMatrix({"a", "b"}, {"a", "b"}, {1.0f, 0.0f, 0.25f, 0.75f}, {}, {2.0f, -1.0f, 0.5f, 1.5f});
    const QModelIndex idx = model.index(1, 1);
    QCOMPARE(model.data(idx).toString(), QStringLiteral("0.7500"));
    QCOMPARE(model.data(idx, AttentionMatrixModel::WeightRole).toDouble(), 0.75);
    QCOMPARE(model.data(idx, AttentionMatrixModel::ScoreRole).toDouble(), 1.5);
    QCOMPARE(model.data(idx, AttentionMatrixModel::MaskedRole).toBool(), false);
    const QString tip = model.data(model.index(1, 0), Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QStringLiteral("“b”")) && tip.contains(QStringLiteral("“a”")) &&
                 tip.contains(QStringLiteral("0.250000")),
             qPrintable(tip));
}

void TestUiModels::maskedCellsAreFlagged()
{
    AttentionMatrixModel model;
    // Causal 3×3: cells above the diagonal are masked.
    std::vector<std::uint8_t> masked = {0, 1, 1, 0, 0, 1, 0, 0, 0};
    model.setMatrix({"a", "b", "c"}, {"a", "b", "c"}, {1, 0, 0, 0.5f, 0.5f, 0, 0.2f, 0.3f, 0.5f}, masked);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const QModelIndex idx = model.index(i, j);
            QCOMPARE(model.data(idx, AttentionMatrixModel::MaskedRole).toBool(), j > i);
            QCOMPARE(model.isMasked(i, j), j > i);
            if (j > i) QCOMPARE(model.data(idx).toString(), QStringLiteral("masked"));
        }
    QVERIFY(!model.data(model.index(0, 0), AttentionMatrixModel::ScoreRole).isValid());   // no scores given
}

void TestUiModels::mismatchedSizesGiveAnEmptyModel()
{
    AttentionMatrixModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    // Release builds compile Q_ASSERT out; the model must still not index out of bounds.
#ifdef QT_NO_DEBUG
    model.setMatrix({"a", "b"}, {"a"}, {1.0f});
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), 0);
#else
    QSKIP("debug builds assert on mismatched sizes");
#endif
}

void TestUiModels::headStatsSortWithUndefinedLast()
{
    HeadStatsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<attn::HeadStatistics> stats(4);
    stats[0].induction = 0.2;
    stats[1].induction = nan;
    stats[2].induction = 0.9;
    stats[3].induction = 0.5;
    model.setStatistics(2, 2, stats);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), int(HeadStatsModel::ColumnCount));
    QCOMPARE(model.index(3, HeadStatsModel::Layer).data().toInt(), 1);   // shown from 0, as everywhere
    QCOMPARE(model.index(3, HeadStatsModel::Head).data().toInt(), 1);
    QCOMPARE(model.index(1, HeadStatsModel::Induction).data().toString(), QStringLiteral("—"));
    QCOMPARE(model.index(2, HeadStatsModel::Induction).data().toString(), QStringLiteral("0.900"));

    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(HeadStatsModel::SortRole);
    proxy.sort(HeadStatsModel::Induction, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, 0).data(HeadStatsModel::LayerRole).toInt(), 1);   // 0.9: layer 1 (from 0), head 0
    QCOMPARE(proxy.index(0, 0).data(HeadStatsModel::HeadRole).toInt(), 0);
    QVERIFY(std::isnan(proxy.index(3, HeadStatsModel::Induction).data(HeadStatsModel::ValueRole).toDouble()));
}

QTEST_MAIN(TestUiModels)
#include "tst_ui_models.moc"
