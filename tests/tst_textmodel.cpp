// SPDX-License-Identifier: GPL-3.0-or-later
// TextModel: model specs (folder, sample:NAME, random:...), tokenization into labelled tokens, and the whole
// text → tokens → forward path on a bundled sample model.
#include <attnscope/textmodel.h>

#include <QtTest>

#include <cmath>

class TestTextModel : public QObject {
    Q_OBJECT
private slots:
    void listsBundledSamples();
    void unknownSampleNamesKnownOnes();
    void randomSpecTokenizesBytes();
    void classifierReadsText();
    void tooLongTextNamesPositions();
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

QTEST_GUILESS_MAIN(TestTextModel)
#include "tst_textmodel.moc"
