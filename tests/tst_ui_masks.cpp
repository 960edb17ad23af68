// SPDX-License-Identifier: GPL-3.0-or-later
// The Masks workspace offscreen, over the induction sample (causal GPT-2): its panels against the fp64
// reference on the model's own Q, K, V, the difference maps, the proofs' numbers, the mask editor (mouse and
// API), padding toggles, session state and headless views.

#include "plots/heatmapplot.h"
#include "plots/xyplot.h"
#include "runner/enginerunner.h"
#include "jsonschema.h"
#include "kit/paddingstrip.h"
#include "kit/subject.h"
#include "workspaces/masks/masksview.h"

#include <attnscope/maskeffects.h>
#include <attnscope/reference.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include <cmath>

using namespace attnui;

class TestUiMasks : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void panelsMatchReference();
    void differenceMapsAreDifferences();
    void proofsShowNoCausalLeak();
    void editorTogglesCustomCells();
    void paddingStripMarksKeys();
    void sessionRoundTrip();
    void badSessionFieldsAreNamed_data();
    void badSessionFieldsAreNamed();
    void showViewSelectsHead();
    void followsSubjectText();
    void exportDataWritesTheMasksDocument();
    void modelOwnMaskOfSlidingWindowGqaLayer();

private:
    // Edits re-run after a short debounce: let it fire, then wait for the run.
    void wait(MasksView &view)
    {
        view.show();   // a hidden workspace waits with its runs until it is shown
        QTest::qWait(200);
        QVERIFY(view.runner()->waitForIdle(60000));
        QVERIFY(view.snapshot());
    }
    int panelNamed(const MasksView &view, const QString &name) const;

    Subject m_subject;
    TextModelPtr m_model;
};

void TestUiMasks::initTestCase()
{
    auto model = attn::TextModel::open("sample:induction-gpt2");
    if (!model) QSKIP(qPrintable(QString::fromStdString(model.status().message())));
    m_model = std::make_shared<const attn::TextModel>(std::move(model).value());
    m_subject.setModel(m_model, QStringLiteral("sample:induction-gpt2"));
    m_subject.setText(QStringLiteral("the cat sat on the mat. the cat"));
}

int TestUiMasks::panelNamed(const MasksView &view, const QString &name) const
{
    for (int i = 0; i < view.panelCount(); ++i)
        if (QString::fromStdString(view.snapshot()->comparison.variants[std::size_t(i)].name) == name) return i;
    return -1;
}

void TestUiMasks::panelsMatchReference()
{
    MasksView view(&m_subject);
    wait(view);
    const MasksSnapshot &s = *view.snapshot();
    // The model's own (causal) + bidirectional, key padding, window, custom: causal is not repeated.
    QCOMPARE(view.panelCount(), 5);
    QCOMPARE(panelNamed(view, QStringLiteral("causal")), -1);
    const int L = s.length();
    const int layer = s.request.layer, head = s.request.head;

    // Expected: the fp64 reference on Q, K, V captured by a separate forward pass.
    attn::ForwardInput in;
    in.tokenIds = s.tokenIds;
    attn::ForwardOptions fo;
    fo.captureQKV = true;
    fo.backend = attn::Backend::Reference;
    auto run = m_model->model().forward(in, fo);
    QVERIFY(run);
    const attn::LayerQKV &qkv = run->qkv[std::size_t(layer)];
    attn::ReferenceOptions ro;
    ro.keepWeights = true;
    ro.scale = attn::modelAttentionScale(m_model->model().config(), layer);
    for (int i = 0; i < view.panelCount(); ++i) {
        auto ref = attn::referenceAttention(attn::headSlice(qkv.q, head), attn::headSlice(qkv.k, head),
                                            attn::headSlice(qkv.v, head), s.comparison.variants[std::size_t(i)].mask, ro);
        QVERIFY(ref);
        const HeatmapData &d = view.weightsPanel(i)->data();
        QCOMPARE(d.rows, L);
        for (int e = 0; e < L * L; ++e) QVERIFY(std::abs(d.values[std::size_t(e)] - ref->P[std::size_t(e)]) <= 2e-5);
    }
    // The causal panel (the model's own): the upper triangle is exactly 0 and hatched.
    const int causal = panelNamed(view, QStringLiteral("model's own: causal"));
    QCOMPARE(causal, 0);
    const HeatmapData &c = view.weightsPanel(causal)->data();
    for (int i = 0; i < L; ++i)
        for (int j = i + 1; j < L; ++j) {
            QCOMPARE(c.values[std::size_t(i * L + j)], 0.0f);
            QCOMPARE(int(c.masked[std::size_t(i * L + j)]), 1);
        }
    QCOMPARE(view.weightsPanel(0)->title(), QStringLiteral("model's own: causal"));
    QVERIFY(!view.figureCaption().isEmpty());
    QVERIFY(view.figureCaption().contains(QStringLiteral("L%1 H%2").arg(layer).arg(head)));
}

