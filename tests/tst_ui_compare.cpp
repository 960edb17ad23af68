// SPDX-License-Identifier: GPL-3.0-or-later
// The Compare workspace offscreen, over the induction sample: two heads, two texts (equal and different
// lengths) and two settings against separate forward passes; the difference map; linked hover; session state
// and headless views.

#include "jsonschema.h"
#include "plots/heatmapplot.h"
#include "runner/enginerunner.h"
#include "kit/subject.h"
#include "workspaces/compare/compareview.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace attnui;

class TestUiCompare : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void twoHeads();
    void twoTextsOfDifferentLengths();
    void twoSettings();
    void linkedHover();
    void sessionRoundTrip();
    void badSessionFieldsAreNamed_data();
    void badSessionFieldsAreNamed();
    void sessionHeadOutsideTheModelIsReported();
    void views();
    void exportDataWritesBothMatrices();

private:
    void wait(CompareView &view)
    {
        view.show();   // a hidden workspace waits with its runs until it is shown
        QTest::qWait(250);   // the debounce
        QVERIFY(view.runner()->waitForIdle(60000));
        QVERIFY(view.snapshot());
    }
    // The head's weights from a plain forward pass (the engine, not the workspace).
    std::vector<float> weights(const QString &text, attn::HeadRef head, std::optional<attn::MaskSpec> mask = {},
                               bool dropPositions = false) const;

    Subject m_subject;
    TextModelPtr m_model;
};

void TestUiCompare::initTestCase()
{
    auto model = attn::TextModel::open("sample:induction-gpt2");
    if (!model) QSKIP(qPrintable(QString::fromStdString(model.status().message())));
    m_model = std::make_shared<const attn::TextModel>(std::move(model).value());
    m_subject.setModel(m_model, QStringLiteral("sample:induction-gpt2"));
    m_subject.setText(QStringLiteral("bo he so ve bo he so ve"));
}

std::vector<float> TestUiCompare::weights(const QString &text, attn::HeadRef head, std::optional<attn::MaskSpec> mask,
                                          bool dropPositions) const
{
    auto tokens = m_model->tokenize(text.toStdString());
    attn::ForwardInput in;
    in.tokenIds = tokens->ids;
    attn::ForwardOptions fo;
    fo.backend = attn::Backend::Reference;
    fo.weightsMode = attn::WeightsRequest::Mode::Heads;
    fo.weightHeads = {head};
    fo.maskOverride = mask;
    fo.dropPositions = dropPositions;
    auto out = m_model->model().forward(in, fo);
    return out ? out->heads.front().weights : std::vector<float>{};
}

namespace {

void expectClose(const std::vector<float> &actual, const std::vector<float> &expected, double tol = 2e-5)
{
    QCOMPARE(actual.size(), expected.size());
    for (std::size_t e = 0; e < actual.size(); ++e)
        if (std::abs(actual[e] - expected[e]) > tol)
            QFAIL(qPrintable(QStringLiteral("element %1: %2, expected %3").arg(e).arg(actual[e]).arg(expected[e])));
}

} // namespace

void TestUiCompare::twoHeads()
{
    CompareView view(&m_subject);
    view.setHeads({0, 1}, {1, 2});
    wait(view);
    const CompareSnapshot &s = *view.snapshot();
    QCOMPARE(s.request.mode, CompareMode::Heads);
    const std::vector<float> a = weights(m_subject.text(), {0, 1}), b = weights(m_subject.text(), {1, 2});
    expectClose(view.plotA()->data().values, a);
    expectClose(view.plotB()->data().values, b);
    const int L = s.a.length();
    QCOMPARE(s.common, L);
    const HeatmapData &d = view.diffPlot()->data();
    QCOMPARE(view.diffPlot()->colorMap(), ColorMap::Diverging);
    for (int e = 0; e < L * L; ++e)
        QVERIFY(std::abs(d.values[std::size_t(e)] - (view.plotA()->data().values[std::size_t(e)] - view.plotB()->data().values[std::size_t(e)])) <= 1e-6);
    // Causal model: the upper triangle is masked on both sides, hatched in the difference too.
    QCOMPARE(int(d.masked[1]), 1);
    QCOMPARE(view.plotA()->title(), QStringLiteral("A: L0 H1"));
    QVERIFY(view.noteText().isEmpty());
    QVERIFY(view.figureCaption().contains(QStringLiteral("L1 H2")));
}

