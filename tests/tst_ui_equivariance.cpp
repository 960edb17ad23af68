// SPDX-License-Identifier: GPL-3.0-or-later
// The Equivariance workspace offscreen: on a model without positions and with a bidirectional mask the shown
// errors are float round-off; the causal mask and learned positions make them large and say why; the heatmaps
// carry the tokens in the permuted order and agree with the engine; session state round-trips and bad fields
// are rejected by name; headless views switch the head.

#include "plots/heatmapplot.h"
#include "kit/subject.h"
#include "runner/enginerunner.h"
#include "workspaces/equivariance/equivariancefigure.h"
#include "workspaces/equivariance/equivarianceview.h"
#include "kit/permutationstrip.h"
#include "uitestsupport.h"
#include "export/figureexport.h"

#include <attnscope/equivariance.h>
#include <attnscope/textmodel.h>

#include <QStandardPaths>
#include <QLabel>
#include <QtTest>

#include <algorithm>

using namespace attnui;

namespace {

const char *kRandomSpec = "random:layers=2,heads=4,d_model=32,seed=3";
const char *kText = "the cat sat on a mat";

TextModelPtr openModel(const char *spec)
{
    auto m = attn::TextModel::open(spec);
    if (!m) qWarning("%s", m.status().message().c_str());
    return m ? std::make_shared<const attn::TextModel>(std::move(m.value())) : nullptr;
}

// The subject most tests start from: the random model of kRandomSpec and `text`.
void openRandomModel(Subject &subject, const QString &text)
{
    subject.setModel(openModel(kRandomSpec), QString::fromLatin1(kRandomSpec));
    subject.setText(text);
}

// Runs the view now and waits for its result.
bool runAndWait(EquivarianceView &view)
{
    view.rerun();
    return view.runner()->waitForIdle(30000) && view.snapshot() &&
           view.snapshot()->generation == view.runner()->currentGeneration();
}

double shownNumber(const QString &text)   // "… = 3.1e-08" → 3.1e-08
{
    return text.section(QLatin1Char('='), -1).trimmed().toDouble();
}

} // namespace

class TestUiEquivariance : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void holdsWithoutPositionsBidirectional();
    void causalMaskBreaksIt();
    void learnedPositionsBreakItOnARealModel();
    void swapAndDraggedOrders();
    void sessionStateRoundTrips();
    void badSessionFieldsAreRejectedByName();
    void sessionStateBeforeItsModel();
    void followsTheSubjectOnlyWhenShown();
    void headlessViewSwitchesTheHead();
    void defaultFigureKeepsBothRows();
    void headlinesNeverOverlap();
};

