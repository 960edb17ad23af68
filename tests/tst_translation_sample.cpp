// SPDX-License-Identifier: GPL-3.0-or-later
// The alignment error rate (alignment.h) — known answers worked by hand — and the bundled translation sample
// (sample_models/translation-t5): its cross-attention, run by AttnScope's engine on the card's evaluation pairs
// (alignments.json, with the true word alignment), gives the AER per head and per layer mean that
// tools/sample_models/translation.py measured with transformers (metrics.json); the best head aligns.
#include <attnscope/alignment.h>
#include <attnscope/seq2seqrun.h>
#include <attnscope/textmodel.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>

using attn::AlignmentLink;

namespace {

QJsonObject readJson(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
}

} // namespace

class TstTranslationSample : public QObject {
    Q_OBJECT
private slots:
    void aerKnownAnswers_data();
    void aerKnownAnswers();
    void alignmentFromAttention();
    void sampleAlignmentMatchesCard();
};

void TstTranslationSample::aerKnownAnswers_data()
{
    QTest::addColumn<QList<QPoint>>("predicted");
    QTest::addColumn<QList<QPoint>>("sure");
    QTest::addColumn<QList<QPoint>>("possible");
    QTest::addColumn<double>("aer");
    // (target, source) links as QPoint(x = target, y = source).
    QTest::addRow("perfect") << QList<QPoint>{{0, 0}, {1, 1}} << QList<QPoint>{{0, 0}, {1, 1}} << QList<QPoint>{} << 0.0;
    // 1 − 2·1 / (2 + 2)
    QTest::addRow("half right") << QList<QPoint>{{0, 0}, {1, 2}} << QList<QPoint>{{0, 0}, {1, 1}} << QList<QPoint>{} << 0.5;
    // The wrong link is possible: 1 − (1 + 2) / (2 + 2)
    QTest::addRow("possible counts in A∩P") << QList<QPoint>{{0, 0}, {1, 2}} << QList<QPoint>{{0, 0}, {1, 1}}
                                            << QList<QPoint>{{1, 2}} << 0.25;
    QTest::addRow("all wrong") << QList<QPoint>{{0, 1}, {1, 0}} << QList<QPoint>{{0, 0}, {1, 1}} << QList<QPoint>{} << 1.0;
    // One-to-many: three sure links, two predicted, both right: 1 − 2·2 / (2 + 3)
    QTest::addRow("fewer predicted") << QList<QPoint>{{0, 0}, {1, 1}} << QList<QPoint>{{0, 0}, {1, 1}, {2, 1}}
                                     << QList<QPoint>{} << 0.2;
}

void TstTranslationSample::aerKnownAnswers()
{
    QFETCH(QList<QPoint>, predicted);
    QFETCH(QList<QPoint>, sure);
    QFETCH(QList<QPoint>, possible);
    QFETCH(double, aer);
    const auto links = [](const QList<QPoint> &points) {
        std::vector<AlignmentLink> out;
        for (const QPoint &p : points) out.push_back({p.x(), p.y()});
        return out;
    };
    attn::AlignmentScore score;
    score.add(links(predicted), links(sure), links(possible));
    QVERIFY2(std::abs(score.aer() - aer) < 1e-12, qPrintable(QString::number(score.aer())));
    // Sentences accumulate: the same sentence twice has the same rate.
    score.add(links(predicted), links(sure), links(possible));
    QVERIFY(std::abs(score.aer() - aer) < 1e-12);
    QVERIFY(std::isnan(attn::AlignmentScore().aer()));
}

void TstTranslationSample::alignmentFromAttention()
{
    // [3, 4]: row 0 peaks at 2, row 1 ties between 0 and 3 (the first wins), row 2 is all masked (no link);
    // the last column (</s>) is no word and is left out: row 0's 0.9 there does not count.
    const std::vector<float> w{0.0f, 0.05f, 0.05f, 0.9f,   //
                               0.4f, 0.1f,  0.1f,  0.4f,   //
                               0.0f, 0.0f,  0.0f,  0.0f};
    const auto links = attn::alignmentFromAttention(w.data(), 3, 4, 3, 3);
    QCOMPARE(links.size(), std::size_t(2));
    QCOMPARE(links[0], (AlignmentLink{0, 1}));   // 0.05 at 1 and 2: the first
    QCOMPARE(links[1], (AlignmentLink{1, 0}));
    // Counts larger than the matrix are clamped.
    QCOMPARE(attn::alignmentFromAttention(w.data(), 3, 4, 99, 99).front(), (AlignmentLink{0, 3}));
    const auto mean = attn::meanOverHeads({&w, &w});
    QCOMPARE(mean, w);
}