void TestUiMasks::differenceMapsAreDifferences()
{
    MasksView view(&m_subject);
    wait(view);
    const int L = view.snapshot()->length();
    const HeatmapData &base = view.weightsPanel(0)->data();
    QVERIFY(view.differencePanel(0) == nullptr);
    for (int i = 1; i < view.panelCount(); ++i) {
        const HeatmapData &w = view.weightsPanel(i)->data();
        const HeatmapData &d = view.differencePanel(i)->data();
        QCOMPARE(view.differencePanel(i)->colorMap(), ColorMap::Diverging);
        for (int e = 0; e < L * L; ++e)
            QVERIFY(std::abs(d.values[std::size_t(e)] - (w.values[std::size_t(e)] - base.values[std::size_t(e)])) <= 1e-6);
        // The hover shows all three numbers.
        QVERIFY(view.differencePanel(i)->hoverText({L - 1, 0}).contains(QStringLiteral("baseline")));
    }
    // The custom mask starts as causal, the model's own: its difference map is all zeros.
    const HeatmapData &same = view.differencePanel(view.customPanel())->data();
    for (float v : same.values) QCOMPARE(v, 0.0f);
    // The bars: one series per non-baseline mask, one bar per token, ‖ΔO‖ from the snapshot.
    QCOMPARE(view.deltaPlot()->kind(), XYKind::Bars);
    QCOMPARE(view.deltaPlot()->series().size(), view.panelCount() - 1);
    QCOMPARE(view.deltaPlot()->categories().size(), L);
}

void TestUiMasks::proofsShowNoCausalLeak()
{
    MasksView view(&m_subject);
    view.setPerturbedToken(4);
    wait(view);
    QVERIFY(view.runner()->waitForIdle());
    const MasksSnapshot &s = *view.snapshot();
    QVERIFY(s.leakCausal && s.leakBidirectional);
    QCOMPARE(s.leakCausal->position, std::int64_t(4));
    QVERIFY(s.leakCausal->maxDiffBefore <= 1e-6);
    QVERIFY(s.leakBidirectional->maxDiffBefore > 1e-4);
    QVERIFY2(view.leakageText().contains(QStringLiteral("✓")), qPrintable(view.leakageText()));
    QCOMPARE(view.leakagePlot()->series().size(), 2);
    for (int i = 0; i < 4; ++i) QVERIFY(view.leakagePlot()->series()[0].y[std::size_t(i)] <= 1e-6);
    QVERIFY(s.padding);
    qInfo("padding: masked %.3g, not masked %.3g, hidden-state scale %.3g", s.padding->maxMasked,
          s.padding->maxUnmasked, s.padding->hiddenScale);
    QVERIFY(s.padding->maskedIsInvisible());
    QVERIFY(s.padding->maxUnmasked > 1e3 * s.padding->invisibleTolerance());
    QVERIFY(view.paddingText().contains(QStringLiteral("✓")));
}

