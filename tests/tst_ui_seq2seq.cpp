// SPDX-License-Identifier: GPL-3.0-or-later
// The Encoder–Decoder workspace offscreen, over the bundled translation sample: the three kinds' maps equal the
// engine's attentions from a separate run (heads and the mean of heads), the decoder's map hides the future, the
// alignment view's lines are the cross-attention weights, generation steps follow the greedy translation, and
// session state and headless views are checked field by field.

#include "plots/heatmapplot.h"
#include "runner/enginerunner.h"
#include "kit/subject.h"
#include "kit/tokenlimits.h"
#include "workspaces/seq2seq/alignmentview.h"
#include "workspaces/seq2seq/seq2seqview.h"

#include <attnscope/alignment.h>
#include <attnscope/seq2seqrun.h>

#include <QJsonObject>
#include <QSignalSpy>
#include <QtTest>

#include <cmath>

using namespace attnui;

namespace {

const QString kSpec = QStringLiteral("sample:translation-t5");
const QString kSource = QStringLiteral("the big dog saw a red cat");
const QString kTarget = QStringLiteral("le hund gros un gato rojo ha vido");

} // namespace

class TestUiSeq2Seq : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void mapsAreTheEnginesAttentions();
    void alignmentLinesAreTheWeights();
    void generationStepsFollowTheTranslation();
    void sessionRoundTrip();
    void badSessionFieldsAreNamed_data();
    void badSessionFieldsAreNamed();
    void views_data();
    void views();
    void figureCaptionNamesTheHead();
    void longInputIsRefused();

private:
    void wait(Seq2SeqView &view)
    {
        view.show();
        QTest::qWait(350);   // the debounce
        QVERIFY(view.runner()->waitForIdle(60000));
        QVERIFY2(view.snapshot(), qPrintable(view.errorText()));
    }
    attn::Seq2SeqRunData run(const std::optional<QString> &target) const
    {
        attn::Seq2SeqRunRequest r;
        r.text = kSource.toStdString();
        if (target) r.targetText = target->toStdString();
        r.backend = attn::Backend::Reference;
        auto d = attn::runSeq2Seq(m_model->model, &*m_model->tokenizer, kSpec.toStdString(), r);
        return d ? std::move(d).value() : attn::Seq2SeqRunData{};
    }

    Subject m_subject;
    std::shared_ptr<const attn::OpenedSeq2Seq> m_model;
};

void TestUiSeq2Seq::initTestCase()
{
    auto opened = attn::openSeq2Seq(kSpec.toStdString());
    if (!opened) QSKIP(opened.status().message().c_str());
    m_model = std::make_shared<const attn::OpenedSeq2Seq>(std::move(opened).value());
    m_subject.setBackend(attn::Backend::Reference);
}

void TestUiSeq2Seq::mapsAreTheEnginesAttentions()
{
    Seq2SeqView view(&m_subject);
    QCOMPARE(view.modelSpec(), kSpec);   // the first encoder–decoder sample
    view.setSource(kSource);
    view.setTarget(kTarget);
    view.setView(Seq2SeqView::View::Heatmap);
    wait(view);
    const attn::Seq2SeqRunData d = run(kTarget);
    const attn::Seq2SeqShape &c = m_model->model.shape();
    QCOMPARE(view.snapshot()->data.decoderInput, d.decoderInput);
    for (AttentionKind kind : {AttentionKind::Encoder, AttentionKind::Decoder, AttentionKind::Cross}) {
        const auto &all = kind == AttentionKind::Encoder ? d.result.encoderAttentions
                          : kind == AttentionKind::Decoder ? d.result.decoderAttentions
                                                           : d.result.crossAttentions;
        const int layers = int(kind == AttentionKind::Encoder ? c.encoderLayers : c.decoderLayers);
        const int H = int(kind == AttentionKind::Encoder ? c.encoderHeads : c.decoderHeads);
        for (int l = 0; l < layers; ++l)
            for (int h = -1; h < H; ++h) {
                view.setKind(kind);
                view.setHead(l, h);
                const HeatmapData &shown = view.heatmap()->data();
                std::vector<float> expected(all[std::size_t(l * H)].size(), 0.0f);
                for (int k = 0; k < H; ++k)
                    if (h < 0 || k == h)
                        for (std::size_t i = 0; i < expected.size(); ++i)
                            expected[i] += all[std::size_t(l * H + k)][i] / float(h < 0 ? H : 1);
                QCOMPARE(shown.values.size(), expected.size());
                for (std::size_t i = 0; i < expected.size(); ++i)
                    QVERIFY2(std::abs(shown.values[i] - expected[i]) <= 1e-6f,
                             qPrintable(QStringLiteral("%1 L%2 H%3 cell %4").arg(attentionKindName(kind)).arg(l).arg(h).arg(i)));
                if (kind == AttentionKind::Decoder) {
                    // Causal: the future is hatched, and its weights are exactly 0.
                    for (int r = 0; r < shown.rows; ++r)
                        for (int col = 0; col < shown.cols; ++col) {
                            const std::size_t i = std::size_t(r * shown.cols + col);
                            QCOMPARE(bool(shown.masked[i]), col > r);
                            if (col > r) QCOMPARE(shown.values[i], 0.0f);
                        }
                }
            }
    }
    // Cross-attention rows are labelled by what each step produces: the target's words, then </s>.
    view.setKind(AttentionKind::Cross);
    QStringList produced = kTarget.split(' ');
    produced << QStringLiteral("</s>");
    QCOMPARE(view.heatmap()->data().rowLabels, produced);
    QCOMPARE(view.snapshot()->targetWords(), int(kTarget.split(' ').size()));
    QCOMPARE(view.snapshot()->sourceWords(), int(kSource.split(' ').size()));
}

