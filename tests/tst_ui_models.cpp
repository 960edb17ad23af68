// SPDX-License-Identifier: GPL-3.0-or-later
// AttentionMatrixModel: a well-behaved Qt model (QAbstractItemModelTester), headers are tokens, masked cells flagged.

#include "models/attentionmatrixmodel.h"

#include <QAbstractItemModelTester>
#include <QtTest>

using attnui::AttentionMatrixModel;

class TestUiModels : public QObject {
    Q_OBJECT
private slots:
    void modelTesterAcceptsResetsAndShapes();
    void headersAreTokens();
    void cellsAndRoles();
    void maskedCellsAreFlagged();
    void mismatchedSizesGiveAnEmptyModel();
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

QTEST_MAIN(TestUiModels)
#include "tst_ui_models.moc"