void TstTranslationSample::sampleAlignmentMatchesCard()
{
    auto opened = attn::openSeq2Seq("sample:translation-t5");
    QVERIFY2(opened, opened ? "" : opened.status().message().c_str());
    QVERIFY(opened->tokenizer);
    const QString folder = QString::fromStdString(opened->folder);
    const QJsonObject card = readJson(folder + "/metrics.json").value("metrics").toObject();
    const QJsonArray pairs = readJson(folder + "/alignments.json").value("pairs").toArray();
    QVERIFY(!card.isEmpty());
    QCOMPARE(pairs.size(), card.value("n").toInt());

    const attn::Seq2SeqShape &c = opened->model.shape();
    const int L = int(c.decoderLayers), H = int(c.decoderHeads);
    std::vector<attn::AlignmentScore> perHead(std::size_t(L * H));
    std::vector<attn::AlignmentScore> perLayer(static_cast<std::size_t>(L));
    std::int64_t correct = 0, total = 0;
    for (const QJsonValue &v : pairs) {
        const QJsonObject p = v.toObject();
        attn::Seq2SeqRunRequest request;
        request.text = p.value("source").toString().toStdString();
        request.targetText = p.value("target").toString().toStdString();
        request.backend = attn::Backend::Reference;
        auto run = attn::runSeq2Seq(opened->model, &*opened->tokenizer, "sample:translation-t5", request);
        QVERIFY2(run, run ? "" : run.status().message().c_str());
        const attn::Seq2SeqResult &r = run->result;
        const std::int64_t sourceWords = p.value("source").toString().split(' ').size();
        const std::int64_t targetWords = p.value("target").toString().split(' ').size();
        QCOMPARE(r.sourceLength, sourceWords + 1);   // one piece per word, then </s>
        QCOMPARE(r.targetLength, targetWords + 1);
        std::vector<AlignmentLink> sure;
        for (const QJsonValue &link : p.value("alignment").toArray())
            sure.push_back({link.toArray().at(0).toInt(), link.toArray().at(1).toInt()});
        for (int l = 0; l < L; ++l) {
            std::vector<const std::vector<float> *> heads;
            for (int h = 0; h < H; ++h) {
                const std::vector<float> &w = r.crossAttentions[std::size_t(l * H + h)];
                heads.push_back(&w);
                perHead[std::size_t(l * H + h)].add(
                    attn::alignmentFromAttention(w.data(), r.targetLength, r.sourceLength, targetWords, sourceWords), sure);
            }
            const std::vector<float> mean = attn::meanOverHeads(heads);
            perLayer[std::size_t(l)].add(
                attn::alignmentFromAttention(mean.data(), r.targetLength, r.sourceLength, targetWords, sourceWords), sure);
        }
        const std::int64_t V = c.vocabSize;
        for (std::int64_t t = 0; t < r.targetLength; ++t) {
            const float *row = r.logits.data() + t * V;
            correct += (std::max_element(row, row + V) - row) == run->labels[std::size_t(t)];
            ++total;
        }
    }
    // transformers' numbers (float32, eager) against ours: an argmax could flip only on a near tie.
    const QJsonArray cardHeads = card.value("head_aer").toArray(), cardLayers = card.value("layer_mean_aer").toArray();
    double best = 1.0;
    for (int l = 0; l < L; ++l) {
        for (int h = 0; h < H; ++h) {
            const double ours = perHead[std::size_t(l * H + h)].aer(), theirs = cardHeads[l].toArray()[h].toDouble();
            qInfo("cross-attention L%d H%d: AER %.4f (card %.4f)", l, h, ours, theirs);
            QVERIFY2(std::abs(ours - theirs) <= 2e-3, qPrintable(QStringLiteral("L%1 H%2").arg(l).arg(h)));
            best = std::min(best, ours);
        }
        const double ours = perLayer[std::size_t(l)].aer(), theirs = cardLayers[l].toDouble();
        qInfo("cross-attention L%d mean of heads: AER %.4f (card %.4f)", l, ours, theirs);
        QVERIFY(std::abs(ours - theirs) <= 2e-3);
    }
    QVERIFY(std::abs(best - card.value("best_head_aer").toDouble()) <= 2e-3);
    QVERIFY(std::abs(double(correct) / double(total) - card.value("token_accuracy").toDouble()) <= 1e-3);
    // The sample is there to show an aligning head: far better than one that ignores the source (≈ 0.83 for
    // sentences of ~6 words).
    QVERIFY2(best < 0.35, qPrintable(QString::number(best)));
}

QTEST_GUILESS_MAIN(TstTranslationSample)
#include "tst_translation_sample.moc"