void TestUiSeq2Seq::alignmentLinesAreTheWeights()
{
    Seq2SeqView view(&m_subject);
    view.setSource(kSource);
    view.setTarget(kTarget);
    view.setView(Seq2SeqView::View::Alignment);
    view.setHead(1, 0);
    wait(view);
    const attn::Seq2SeqRunData d = run(kTarget);
    const int H = int(m_model->model.shape().decoderHeads);
    const std::vector<float> &w = d.result.crossAttentions[std::size_t(1 * H + 0)];
    const int S = int(d.result.sourceLength);
    AlignmentView *a = view.alignmentView();
    const auto lines = a->lines();
    int expected = 0;
    for (float x : w) expected += x >= AlignmentView::kMinWeight;
    QCOMPARE(int(lines.size()), expected);
    for (const AlignmentView::Line &l : lines) QCOMPARE(float(l.weight), w[std::size_t(l.row * S + l.col)]);
    for (std::size_t i = 1; i < lines.size(); ++i) QVERIFY(lines[i - 1].weight <= lines[i].weight);   // weakest first
    // The mouse over a target word hovers it (once: moving within it says nothing new).
    QSignalSpy hovered(a, &AlignmentView::tokenHovered);
    QTest::mouseMove(a, a->tokenRect(AlignmentView::Side::Target, 2).center());
    QTest::mouseMove(a, a->tokenRect(AlignmentView::Side::Target, 2).center() + QPoint(1, 0));
    QCOMPARE(a->hoveredIndex(), 2);
    QCOMPARE(hovered.size(), 1);
    QCOMPARE(hovered.first(), (QList<QVariant>{2, -1}));
    // Hovering a target word leaves its row only; a source word, its column only.
    a->setHovered(AlignmentView::Side::Target, 2);
    for (const AlignmentView::Line &l : a->lines()) QCOMPARE(l.row, 2);
    a->setHovered(AlignmentView::Side::Source, 1);
    for (const AlignmentView::Line &l : a->lines()) QCOMPARE(l.col, 1);
    // The token boxes do not overlap, and the target row is below the source row.
    a->setHovered(AlignmentView::Side::Source, -1);
    for (int i = 1; i < S; ++i)
        QVERIFY(a->tokenRect(AlignmentView::Side::Source, i - 1).right() < a->tokenRect(AlignmentView::Side::Source, i).left());
    QVERIFY(a->tokenRect(AlignmentView::Side::Target, 0).top() > a->tokenRect(AlignmentView::Side::Source, 0).bottom() + 40);
    // The map beside it is the same head.
    QCOMPARE(view.alignmentHeatmap()->data().values, w);
}

void TestUiSeq2Seq::generationStepsFollowTheTranslation()
{
    Seq2SeqView view(&m_subject);
    view.setSource(kSource);
    view.setTarget(QString());
    view.setView(Seq2SeqView::View::Generation);
    wait(view);
    const attn::Seq2SeqRunData d = run(std::nullopt);
    QVERIFY(d.generated);
    const auto &s = *view.snapshot();
    QVERIFY(s.generated);
    QCOMPARE(s.data.generated, d.generated);
    // The sample translates its first example correctly, ending with </s>.
    QCOMPARE(s.generatedText, kTarget);
    QVERIFY(s.data.stoppedAtEos);
    QVERIFY(view.outputText().contains(kTarget));
    const int steps = int(d.generated->size());
    for (int step = 0; step < steps; ++step) {
        view.setStep(step);
        QCOMPARE(view.generationView()->step(), step);
        for (const AlignmentView::Line &l : view.generationView()->lines()) QCOMPARE(l.row, step);
    }
    view.setStep(steps + 5);   // clamped to the last step
    QCOMPARE(view.step(), steps - 1);
}

void TestUiSeq2Seq::sessionRoundTrip()
{
    Seq2SeqView a(&m_subject);
    a.setSource(kSource);
    a.setTarget(kTarget);
    a.setView(Seq2SeqView::View::Heatmap);
    a.setKind(AttentionKind::Decoder);
    a.setHead(0, 2);
    const QJsonObject state = a.sessionState();
    Seq2SeqView b(&m_subject);
    QString error;
    QVERIFY2(b.restoreSessionState(state, &error), qPrintable(error));
    QCOMPARE(b.sessionState(), state);
    QCOMPARE(b.kind(), AttentionKind::Decoder);
    QCOMPARE(b.layer(), 0);
    QCOMPARE(b.head(), 2);
    QCOMPARE(b.view(), Seq2SeqView::View::Heatmap);
}