void TestUiEquivariance::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestUiEquivariance::holdsWithoutPositionsBidirectional()
{
    Subject subject;
    openRandomModel(subject, QString::fromLatin1(kText));
    EquivarianceView view(&subject);
    view.setFocusHead(1, 2);
    QVERIFY(runAndWait(view));
    const auto s = view.snapshot();
    const attn::EquivarianceResult &r = s->result;
    QVERIFY(r.expectedEquivariant);
    QCOMPARE(int(r.heads.size()), 8);   // whole model by default
    QVERIFY2(r.maxAbsErrWeights <= 1e-5, qPrintable(QString::number(r.maxAbsErrWeights)));
    QVERIFY2(r.maxAbsErrOutputs <= 1e-5, qPrintable(QString::number(r.maxAbsErrOutputs)));
    // The large numbers are the engine's, and small.
    EquivarianceFigure *fig = view.figure();
    QVERIFY(shownNumber(fig->weightsErrorText()) <= 1e-5);
    QVERIFY(shownNumber(fig->outputsErrorText()) <= 1e-5);
    QCOMPARE(fig->weightsErrorText().section(QLatin1Char('='), -1).trimmed(), EquivarianceFigure::formatError(r.maxAbsErrWeights));
    QVERIFY(fig->reasonText().contains(QStringLiteral("Equivariant.")));
    // Round-off is drawn near white: the difference scale spans the round-off level, and says so.
    const double floor = EquivarianceFigure::kRoundOff;
    QCOMPARE(fig->weightsDifference()->colorRange(), (std::pair{-floor, floor}));
    QVERIFY2(fig->weightsDifference()->valueLabel().contains(QStringLiteral("round-off")), qPrintable(fig->weightsDifference()->valueLabel()));
    QVERIFY(fig->outputsDifference()->colorRange().second >= floor);
    QVERIFY(fig->reasonText().contains(QStringLiteral("float round-off")));
    // Below the noise floor every difference is drawn as 0, not as faint noise: one colour for every cell.
    HeatmapPlot *diff = fig->weightsDifference();
    QCOMPARE(diff->noiseFloor(), floor);
    bool anyNonZero = false;
    for (int i = 0; i < diff->data().rows; ++i)
        for (int j = 0; j < diff->data().cols; ++j) {
            QCOMPARE(diff->cellColor(i, j), diff->cellColor(0, 0));
            anyNonZero = anyNonZero || diff->cellValue(i, j) != 0.0;
        }
    QVERIFY(anyNonZero);   // there was round-off to hide (the cells' numbers and the hover still show it)

    // random: models tokenize by byte, with no special tokens: reverse puts the labels in reversed order.
    const int L = s->length;
    QCOMPARE(L, int(QString::fromLatin1(kText).size()));
    QStringList reversed = s->labels;
    std::reverse(reversed.begin(), reversed.end());
    QCOMPARE(s->permutedLabels, reversed);
    QCOMPARE(view.strip()->shownLabels(), reversed);
    QCOMPARE(fig->weightsPermutedInput()->data().rowLabels, reversed);
    QCOMPARE(fig->weightsPermutedOutput()->data().colLabels, reversed);
    QCOMPARE(fig->outputsPermutedInput()->data().rows, L);
    QCOMPARE(fig->outputsPermutedInput()->data().cols, 32);

    // The head on screen agrees with the engine's number for that head, and P·A(X)·Pᵀ is A(X) re-indexed.
    for (const attn::HeadEquivariance &h : r.heads)
        if (h.head == attn::HeadRef{1, 2}) QVERIFY(std::abs(h.maxAbsErrWeights - s->focusErrWeights) <= 1e-6);
    QVERIFY(s->focusErrWeights <= 1e-5);
    // Rows of an attention map sum to 1.
    for (int i = 0; i < L; ++i) {
        double sum = 0;
        for (int j = 0; j < L; ++j) sum += fig->weightsPermutedInput()->data().values[std::size_t(i * L + j)];
        QVERIFY(std::abs(sum - 1.0) < 1e-4);
    }
    QVERIFY(view.errorText().isEmpty());
    QVERIFY(view.figureWidget() != nullptr);
    // setFocusHead(1, 2): everything a person reads counts from 0 as the session does ("1.2"): the caption, the
    // titles, the boxes and the per-head grid (2 layers × 4 heads) say L1 H2.
    QVERIFY2(view.figureCaption().contains(QStringLiteral("L1 H2")), qPrintable(view.figureCaption()));
    QCOMPARE(fig->weightsPermutedInput()->title(), QStringLiteral("A(PX): L1 H2 on the permuted input"));
    QCOMPARE(view.sessionState().value(QStringLiteral("head")).toString(), QStringLiteral("1.2"));
    QSpinBox *layer = test::spinBoxWithPrefix(&view, QStringLiteral("layer "));
    QSpinBox *head = test::spinBoxWithPrefix(&view, QStringLiteral("head "));
    QVERIFY(layer && head);
    QCOMPARE(layer->text(), QStringLiteral("layer 1"));
    QCOMPARE(head->text(), QStringLiteral("head 2"));
    QCOMPARE(layer->maximum(), 1);
    QCOMPARE(head->maximum(), 3);
    const HeatmapData &grid = view.headErrors()->data();
    QCOMPARE(grid.rowLabels, (QStringList{QStringLiteral("L0"), QStringLiteral("L1")}));
    QCOMPARE(grid.colLabels, (QStringList{QStringLiteral("H0"), QStringLiteral("H1"), QStringLiteral("H2"), QStringLiteral("H3")}));
    QVERIFY2(view.headErrors()->hoverText(HeatmapCell{1, 2}).startsWith(QStringLiteral("L1 H2: max |ΔA| = ")),
             qPrintable(view.headErrors()->hoverText(HeatmapCell{1, 2})));
    // A person picks head 0 in the box: index 0.
    head->setValue(0);
    QCOMPARE(view.focusHead(), (attn::HeadRef{1, 0}));
}

