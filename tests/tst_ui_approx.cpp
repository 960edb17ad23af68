// SPDX-License-Identifier: GPL-3.0-or-later
// The Approximate workspace offscreen, over the induction sample: its three maps are attn::approximateAttention on
// the head's Q, K, V from a separate forward pass; a window that covers the text is exact (difference 0); the cost
// plots are attn::costCurve's counts; session state and headless views are checked field by field.

#include "kit/subject.h"
#include "plots/heatmapplot.h"
#include "plots/xyplot.h"
#include "runner/enginerunner.h"
#include "workspaces/approx/approxview.h"

#include <attnscope/maskeffects.h>

#include <QJsonObject>
#include <QSpinBox>
#include <QtTest>

#include <cmath>

using namespace attnui;

namespace {

const QString kSpec = QStringLiteral("sample:induction-gpt2");
const QString kText = QStringLiteral("bo he so ve pa va bo he so ve pa va");

attn::MatrixD toMatrix(const attn::TensorView &t)
{
    attn::MatrixD m(t.length(), t.dim());
    for (std::int64_t i = 0; i < m.rows; ++i)
        for (std::int64_t j = 0; j < m.cols; ++j) m.at(i, j) = double(t.at(0, 0, i, j));
    return m;
}

} // namespace

class TestUiApprox : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void mapsAreTheEnginesApproximation_data();
    void mapsAreTheEnginesApproximation();
    void aWindowCoveringTheTextIsExact();
    void costPlotsAreTheCounts();
    void sessionRoundTrip();
    void aHeadOutsideTheModelIsClamped();
    void badSessionFieldsAreNamed();
    void views_data();
    void views();

private:
    void wait(ApproxView &view)
    {
        view.show();
        QTest::qWait(250);
        QVERIFY(view.runner()->waitForIdle(60000));
        QVERIFY2(view.snapshot(), qPrintable(view.errorText()));
    }
    attn::ApproxResult expected(int layer, int head, attn::ApproxSpec spec) const
    {
        auto tokens = m_model->tokenize(kText.toStdString());
        attn::ForwardInput in;
        in.tokenIds = tokens->ids;
        attn::ForwardOptions fo;
        fo.backend = attn::Backend::Reference;
        fo.captureQKV = true;
        fo.computeLogits = false;
        auto run = m_model->model().forward(in, fo);
        const attn::LayerQKV &qkv = run->qkv[std::size_t(layer)];
        spec.scale = attn::modelAttentionScale(m_model->model().config(), layer);
        spec.causal = m_model->model().config().causal;
        auto r = attn::approximateAttention(toMatrix(attn::headSlice(qkv.q, head)), toMatrix(attn::headSlice(qkv.k, head)),
                                            toMatrix(attn::headSlice(qkv.v, head)), spec);
        return r ? std::move(r).value() : attn::ApproxResult{};
    }

    Subject m_subject;
    TextModelPtr m_model;
};

void TestUiApprox::initTestCase()
{
    auto model = attn::TextModel::open(kSpec.toStdString());
    if (!model) QSKIP(model.status().message().c_str());
    m_model = std::make_shared<const attn::TextModel>(std::move(model).value());
    m_subject.setModel(m_model, kSpec);
    m_subject.setText(kText);
    m_subject.setBackend(attn::Backend::Reference);
}

void TestUiApprox::mapsAreTheEnginesApproximation_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<int>("parameter");
    QTest::addRow("window 2") << "window" << 2;
    QTest::addRow("block 4") << "block" << 4;
    QTest::addRow("strided 3") << "strided" << 3;
    QTest::addRow("dilated 2") << "dilated" << 2;
    QTest::addRow("linear-elu") << "linear-elu" << 0;
    QTest::addRow("random features 64") << "random-features" << 64;
}