void TestUiSeq2Seq::badSessionFieldsAreNamed_data()
{
    QTest::addColumn<QJsonObject>("state");
    QTest::addColumn<QString>("field");
    QTest::addRow("view") << QJsonObject{{"view", "lines"}} << "view";
    QTest::addRow("kind") << QJsonObject{{"kind", "self"}} << "kind";
    QTest::addRow("head") << QJsonObject{{"head", -2}} << "head";
    QTest::addRow("max_new_tokens") << QJsonObject{{"max_new_tokens", 0}} << "max_new_tokens";
    QTest::addRow("source type") << QJsonObject{{"source", 3}} << "source";
    QTest::addRow("unknown") << QJsonObject{{"colour", "red"}} << "colour";
}

void TestUiSeq2Seq::badSessionFieldsAreNamed()
{
    QFETCH(QJsonObject, state);
    QFETCH(QString, field);
    Seq2SeqView view(&m_subject);
    const QJsonObject before = view.sessionState();
    QString error;
    QVERIFY(!view.restoreSessionState(state, &error));
    QVERIFY2(error.startsWith(field + QLatin1Char(':')), qPrintable(error));
    QCOMPARE(view.sessionState(), before);   // nothing applied
}

void TestUiSeq2Seq::views_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<int>("view");
    QTest::addRow("head:enc:1.3") << "head:enc:1.3" << true << int(Seq2SeqView::View::Heatmap);
    QTest::addRow("head:dec:0.mean") << "head:dec:0.mean" << true << int(Seq2SeqView::View::Heatmap);
    QTest::addRow("head:cross:1.0") << "head:cross:1.0" << true << int(Seq2SeqView::View::Heatmap);
    QTest::addRow("align:1.mean") << "align:1.mean" << true << int(Seq2SeqView::View::Alignment);
    QTest::addRow("generation:3") << "generation:3" << true << int(Seq2SeqView::View::Generation);
    QTest::addRow("generation:2:0.1") << "generation:2:0.1" << true << int(Seq2SeqView::View::Generation);
    QTest::addRow("layer outside") << "head:enc:2.0" << false << 0;
    QTest::addRow("head outside") << "align:0.4" << false << 0;
    QTest::addRow("step outside") << "generation:99" << false << 0;
    QTest::addRow("unknown kind") << "head:self:0.0" << false << 0;
    QTest::addRow("no head") << "align" << false << 0;
}

void TestUiSeq2Seq::views()
{
    QFETCH(QString, spec);
    QFETCH(bool, ok);
    QFETCH(int, view);
    Seq2SeqView w(&m_subject);
    w.setSource(kSource);
    w.setTarget(kTarget);
    wait(w);
    QString error;
    QCOMPARE(w.showView(spec, &error), ok);
    if (!ok) {
        QVERIFY2(error.contains(spec), qPrintable(error));
        return;
    }
    QCOMPARE(int(w.view()), view);
    QVERIFY(w.figureWidget());
    if (spec == QLatin1String("generation:3")) QCOMPARE(w.generationView()->step(), 3);
}

void TestUiSeq2Seq::figureCaptionNamesTheHead()
{
    Seq2SeqView w(&m_subject);
    w.setSource(kSource);
    w.setTarget(kTarget);
    wait(w);
    QString error;
    QVERIFY(w.showView(QStringLiteral("head:cross:1.2"), &error));
    const QString caption = w.figureCaption();
    QVERIFY2(caption.contains(QLatin1String("cross-attention L1 H2")), qPrintable(caption));
    QVERIFY(caption.contains(kSource));
    QVERIFY(caption.contains(kTarget));
}

void TestUiSeq2Seq::longInputIsRefused()
{
    // Over the workspace's token limit: refused before running, with the limit named; the last result stays.
    Seq2SeqView w(&m_subject);
    w.setSource(kSource);
    wait(w);
    const auto before = w.snapshot();
    QStringList words;
    for (int i = 0; i < kSeq2SeqMaxTokens; ++i) words << QStringLiteral("dog");
    w.setSource(words.join(' '));   // 512 words and </s>
    QTest::qWait(350);
    QVERIFY(w.runner()->waitForIdle(60000));
    QVERIFY2(w.errorText().contains(QStringLiteral("at most %1 tokens").arg(kSeq2SeqMaxTokens)), qPrintable(w.errorText()));
    QVERIFY(w.errorText().contains(QStringLiteral("the source")));
    QCOMPARE(w.snapshot(), before);
}

QTEST_MAIN(TestUiSeq2Seq)
#include "tst_ui_seq2seq.moc"