void TestUiEquivariance::causalMaskBreaksIt()
{
    Subject subject;
    openRandomModel(subject, QString::fromLatin1(kText));
    EquivarianceView view(&subject);
    view.setMask(attn::MaskChoice::Kind::Causal);
    QVERIFY(runAndWait(view));
    const auto s = view.snapshot();
    QVERIFY(!s->result.expectedEquivariant);
    QVERIFY(s->result.maxAbsErrWeights > 1e-3);
    QVERIFY(shownNumber(view.figure()->weightsErrorText()) > 1e-3);
    QVERIFY(shownNumber(view.figure()->outputsErrorText()) > 1e-3);
    QVERIFY(view.figure()->reasonText().contains(QStringLiteral("Not equivariant")));
    QVERIFY(view.figure()->reasonText().contains(QStringLiteral("causal mask")));
    // A real difference sets the scale itself: ± the head on screen's largest difference.
    const double err = s->focusErrWeights;
    QCOMPARE(view.figure()->weightsDifference()->colorRange(), (std::pair{-err, err}));
    QVERIFY(!view.figure()->weightsDifference()->valueLabel().contains(QStringLiteral("round-off")));
    // A(PX) under the causal mask: everything above the diagonal is masked.
    const HeatmapData &a = view.figure()->weightsPermutedInput()->data();
    QCOMPARE(int(a.masked.size()), a.rows * a.cols);
    QVERIFY(a.masked[std::size_t(0 * a.cols + 1)]);
    QVERIFY(!a.masked[std::size_t(1 * a.cols + 0)]);
}

void TestUiEquivariance::learnedPositionsBreakItOnARealModel()
{
    const auto samples = attn::listSampleModels();
    const auto gpt = std::find_if(samples.begin(), samples.end(), [](const auto &m) { return m.name == "induction-gpt2"; });
    if (gpt == samples.end()) QSKIP("sample:induction-gpt2 not found");
    Subject subject;
    subject.setModel(openModel("sample:induction-gpt2"), QStringLiteral("sample:induction-gpt2"));
    subject.setText(QStringLiteral("a b c d e f"));
    EquivarianceView view(&subject);
    QVERIFY(runAndWait(view));
    QVERIFY(view.snapshot()->result.maxAbsErrWeights > 1e-3);
    QVERIFY(view.figure()->reasonText().contains(QStringLiteral("earned positions")));
    // Dropping the positions and the causal mask restores equivariance on the same model.
    view.setPositional(attn::PositionalChoice::None);
    view.setMask(attn::MaskChoice::Kind::Bidirectional);
    QVERIFY(runAndWait(view));
    QVERIFY(view.snapshot()->result.expectedEquivariant);
    QVERIFY2(view.snapshot()->result.maxAbsErrWeights <= 1e-5, qPrintable(QString::number(view.snapshot()->result.maxAbsErrWeights)));
    QVERIFY(view.snapshot()->result.maxAbsErrOutputs <= 1e-4);
}

void TestUiEquivariance::swapAndDraggedOrders()
{
    Subject subject;
    openRandomModel(subject, QStringLiteral("abcde"));
    EquivarianceView view(&subject);
    attn::PermutationSpec swap;
    swap.kind = attn::PermutationSpec::Kind::Swap;
    swap.order = {1, 3};
    view.setPermutation(swap);
    QVERIFY(runAndWait(view));
    QCOMPARE(view.snapshot()->result.permutation, (std::vector<std::int64_t>{0, 3, 2, 1, 4}));
    QCOMPARE(view.strip()->shownLabels(), (QStringList{"a", "d", "c", "b", "e"}));

    attn::PermutationSpec mine;
    mine.kind = attn::PermutationSpec::Kind::Explicit;
    mine.order = {4, 0, 3, 1, 2};
    view.setPermutation(mine);
    QVERIFY(runAndWait(view));
    QCOMPARE(view.snapshot()->result.permutation, mine.order);
    QCOMPARE(view.figure()->weightsPermutedInput()->data().rowLabels, (QStringList{"e", "a", "d", "b", "c"}));
    QVERIFY(view.snapshot()->result.maxAbsErrWeights <= 1e-5);

    // A drag on the token strip (as its signal reports it) becomes the explicit order.
    view.setPermutation({});   // back to reverse
    emit view.strip()->orderEdited({2, 4, 0, 1, 3});
    QCOMPARE(view.settings().permutation.kind, attn::PermutationSpec::Kind::Explicit);
    QVERIFY(runAndWait(view));
    QCOMPARE(view.snapshot()->result.permutation, (std::vector<std::int64_t>{2, 4, 0, 1, 3}));
    QCOMPARE(view.strip()->shownLabels(), (QStringList{"c", "e", "a", "b", "d"}));
    // A new text invalidates a dragged order: back to reverse.
    subject.setText(QStringLiteral("vwxyz"));
    QCOMPARE(view.settings().permutation.kind, attn::PermutationSpec::Kind::Reverse);
}