void TestUiMasks::editorTogglesCustomCells()
{
    MasksView view(&m_subject);
    view.resize(1600, 1000);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    wait(view);
    const int ci = view.customPanel();
    QVERIFY(ci > 0);
    const int L = view.snapshot()->length();
    // Starts as causal: the mask that ran; the request holds none of its own until the first edit.
    QCOMPARE(view.snapshot()->customAllowed.size(), std::size_t(L) * std::size_t(L));
    QVERIFY(view.request().customAllowed.empty());
    for (int i = 0; i < L; ++i)
        for (int j = 0; j < L; ++j) QCOMPARE(int(view.snapshot()->customAllowed[std::size_t(i * L + j)]), j <= i ? 1 : 0);

    view.toggleCustomCell(2, 5);   // allow a future key
    wait(view);
    QCOMPARE(int(view.request().customAllowed[std::size_t(2 * L + 5)]), 1);
    QCOMPARE(int(view.weightsPanel(ci)->data().masked[std::size_t(2 * L + 5)]), 0);
    QVERIFY(view.weightsPanel(ci)->data().values[std::size_t(2 * L + 5)] > 0.0f);

    // A click on a cell blocks it (the diagonal is allowed in causal).
    HeatmapPlot *plot = view.weightsPanel(ci);
    QTest::qWait(50);
    const QPoint at = plot->plotWidget()->mapFrom(plot, plot->cellCenter(3, 3).toPoint());
    QTest::mouseClick(plot->plotWidget(), Qt::LeftButton, {}, at);
    wait(view);
    QCOMPARE(int(view.request().customAllowed[std::size_t(3 * L + 3)]), 0);
    QCOMPARE(int(view.weightsPanel(ci)->data().masked[std::size_t(3 * L + 3)]), 1);
    QCOMPARE(view.weightsPanel(ci)->data().values[std::size_t(3 * L + 3)], 0.0f);

    // A drag along row 5 over future keys paints them all allowed (the first cell's opposite).
    const auto pointOf = [plot = view.weightsPanel(ci)](int r, int c) {
        return plot->plotWidget()->mapFrom(plot, plot->cellCenter(r, c).toPoint());
    };
    QWidget *target = view.weightsPanel(ci)->plotWidget();
    QTest::mousePress(target, Qt::LeftButton, {}, pointOf(5, 6));
    QTest::mouseMove(target, pointOf(5, 7));
    QTest::mouseMove(target, pointOf(5, 8));
    QTest::mouseRelease(target, Qt::LeftButton, {}, pointOf(5, 8));
    wait(view);
    for (int j = 6; j <= 8; ++j) QCOMPARE(int(view.request().customAllowed[std::size_t(5 * L + j)]), 1);
    QCOMPARE(int(view.request().customAllowed[std::size_t(5 * L + 9)]), 0);
    QCOMPARE(int(view.weightsPanel(view.customPanel())->data().masked[std::size_t(5 * L + 8)]), 0);

    // On the large editor a drag paints the rectangle from the pressed cell to the current one; moving back
    // shrinks it again (the cells it leaves return to what they were at the press). Rows 6..8 × keys 7..9 are
    // future keys (blocked in causal), so the rectangle is allowed; the editor and the small panel both show it.
    HeatmapPlot *editor = view.customEditor();
    QVERIFY(editor->isVisible());
    QCOMPARE(editor->data().rows, L);
    QVERIFY(L >= 11);
    const auto editorPoint = [editor](int r, int c) {
        return editor->plotWidget()->mapFrom(editor, editor->cellCenter(r, c).toPoint());
    };
    QTest::mousePress(editor->plotWidget(), Qt::LeftButton, {}, editorPoint(6, 7));
    QTest::mouseMove(editor->plotWidget(), editorPoint(8, L - 1));
    QTest::mouseMove(editor->plotWidget(), editorPoint(8, 9));
    QTest::mouseRelease(editor->plotWidget(), Qt::LeftButton, {}, editorPoint(8, 9));
    wait(view);
    for (int i = 6; i <= 8; ++i) {
        for (int j = 0; j < L; ++j) {
            const int expected = (j >= 7 && j <= 9) || j <= i ? 1 : 0;
            const int got = view.request().customAllowed[std::size_t(i * L + j)];
            QVERIFY2(got == expected, qPrintable(QStringLiteral("cell %1,%2: %3").arg(i).arg(j).arg(got)));
            QCOMPARE(int(editor->data().masked[std::size_t(i * L + j)]), 1 - expected);
            QCOMPARE(int(view.weightsPanel(ci)->data().masked[std::size_t(i * L + j)]), 1 - expected);
        }
    }

    view.resetCustomMask();
    wait(view);
    QCOMPARE(int(view.snapshot()->customAllowed[std::size_t(2 * L + 5)]), 0);
    QCOMPARE(int(view.snapshot()->customAllowed[std::size_t(3 * L + 3)]), 1);
    QCOMPARE(int(view.weightsPanel(ci)->data().masked[std::size_t(2 * L + 5)]), 1);
    // An edit after the reset starts from the causal mask that ran.
    view.toggleCustomCell(4, 4);
    QCOMPARE(view.request().customAllowed.size(), std::size_t(L) * std::size_t(L));
    for (int i = 0; i < L; ++i)
        for (int j = 0; j < L; ++j)
            QCOMPARE(int(view.request().customAllowed[std::size_t(i * L + j)]), (i == 4 && j == 4) ? 0 : (j <= i ? 1 : 0));
    wait(view);
}