void TestUiApprox::mapsAreTheEnginesApproximation()
{
    QFETCH(QString, kind);
    QFETCH(int, parameter);
    ApproxView view(&m_subject);
    attn::ApproxSpec spec;
    spec.kind = *attn::parseApproxKind(kind.toStdString());
    spec.window = 2;
    setApproxParameter(spec, parameter);
    spec.seed = 3;
    view.setSpec(spec);
    view.setHead(1, 2);
    wait(view);
    const attn::ApproxResult want = expected(1, 2, spec);
    const auto same = [](const std::vector<float> &shown, const attn::MatrixD &m) {
        if (shown.size() != m.values.size()) return false;
        for (std::size_t i = 0; i < shown.size(); ++i)
            if (std::abs(double(shown[i]) - m.values[i]) > 1e-6) return false;
        return true;
    };
    QVERIFY(same(view.exactPlot()->data().values, want.exactWeights));
    QVERIFY(same(view.approxPlot()->data().values, want.approxWeights));
    QVERIFY(same(view.diffPlot()->data().values, want.difference));
    const attn::ApproxResult &got = view.snapshot()->result;
    QCOMPARE(got.maxAbsDeltaY, want.maxAbsDeltaY);
    QCOMPARE(got.computedScores, want.computedScores);
    // Causal model: the future is hatched in every map; a pattern's uncomputed cells too.
    const HeatmapData &a = view.approxPlot()->data();
    for (int i = 0; i < a.rows; ++i)
        for (int j = 0; j < a.cols; ++j) {
            const std::size_t k = std::size_t(i * a.cols + j);
            const bool outside = !want.pattern.empty() && !want.pattern[k];
            QCOMPARE(bool(a.masked[k]), j > i || outside);
            QCOMPARE(bool(view.exactPlot()->data().masked[k]), j > i);
        }
    QVERIFY(view.readout().contains(QStringLiteral("max |ΔY| = %1").arg(want.maxAbsDeltaY, 0, 'g', 3)));
}

void TestUiApprox::aWindowCoveringTheTextIsExact()
{
    ApproxView view(&m_subject);
    attn::ApproxSpec spec;
    spec.kind = attn::ApproxKind::LocalWindow;
    spec.window = 64;   // more than the 12 tokens
    view.setSpec(spec);
    wait(view);
    const attn::ApproxResult &r = view.snapshot()->result;
    QCOMPARE(r.maxAbsDeltaP, 0.0);
    QCOMPARE(r.maxAbsDeltaY, 0.0);
    for (float d : view.diffPlot()->data().values) QCOMPARE(d, 0.0f);
    // Narrower windows drop weight: the worst row's total variation is the weight outside the band.
    spec.window = 1;
    view.setSpec(spec);
    QTest::qWait(250);
    QVERIFY(view.runner()->waitForIdle(60000));
    QVERIFY(view.snapshot()->result.maxRowTvd > 0.0);
}

void TestUiApprox::costPlotsAreTheCounts()
{
    ApproxView view(&m_subject);
    attn::ApproxSpec spec;
    spec.kind = attn::ApproxKind::RandomFeatures;
    spec.features = 32;
    view.setSpec(spec);
    wait(view);
    const int d = int(m_model->model().config().dModel / m_model->model().config().heads);
    spec.causal = true;
    auto curve = attn::costCurve(spec, {16, 1024, 65536}, d, d);
    QVERIFY(curve.isOk());
    const QList<XYSeries> &flops = view.flopsPlot()->series(), &memory = view.memoryPlot()->series();
    QCOMPARE(flops.size(), 2);
    QCOMPARE(flops[0].x.front(), std::log10(16.0));
    QCOMPARE(flops[0].x.back(), std::log10(65536.0));
    QCOMPARE(flops[0].y.front(), std::log10((*curve)[0].exact.flops));
    QCOMPARE(flops[1].y.back(), std::log10((*curve)[2].approx.flops));
    QCOMPARE(memory[1].y.back(), std::log10((*curve)[2].approx.memory));
    // Exact attention's FLOPs grow like n² (slope 2 on log–log), the linear-time form's like n (slope 1).
    const auto slope = [](const XYSeries &s) { return (s.y.back() - s.y[s.y.size() - 2]) / (s.x.back() - s.x[s.x.size() - 2]); };
    QVERIFY(std::abs(slope(flops[0]) - 2.0) < 0.01);
    QVERIFY(std::abs(slope(flops[1]) - 1.0) < 0.01);
}