void TestUiEquivariance::sessionStateRoundTrips()
{
    Subject subject;
    openRandomModel(subject, QString::fromLatin1(kText));
    EquivarianceView a(&subject);
    const QJsonObject state{{"permutation", "random:7"}, {"keep_special_fixed", false}, {"positional", "none"},
                            {"mask", "causal"},          {"scope", "layer:1"},          {"head", "1.3"}};
    QString error;
    QVERIFY2(a.restoreSessionState(state, &error), qPrintable(error));
    QCOMPARE(a.sessionState(), state);
    EquivarianceView b(&subject);
    QVERIFY(b.restoreSessionState(a.sessionState(), &error));
    QCOMPARE(b.sessionState(), state);
    QCOMPARE(b.settings().permutation.seed, std::uint64_t(7));
    QCOMPARE(b.focusHead(), (attn::HeadRef{1, 3}));
    QVERIFY(runAndWait(b));
    QCOMPARE(int(b.snapshot()->result.heads.size()), 4);   // one layer
    // The caption counts as the session does: its layer:1 and head 1.3 read L1 and L1 H3 there.
    QVERIFY2(b.figureCaption().contains(QStringLiteral("L1 H3")), qPrintable(b.figureCaption()));
    QVERIFY2(b.figureCaption().endsWith(QStringLiteral("scope: L1")), qPrintable(b.figureCaption()));
}

void TestUiEquivariance::badSessionFieldsAreRejectedByName()
{
    Subject subject;
    subject.setModel(openModel(kRandomSpec), QString::fromLatin1(kRandomSpec));
    EquivarianceView view(&subject);
    const QJsonObject before = view.sessionState();
    const QList<std::pair<QJsonObject, QString>> bad{
        {{{"permutation", "sideways"}}, "permutation"},
        {{{"positional", "learned-ish"}}, "positional"},
        {{{"positional", "rope"}, {"mask", "window:3"}}, "mask"},
        {{{"scope", "everything"}}, "scope"},
        {{{"head", "7"}}, "head"},
        {{{"keep_special_fixed", "yes"}}, "keep_special_fixed"},
        {{{"colour", "red"}}, "colour"},
    };
    for (const auto &[state, field] : bad) {
        QString error;
        QVERIFY(!view.restoreSessionState(state, &error));
        QVERIFY2(error.startsWith(field + QLatin1Char(':')), qPrintable(error));
        QCOMPARE(view.sessionState(), before);
    }
}

// A session sets workspace states before it opens its model: a head of the coming model is kept until it opens,
// and a head that fits no model is reported by name when it runs.
void TestUiEquivariance::sessionStateBeforeItsModel()
{
    Subject subject;
    openRandomModel(subject, QString::fromLatin1(kText));   // 2 layers
    EquivarianceView view(&subject);
    QString error;
    QVERIFY2(view.restoreSessionState({{"head", "4.1"}}, &error), qPrintable(error));
    const char *bigger = "random:layers=5,heads=2,d_model=16,seed=1";
    subject.setModel(openModel(bigger), QString::fromLatin1(bigger));
    QCOMPARE(view.focusHead(), (attn::HeadRef{4, 1}));
    QVERIFY(runAndWait(view));

    QVERIFY(view.restoreSessionState({{"head", "9.0"}}, &error));
    view.rerun();
    QVERIFY(view.runner()->waitForIdle(30000));
    QVERIFY2(view.errorText().contains(QStringLiteral("9.0")), qPrintable(view.errorText()));
}