void TestUiMasks::paddingStripMarksKeys()
{
    MasksView view(&m_subject);
    wait(view);
    const int L = view.snapshot()->length();
    QCOMPARE(view.paddingStrip()->count(), L);
    // By default a decoder is padded on the left: keys 0 and 1, so the panel differs from the model's own.
    QCOMPARE(view.snapshot()->request.padding, (std::vector<int>{0, 1}));
    QVERIFY(view.paddingStrip()->isPadding(0));
    QVERIFY(view.paddingStrip()->isPadding(1));
    QVERIFY(!view.paddingStrip()->isPadding(2));
    // A click on a chip toggles it; so does Space on the chip chosen with the arrow keys.
    PaddingStrip *strip = view.paddingStrip();
    QTest::mouseClick(strip, Qt::LeftButton, {}, strip->chipRect(2).center());
    QCOMPARE(strip->current(), 2);
    QTest::keyClick(strip, Qt::Key_Left);
    QTest::keyClick(strip, Qt::Key_Left);
    QTest::keyClick(strip, Qt::Key_Left);   // stays at the first chip
    QCOMPARE(strip->current(), 0);
    QTest::keyClick(strip, Qt::Key_Space);
    wait(view);
    QCOMPARE(view.request().padding, (std::vector<int>{1, 2}));
    const int p = panelNamed(view, QStringLiteral("key padding"));
    QVERIFY(p > 0);
    const HeatmapData &d = view.weightsPanel(p)->data();
    for (int i = 0; i < L; ++i) {
        QCOMPARE(int(d.masked[std::size_t(i * L + 2)]), 1);
        QCOMPARE(d.values[std::size_t(i * L + 1)], 0.0f);
    }
    QCOMPARE(int(d.masked[0]), 0);   // key 0 is a real token again
    QCOMPARE(d.values[0], 1.0f);     // and query 0 (causal) sees only it
    QVERIFY(view.paddingStrip()->isPadding(2));
    QVERIFY(!view.paddingStrip()->isPadding(0));
}

void TestUiMasks::sessionRoundTrip()
{
    MasksView a(&m_subject);
    wait(a);
    a.selectHead(1, 0);
    a.togglePadding(1);
    a.toggleCustomCell(0, 3);
    a.setPerturbedToken(5);
    a.setChoices({MaskChoice::Bidirectional, MaskChoice::Custom, MaskChoice::Window});
    wait(a);
    const QJsonObject state = a.sessionState();
    QCOMPARE(state.value(QStringLiteral("layer")).toInt(), 1);
    QCOMPARE(state.value(QStringLiteral("masks")).toArray().size(), 3);

    MasksView b(&m_subject);
    QString error;
    QVERIFY2(b.restoreSessionState(state, &error), qPrintable(error));
    wait(b);
    QCOMPARE(b.sessionState(), state);
    QCOMPARE(b.panelCount(), 4);
    QCOMPARE(b.snapshot()->request.layer, 1);
    QCOMPARE(b.snapshot()->leakCausal->position, std::int64_t(5));
}