void TestUiCompare::twoTextsOfDifferentLengths()
{
    CompareView view(&m_subject);
    view.setHeads({1, 0}, {1, 0});
    view.setMode(CompareMode::Texts);
    const QString textB = QStringLiteral("bo he so ve bo he so ve pa va");
    view.setTextB(textB);
    wait(view);
    const CompareSnapshot &s = *view.snapshot();
    const int LA = s.a.length(), LB = s.b.length();
    QVERIFY(LB > LA);
    QCOMPARE(s.common, LA);
    expectClose(s.a.weights, weights(m_subject.text(), {1, 0}));
    expectClose(s.b.weights, weights(textB, {1, 0}));
    // Only the common block, aligned by position; the note says so.
    QCOMPARE(view.diffPlot()->data().rows, LA);
    for (int i = 0; i < LA; ++i)
        for (int j = 0; j < LA; ++j)
            QVERIFY(std::abs(s.diff[std::size_t(i * LA + j)] - (s.a.weights[std::size_t(i * LA + j)] - s.b.weights[std::size_t(i * LB + j)])) <= 1e-6);
    QVERIFY2(view.noteText().contains(QStringLiteral("only the first %1 positions").arg(LA)), qPrintable(view.noteText()));
    // Causal model and B extends A: the common block is the same (positions < n never see the rest).
    QVERIFY(s.maxAbsDiff <= 1e-6);
}

void TestUiCompare::twoSettings()
{
    CompareView view(&m_subject);
    view.setHeads({1, 3}, {1, 3});
    CompareSettings a, b;
    b.mask = CompareSettings::Mask::Bidirectional;
    b.positions = false;
    view.setSettings(a, b);
    view.setMode(CompareMode::Settings);
    wait(view);
    const CompareSnapshot &s = *view.snapshot();
    expectClose(s.a.weights, weights(m_subject.text(), {1, 3}));
    expectClose(s.b.weights, weights(m_subject.text(), {1, 3}, attn::MaskSpec::bidirectional(), true));
    QVERIFY(s.maxAbsDiff > 1e-3);
    QVERIFY(view.plotB()->title().contains(QStringLiteral("no positions")));
    QCOMPARE(int(view.plotB()->data().masked[1]), 0);   // bidirectional: nothing masked
}

void TestUiCompare::linkedHover()
{
    CompareView view(&m_subject);
    view.resize(1400, 800);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setHeads({0, 0}, {1, 3});
    wait(view);
    const CompareSnapshot &s = *view.snapshot();
    // The mouse over a cell of A: outlined in all three, the read-out shows A, B and A − B.
    HeatmapPlot *a = view.plotA();
    QTest::qWait(50);
    const QPoint at = a->plotWidget()->mapFrom(a, a->cellCenter(5, 1).toPoint());
    QTest::mouseMove(a->plotWidget(), at);
    QTRY_VERIFY(view.diffPlot()->highlightedCell().has_value());
    for (HeatmapPlot *p : {view.plotA(), view.plotB(), view.diffPlot()}) QCOMPARE(*p->highlightedCell(), (HeatmapCell{5, 1}));
    const int L = s.a.length();
    const QString text = view.readout();
    QVERIFY2(text.contains(QString::number(s.a.weights[std::size_t(5 * L + 1)], 'f', 4)), qPrintable(text));
    QVERIFY(text.contains(QString::number(s.b.weights[std::size_t(5 * L + 1)], 'f', 4)));
    QVERIFY(text.contains(QStringLiteral("A − B = %1").arg(s.diff[std::size_t(5 * L + 1)], 0, 'f', 4)));
    QCOMPARE(view.diffPlot()->hoverText({5, 1}), text);
}

void TestUiCompare::sessionRoundTrip()
{
    CompareView a(&m_subject);
    a.setHeads({1, 2}, {0, 3});
    a.setTextB(QStringLiteral("pa va ro"));
    CompareSettings sa, sb;
    sa.mask = CompareSettings::Mask::Window;
    sa.window = 3;
    sb.positions = false;
    a.setSettings(sa, sb);
    a.setMode(CompareMode::Settings);
    wait(a);
    const QJsonObject state = a.sessionState();
    QCOMPARE(state.value(QStringLiteral("settings_a")).toString(), QStringLiteral("window:3"));
    QCOMPARE(state.value(QStringLiteral("settings_b")).toString(), QStringLiteral("model/nopos"));
    CompareView b(&m_subject);
    QString error;
    QVERIFY2(b.restoreSessionState(state, &error), qPrintable(error));
    wait(b);
    QCOMPARE(b.sessionState(), state);
    QCOMPARE(b.snapshot()->request.mode, CompareMode::Settings);
    QCOMPARE(b.snapshot()->request.headA, (attn::HeadRef{1, 2}));
}

void TestUiCompare::badSessionFieldsAreNamed_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("field");
    QTest::addRow("mode") << QByteArray(R"({"mode": "three"})") << "mode";
    QTest::addRow("text_b") << QByteArray(R"({"text_b": 5})") << "text_b";
    // Longer than the line edit holds (it would cut it silently): refused, naming the limit.
    QTest::addRow("text_b too long") << QByteArray("{\"text_b\": \"" + QByteArray(32768, 'b') + "\"}") << "text_b: 32768 characters";
    QTest::addRow("head_a syntax") << QByteArray(R"({"head_a": "1"})") << "head_a";
    QTest::addRow("head_b negative") << QByteArray(R"({"head_b": "-1.0"})") << "head_b";
    QTest::addRow("settings_a") << QByteArray(R"({"settings_a": "window:-1"})") << "settings_a";
    QTest::addRow("settings_b") << QByteArray(R"({"settings_b": "sideways"})") << "settings_b";
}