void TestUiApprox::sessionRoundTrip()
{
    ApproxView a(&m_subject);
    attn::ApproxSpec spec;
    spec.kind = attn::ApproxKind::Dilated;
    spec.dilation = 3;
    spec.seed = 9;
    a.setSpec(spec);
    a.setHead(1, 3);
    const QJsonObject state = a.sessionState();
    ApproxView b(&m_subject);
    QString error;
    QVERIFY2(b.restoreSessionState(state, &error), qPrintable(error));
    QCOMPARE(b.sessionState(), state);
    QCOMPARE(b.request().spec.kind, attn::ApproxKind::Dilated);
    QCOMPARE(b.request().spec.dilation, std::int64_t(3));
}

void TestUiApprox::aHeadOutsideTheModelIsClamped()
{
    // A session's head for a larger model: the run shows this model's last layer and head, the boxes say so, and
    // the choice is kept for the session (it does not depend on what a run resolved).
    ApproxView view(&m_subject);
    view.setHead(7, 9);
    wait(view);
    QCOMPARE(view.snapshot()->request.layer, 1);
    QCOMPARE(view.snapshot()->request.head, 3);
    QCOMPARE(view.findChildren<QSpinBox *>().at(0)->value(), 1);
    QCOMPARE(view.findChildren<QSpinBox *>().at(1)->value(), 3);
    QVERIFY(view.exactPlot()->title().contains(QStringLiteral("L1 H3")));
    QCOMPARE(view.sessionState().value(QStringLiteral("layer")).toInt(), 7);
}

void TestUiApprox::badSessionFieldsAreNamed()
{
    ApproxView view(&m_subject);
    const QJsonObject before = view.sessionState();
    QString error;
    for (const auto &[state, field] : {std::pair{QJsonObject{{"kind", "fourier"}}, QStringLiteral("kind")},
                                       std::pair{QJsonObject{{"parameter", 5000}}, QStringLiteral("parameter")},
                                       std::pair{QJsonObject{{"head", -1}}, QStringLiteral("head")},
                                       std::pair{QJsonObject{{"colour", 1}}, QStringLiteral("colour")}}) {
        QVERIFY(!view.restoreSessionState(state, &error));
        QVERIFY2(error.startsWith(field + QLatin1Char(':')), qPrintable(error));
        QCOMPARE(view.sessionState(), before);
    }
}

void TestUiApprox::views_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<bool>("ok");
    QTest::addRow("approx:1.2") << "approx:1.2" << true;
    QTest::addRow("approx:0.1:random-features:64") << "approx:0.1:random-features:64" << true;
    QTest::addRow("approx:1.0:linear-elu") << "approx:1.0:linear-elu" << true;
    QTest::addRow("unknown kind") << "approx:1.0:fourier" << false;
    QTest::addRow("head outside") << "approx:0.4" << false;
    QTest::addRow("layer outside") << "approx:2.0" << false;
    QTest::addRow("no head") << "approx" << false;
}

void TestUiApprox::views()
{
    QFETCH(QString, spec);
    QFETCH(bool, ok);
    ApproxView view(&m_subject);
    QString error;
    QCOMPARE(view.showView(spec, &error), ok);
    if (!ok) {
        QVERIFY2(error.contains(spec), qPrintable(error));
        return;
    }
    wait(view);
    QVERIFY(view.figureWidget());
    if (spec.endsWith(QLatin1String(":64"))) QCOMPARE(view.snapshot()->result.spec.features, std::int64_t(64));
}

QTEST_MAIN(TestUiApprox)
#include "tst_ui_approx.moc"