void TestUiMasks::badSessionFieldsAreNamed_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("field");
    QTest::addRow("layer") << QByteArray(R"({"layer": "two"})") << "layer";
    QTest::addRow("head") << QByteArray(R"({"head": -1})") << "head";
    QTest::addRow("masks") << QByteArray(R"({"masks": ["causal", "diagonal"]})") << "masks";
    QTest::addRow("window") << QByteArray(R"({"window": 1.5})") << "window";
    QTest::addRow("padding") << QByteArray(R"({"padding": [1, "x"]})") << "padding";
    QTest::addRow("custom rows") << QByteArray(R"({"custom": {"length": 2, "allowed": ["10"]}})") << "custom.allowed";
    QTest::addRow("custom chars") << QByteArray(R"({"custom": {"length": 2, "allowed": ["10", "1x"]}})") << "custom.allowed";
    QTest::addRow("custom length") << QByteArray(R"({"custom": {"length": 0, "allowed": []}})") << "custom.length";
    QTest::addRow("perturb") << QByteArray(R"({"perturb": -3})") << "perturb";
    QTest::addRow("pads") << QByteArray(R"({"pads": 0})") << "pads";
}

void TestUiMasks::badSessionFieldsAreNamed()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, field);
    MasksView view(&m_subject);
    wait(view);
    const QJsonObject before = view.sessionState();
    QString error;
    QVERIFY(!view.restoreSessionState(QJsonDocument::fromJson(json).object(), &error));
    QVERIFY2(error.startsWith(field), qPrintable(error));
    QCOMPARE(view.sessionState(), before);
}

// sample:retrieval-qwen2: layer 0 is a sliding-window layer (W = 3), with grouped-query attention. Under "the
// model's own" mask the panel must show exactly what the forward pass multiplied V with, window included.
void TestUiMasks::modelOwnMaskOfSlidingWindowGqaLayer()
{
    auto opened = attn::TextModel::open("sample:retrieval-qwen2");
    QVERIFY2(opened.isOk(), opened.status().message().c_str());
    const auto model = std::make_shared<const attn::TextModel>(std::move(opened).value());
    Subject subject;
    subject.setModel(model, QStringLiteral("sample:retrieval-qwen2"));
    subject.setText(QStringLiteral("ka 3 mo 7 ri 1 di 5 mo"));
    MasksView view(&subject);
    wait(view);
    for (const QString &spec : {QStringLiteral("masks:0.3"), QStringLiteral("masks:1.2")}) {
        QString error;
        QVERIFY2(view.showView(spec, &error), qPrintable(error));
        wait(view);
        const auto &s = *view.snapshot();
        const int layer = s.request.layer, head = s.request.head;
        attn::ForwardInput in;
        in.tokenIds = s.tokenIds;
        attn::ForwardOptions fo;
        fo.weightsMode = attn::WeightsRequest::Mode::Heads;
        fo.weightHeads = {attn::HeadRef{layer, head}};
        auto run = model->model().forward(in, fo);
        QVERIFY(run);
        const std::vector<float> &captured = run->heads.front().weights;
        QCOMPARE(QString::fromStdString(s.comparison.variants[0].name),
                 layer == 0 ? QStringLiteral("model's own: causal, sliding 3") : QStringLiteral("model's own: causal"));
        const std::vector<float> &shown = s.comparison.variants[0].weights;
        QCOMPARE(shown.size(), captured.size());
        for (std::size_t e = 0; e < shown.size(); ++e)
            QVERIFY2(std::abs(shown[e] - captured[e]) <= 1e-5, qPrintable(QStringLiteral("%1 cell %2: %3 vs %4").arg(spec).arg(e).arg(shown[e]).arg(captured[e])));
    }
}

void TestUiMasks::showViewSelectsHead()
{
    MasksView view(&m_subject);
    wait(view);
    QCOMPARE(view.viewPrefixes(), QStringList{QStringLiteral("masks")});
    QString error;
    QVERIFY(view.showView(QStringLiteral("masks:0.1"), &error));
    wait(view);
    QCOMPARE(view.snapshot()->request.layer, 0);
    QCOMPARE(view.snapshot()->request.head, 1);
    QVERIFY(!view.showView(QStringLiteral("masks:9.0"), &error));
    QVERIFY(error.contains(QStringLiteral("layers")));
    QVERIFY(!view.showView(QStringLiteral("masks:x"), &error));
    QVERIFY(!view.showView(QStringLiteral("grid"), &error));
    QVERIFY(view.figureWidget());
}

