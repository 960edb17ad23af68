// SPDX-License-Identifier: GPL-3.0-or-later
// TextModel: model specs (folder, sample:NAME, random:...), tokenization into labelled tokens, and the whole
// text → tokens → forward path on a bundled sample model.
#include <attnscope/textmodel.h>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

class TestTextModel : public QObject {
    Q_OBJECT
private slots:
    void listsBundledSamples();
    void unknownSampleNamesKnownOnes();
    void randomSpecTokenizesBytes();
    void classifierReadsText();
    void tooLongTextNamesPositions();
    void inductionSampleHasItsHeads();
};

void TestTextModel::listsBundledSamples()
{
    const auto samples = attn::listSampleModels();
    QVERIFY(!samples.empty());
    bool rationale = false;
    for (const auto &s : samples) rationale |= s.name == "rationale-bert";
    QVERIFY(rationale);
    auto resolved = attn::resolveModelSpec("sample:rationale-bert");
    QVERIFY2(resolved.isOk(), resolved.status().message().c_str());
    QVERIFY(QFileInfo::exists(QString::fromStdString(*resolved + "/config.json")));
    QCOMPARE(*attn::resolveModelSpec("/some/folder"), std::string("/some/folder"));
}

void TestTextModel::unknownSampleNamesKnownOnes()
{
    auto r = attn::TextModel::open("sample:no-such-model");
    QVERIFY(!r.isOk());
    const QString msg = QString::fromStdString(r.status().message());
    QVERIFY2(msg.contains("no-such-model") && msg.contains("rationale-bert") && msg.contains("searched"),
             qPrintable(msg));
}

void TestTextModel::randomSpecTokenizesBytes()
{
    auto m = attn::TextModel::open("random:layers=1,heads=2,d_model=16,seed=3");
    QVERIFY2(m.isOk(), m.status().message().c_str());
    QVERIFY(!m->tokenizer().has_value());
    auto t = m->tokenize("ab\xC3\xA9");   // "abé": é is two bytes
    QVERIFY(t.isOk());
    QCOMPARE(t->ids, (std::vector<std::int64_t>{'a', 'b', 0xC3, 0xA9}));
    QCOMPARE(t->labels[2], std::string("\xC3\xA9"));
    QCOMPARE(t->labels[3], std::string());
}

void TestTextModel::classifierReadsText()
{
    auto m = attn::TextModel::open("sample:rationale-bert");
    QVERIFY2(m.isOk(), m.status().message().c_str());
    QCOMPARE(m->model().config().head, attn::ModelHead::Classification);
    const std::string text = "the plot was excellent and we watched the old film with the dog.";
    auto t = m->tokenize(text);
    QVERIFY2(t.isOk(), t.status().message().c_str());
    QCOMPARE(t->labels.front(), std::string("[CLS]"));
    QCOMPARE(t->labels.back(), std::string("[SEP]"));
    QCOMPARE(t->special.front(), std::uint8_t(1));
    QCOMPARE(t->labels[1], std::string("the"));
    for (std::size_t i = 1; i + 1 < t->ids.size(); ++i)   // labels are the text each token covers
        QCOMPARE(t->labels[i], text.substr(t->begins[i], t->ends[i] - t->begins[i]));

    attn::ForwardInput in;
    in.tokenIds = t->ids;
    auto out = m->model().forward(in);
    QVERIFY2(out.isOk(), out.status().message().c_str());
    QCOMPARE(out->logits.size(), std::size_t(2));
    // The model card's first example is positive (evidence word "excellent").
    const auto &labels = m->model().config().labels;
    const std::size_t predicted = out->logits[1] > out->logits[0] ? 1 : 0;
    QCOMPARE(labels[predicted], std::string("positive"));
}