void TestUiCompare::badSessionFieldsAreNamed()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, field);
    CompareView view(&m_subject);
    wait(view);
    const QJsonObject before = view.sessionState();
    QString error;
    QVERIFY(!view.restoreSessionState(QJsonDocument::fromJson(json).object(), &error));
    QVERIFY2(error.startsWith(field), qPrintable(error));
    QCOMPARE(view.sessionState(), before);
}

// A session sets its heads before its own model is open, so a head the model lacks is reported by the run.
void TestUiCompare::sessionHeadOutsideTheModelIsReported()
{
    CompareView view(&m_subject);
    wait(view);
    QString error;
    QVERIFY(view.restoreSessionState(QJsonObject{{QStringLiteral("mode"), QStringLiteral("heads")},
                                                 {QStringLiteral("head_a"), QStringLiteral("0.0")},
                                                 {QStringLiteral("head_b"), QStringLiteral("7.0")}},
                                     &error));
    wait(view);
    QVERIFY2(view.errorText().contains(QStringLiteral("head_b: 7.0 is not a head of this model")),
             qPrintable(view.errorText()));
}

void TestUiCompare::views()
{
    CompareView view(&m_subject);
    QCOMPARE(view.viewPrefixes(), QStringList{QStringLiteral("compare")});
    QString error;
    QVERIFY2(view.showView(QStringLiteral("compare:heads:0.0,1.3"), &error), qPrintable(error));
    wait(view);
    QCOMPARE(view.snapshot()->request.headB, (attn::HeadRef{1, 3}));
    QVERIFY(view.showView(QStringLiteral("compare:text:bo he, so: ve"), &error));
    wait(view);
    QCOMPARE(view.snapshot()->request.mode, CompareMode::Texts);
    QCOMPARE(view.snapshot()->request.textB, QStringLiteral("bo he, so: ve"));
    QVERIFY(view.showView(QStringLiteral("compare:settings:causal,bidirectional/nopos"), &error));
    wait(view);
    QCOMPARE(view.snapshot()->request.settingsB.mask, CompareSettings::Mask::Bidirectional);
    QVERIFY(!view.snapshot()->request.settingsB.positions);
    QVERIFY(!view.showView(QStringLiteral("compare:heads:0.0"), &error));
    QVERIFY(!view.showView(QStringLiteral("compare:heads:0.0,9.9"), &error));
    QVERIFY(!view.showView(QStringLiteral("compare:settings:causal"), &error));
    QVERIFY(!view.showView(QStringLiteral("masks:0.0"), &error));
    QVERIFY(error.contains(QStringLiteral("compare:heads")));
}

// Export Data (JSON): both matrices as compared and their difference, which follows from them.
void TestUiCompare::exportDataWritesBothMatrices()
{
    CompareView view(&m_subject);
    view.setHeads({1, 0}, {1, 0});
    view.setMode(CompareMode::Texts);
    view.setTextB(QStringLiteral("bo he so ve bo he so ve pa va"));
    wait(view);
    const CompareSnapshot &s = *view.snapshot();
    QVERIFY(view.dataFormats().value(0).contains(QLatin1String("*.json")));
    QTemporaryDir dir;
    QString error;
    QVERIFY2(view.exportData(dir.filePath(QStringLiteral("compare.json")), &error), qPrintable(error));
    const QJsonObject doc = attn::test::readValidatedJson(dir.filePath(QStringLiteral("compare.json")),
                                                          QStringLiteral(ATTNSCOPE_SCHEMA_DIR "/compare.schema.json"));
    QVERIFY(!doc.isEmpty());
    QCOMPARE(doc.value("settings").toObject().value("mode").toString(), QStringLiteral("texts"));
    const QJsonObject a = doc.value("a").toObject(), b = doc.value("b").toObject();
    QCOMPARE(a.value("length").toInt(), s.a.length());
    QCOMPARE(b.value("length").toInt(), s.b.length());
    const int n = doc.value("common").toInt();
    QCOMPARE(n, s.a.length());
    const QJsonArray A = a.value("weights").toArray(), B = b.value("weights").toArray(), D = doc.value("diff").toArray();
    QCOMPARE(D.size(), qsizetype(n));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            QCOMPARE(float(A.at(i).toArray().at(j).toDouble()), s.a.weights[std::size_t(i * n + j)]);
            QVERIFY(std::abs(D.at(i).toArray().at(j).toDouble() -
                             (A.at(i).toArray().at(j).toDouble() - B.at(i).toArray().at(j).toDouble())) <= 1e-6);
        }
    QVERIFY(doc.value("note").toString().contains(QString::number(n)));
    QVERIFY2(view.exportData(dir.filePath(QStringLiteral("diff.csv")), &error), qPrintable(error));
}

QTEST_MAIN(TestUiCompare)
#include "tst_ui_compare.moc"