void TestUiMasks::followsSubjectText()
{
    Subject subject;
    subject.setModel(m_model, QStringLiteral("sample:induction-gpt2"));
    subject.setText(QStringLiteral("one two three"));
    MasksView view(&subject);
    wait(view);
    const int before = view.snapshot()->length();
    subject.setText(QStringLiteral("one two three four five six seven"));
    QTRY_VERIFY_WITH_TIMEOUT(view.snapshot()->length() > before, 10000);
    QCOMPARE(view.paddingStrip()->count(), view.snapshot()->length());
    // The custom mask follows the new length (restarted as causal).
    QCOMPARE(view.request().customLength, view.snapshot()->length());
}

// Export Data (JSON): the panels' numbers and the proofs, as the workspace shows them.
void TestUiMasks::exportDataWritesTheMasksDocument()
{
    MasksView view(&m_subject);
    view.setPerturbedToken(4);
    wait(view);
    const MasksSnapshot &s = *view.snapshot();
    QVERIFY(view.dataFormats().value(0).contains(QLatin1String("*.json")));
    QTemporaryDir dir;
    QString error;
    QVERIFY2(view.exportData(dir.filePath(QStringLiteral("masks.json")), &error), qPrintable(error));
    const QJsonObject doc = attn::test::readValidatedJson(dir.filePath(QStringLiteral("masks.json")),
                                                          QStringLiteral(ATTNSCOPE_SCHEMA_DIR "/masks.schema.json"));
    QVERIFY(!doc.isEmpty());
    QCOMPARE(doc.value("kind").toString(), QStringLiteral("masks"));
    const int L = s.length();
    QCOMPARE(doc.value("input").toObject().value("length").toInt(), L);
    const QJsonArray variants = doc.value("variants").toArray();
    QCOMPARE(variants.size(), qsizetype(s.comparison.variants.size()));
    for (qsizetype v = 0; v < variants.size(); ++v) {
        const QJsonObject var = variants.at(v).toObject();
        const attn::HeadUnderMask &panel = s.comparison.variants[std::size_t(v)];
        QCOMPARE(var.value("name").toString(), QString::fromStdString(panel.name));
        const QJsonArray w = var.value("weights").toArray(), d = var.value("weight_diff").toArray(),
                         baseline = variants.at(0).toObject().value("weights").toArray();
        for (int i = 0; i < L; ++i)
            for (int j = 0; j < L; ++j) {
                QCOMPARE(float(w.at(i).toArray().at(j).toDouble()), panel.weights[std::size_t(i * L + j)]);
                // The difference from the baseline, recomputed from the document's own weights.
                QVERIFY(std::abs(d.at(i).toArray().at(j).toDouble() -
                                 (w.at(i).toArray().at(j).toDouble() - baseline.at(i).toArray().at(j).toDouble())) <= 1e-6);
            }
    }
    // The proofs: a causal mask lets nothing before the replaced token change; a bidirectional one does.
    const QJsonObject leakage = doc.value("leakage").toObject();
    QCOMPARE(leakage.value("causal").toObject().value("position").toInt(), 4);
    QVERIFY(leakage.value("causal").toObject().value("max_diff_before").toDouble() <= 1e-6);
    QVERIFY(leakage.value("bidirectional").toObject().value("max_diff_before").toDouble() > 1e-4);
    QVERIFY(doc.value("padding").toObject().value("masked_is_invisible").toBool());
    QCOMPARE(doc.value("provenance").toObject().value("model").toObject().value("source").toString(),
             QStringLiteral("sample:induction-gpt2"));
    // CSV: the panel on screen.
    QVERIFY2(view.exportData(dir.filePath(QStringLiteral("masks.csv")), &error), qPrintable(error));
}

QTEST_MAIN(TestUiMasks)
#include "tst_ui_masks.moc"