void TestTextModel::tooLongTextNamesPositions()
{
    auto m = attn::TextModel::open("sample:rationale-bert");
    QVERIFY(m.isOk());
    std::string text;
    for (int i = 0; i < 300; ++i) text += "film ";
    auto t = m->tokenize(text);
    QVERIFY(!t.isOk());
    const QString msg = QString::fromStdString(t.status().message());
    QVERIFY2(msg.contains("max_position_embeddings") && msg.contains("128"), qPrintable(msg));
}

// The head scores of the model card (TransformerLens-style, T = 50), recomputed by the engine on its own random
// sequences; the thresholds are the sample's targets (induction >= 0.4, previous-token >= 0.6), not numbers
// taken from the card. Sequences are words of the model's vocabulary: "s r_1..r_T r_1..r_T" (the start word s
// without a leading space, like a BOS) for induction, "s" + 2T fresh words for previous-token.
void TestTextModel::inductionSampleHasItsHeads()
{
    auto m = attn::TextModel::open("sample:induction-gpt2");
    if (!m.isOk()) QSKIP("sample:induction-gpt2 not found");
    std::vector<std::string> words;
    for (char c : std::string("bdfghklmnprstvz"))
        for (char v : std::string("aeiou")) words.push_back(std::string{c, v});
    const int T = 50, sequences = 20;
    const auto &cfg = m->model().config();
    std::vector<double> induction(std::size_t(cfg.layers * cfg.heads)), previous(induction.size());
    std::mt19937 rng(2024);
    std::uniform_int_distribution<std::size_t> pick(0, words.size() - 1);
    attn::ForwardOptions opt;
    opt.weightsMode = attn::WeightsRequest::Mode::All;
    for (int s = 0; s < sequences; ++s) {
        std::vector<std::string> span(T), fresh(2 * T);
        for (auto &w : span) w = words[pick(rng)];
        for (auto &w : fresh) w = words[pick(rng)];
        const std::string start = words[pick(rng)];
        std::string repeated = start, random = start;
        for (int copy = 0; copy < 2; ++copy)
            for (const auto &w : span) repeated += " " + w;
        for (const auto &w : fresh) random += " " + w;
        for (const bool rep : {true, false}) {
            auto t = m->tokenize(rep ? repeated : random);
            QVERIFY2(t.isOk(), t.status().message().c_str());
            QCOMPARE(t->ids.size(), std::size_t(2 * T + 1));   // one token a word
            attn::ForwardInput in;
            in.tokenIds = t->ids;
            auto out = m->model().forward(in, opt);
            QVERIFY2(out.isOk(), out.status().message().c_str());
            const std::size_t n = t->ids.size();
            for (const auto &h : out->heads) {
                const std::size_t k = std::size_t(h.head.layer * cfg.heads + h.head.head);
                double sum = 0;
                if (rep) {
                    for (std::size_t i = T + 1; i <= std::size_t(2 * T); ++i) sum += h.weights[i * n + (i - T + 1)];
                    induction[k] += sum / T / sequences;
                } else {
                    for (std::size_t i = 1; i < n; ++i) sum += h.weights[i * n + (i - 1)];
                    previous[k] += sum / double(n - 1) / sequences;
                }
            }
        }
    }
    const double bestInduction = *std::max_element(induction.begin(), induction.end());
    const double bestPrevious = *std::max_element(previous.begin(), previous.end());
    qInfo("best induction score %.3f, best previous-token score %.3f (T = %d, %d sequences)", bestInduction,
          bestPrevious, T, sequences);
    QVERIFY2(bestInduction >= 0.4, qPrintable(QString("best induction score %1 < 0.4").arg(bestInduction)));
    QVERIFY2(bestPrevious >= 0.6, qPrintable(QString("best previous-token score %1 < 0.6").arg(bestPrevious)));
    // The two kinds of head are different heads, in different layers: the circuit needs the composition.
    const auto layerOf = [&](const std::vector<double> &v) {
        return (std::max_element(v.begin(), v.end()) - v.begin()) / cfg.heads;
    };
    QVERIFY(layerOf(previous) < layerOf(induction));
}

QTEST_GUILESS_MAIN(TestTextModel)
#include "tst_textmodel.moc"