// Edits in Explore re-run a shown workspace (debounced); a hidden one waits and catches up when shown.
void TestUiEquivariance::followsTheSubjectOnlyWhenShown()
{
    Subject subject;
    openRandomModel(subject, QStringLiteral("abc"));
    EquivarianceView view(&subject);
    view.show();
    QTRY_VERIFY_WITH_TIMEOUT(view.snapshot() && view.snapshot()->length == 3, 10000);
    subject.setText(QStringLiteral("abcdefg"));
    QTRY_VERIFY_WITH_TIMEOUT(view.snapshot()->length == 7, 10000);

    view.hide();
    const quint64 generation = view.runner()->currentGeneration();
    subject.setText(QStringLiteral("ab"));
    QTest::qWait(400);
    QCOMPARE(view.runner()->currentGeneration(), generation);
    view.show();
    QTRY_VERIFY_WITH_TIMEOUT(view.snapshot()->length == 2, 10000);
}

void TestUiEquivariance::headlessViewSwitchesTheHead()
{
    Subject subject;
    openRandomModel(subject, QString::fromLatin1(kText));
    EquivarianceView view(&subject);
    QCOMPARE(view.viewPrefixes(), QStringList{"equivariance"});
    QString error;
    QVERIFY(view.showView(QStringLiteral("equivariance:1.2"), &error));
    QVERIFY(view.runner()->waitForIdle(30000));
    QCOMPARE(view.snapshot()->focus, (attn::HeadRef{1, 2}));
    // The spec and the title a person reads both count from 0.
    QCOMPARE(view.figure()->weightsPermutedInput()->title(), QStringLiteral("A(PX): L1 H2 on the permuted input"));
    QVERIFY(!view.showView(QStringLiteral("equivariance:9.9"), &error));
    QVERIFY(error.contains(QStringLiteral("9.9")));
    QVERIFY(!view.showView(QStringLiteral("masks:0.0"), &error));
}

// The default export size is the figure as on screen: its wrapped explanation gives it a height for width, which
// once shrank the picture to the labels' height and squeezed the lower row of plots out of it.
void TestUiEquivariance::headlinesNeverOverlap()
{
    // The two error headlines sit side by side where both fit and one under the other where not; either way each
    // is shown whole and they never touch.
    Subject subject;
    subject.setModel(openModel("random:layers=1,heads=2,d_model=16,seed=3"), QStringLiteral("random"));
    subject.setText(QStringLiteral("a b c d e f"));
    EquivarianceView view(&subject);
    QVERIFY(runAndWait(view));
    EquivarianceFigure *fig = view.figure();
    QLabel *weights = nullptr, *outputs = nullptr;
    for (QLabel *l : fig->findChildren<QLabel *>()) {
        if (l->text() == fig->weightsErrorText()) weights = l;
        if (l->text() == fig->outputsErrorText()) outputs = l;
    }
    QVERIFY(weights && outputs);
    QList<bool> arrangements;
    for (int width : {1600, 1500, 1400, 1300, 1200, 1100, 1000}) {
        view.resize(width, 900);
        view.show();
        QTest::qWait(30);
        QVERIFY2(weights->width() >= weights->sizeHint().width() && outputs->width() >= outputs->sizeHint().width(),
                 qPrintable(QStringLiteral("at %1 px: %2 < %3 or %4 < %5").arg(width).arg(weights->width())
                                .arg(weights->sizeHint().width()).arg(outputs->width()).arg(outputs->sizeHint().width())));
        QVERIFY(!weights->geometry().adjusted(-4, 0, 4, 0).intersects(outputs->geometry()));
        arrangements << (weights->geometry().top() == outputs->geometry().top());
    }
    QVERIFY(arrangements.first());    // side by side at 1600 px
    QVERIFY(!arrangements.last());    // stacked at 1000 px
}

void TestUiEquivariance::defaultFigureKeepsBothRows()
{
    Subject subject;
    openRandomModel(subject, QString::fromLatin1(kText));
    EquivarianceView view(&subject);
    view.resize(1600, 1000);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(runAndWait(view));
    QWidget *figure = view.figureWidget();
    QVERIFY(figure);
    QVERIFY(figure->hasHeightForWidth());
    const QSize size = defaultFigureSize(figure, view.figureCaption());
    QCOMPARE(size.width(), figure->width());
    QVERIFY2(size.height() >= figure->height(),
             qPrintable(QStringLiteral("export %1 px tall, on screen %2").arg(size.height()).arg(figure->height())));
}

QTEST_MAIN(TestUiEquivariance)
#include "tst_ui_equivariance.moc"
