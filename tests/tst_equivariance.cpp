// SPDX-License-Identifier: GPL-3.0-or-later
// Permutation equivariance (equivariance.h) as properties over random models and sizes, on the
// sample models, and the equivariance export against docs/schema/equivariance.schema.json.
#include "jsonschema.h"

#include <attnscope/equivariance.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>

namespace {

attn::TextModel open(const QString &spec)
{
    auto m = attn::TextModel::open(spec.toStdString());
    if (!m) qFatal("cannot open %s: %s", qPrintable(spec), m.status().message().c_str());
    return std::move(*m);
}

// Distinct characters, so that no two tokens share an embedding by accident.
std::string textOfLength(int n)
{
    std::string s;
    for (int i = 0; i < n; ++i) s.push_back(static_cast<char>('!' + (i * 7) % 90));
    return s;
}

attn::EquivarianceSettings settingsFor(const QString &perm, attn::PositionalChoice pe, const char *mask)
{
    attn::EquivarianceSettings s;
    s.permutation = *attn::parsePermutationSpec(perm.toStdString());
    s.positional = pe;
    s.mask = *attn::parseMaskChoice(mask);
    return s;
}

} // namespace

class TestEquivariance : public QObject {
    Q_OBJECT
private slots:
    void parsers_data();
    void parsers();
    void permutations();
    void equivariantWithoutPositions_data();
    void equivariantWithoutPositions();
    void brokenByPositionsOrCausalMask_data();
    void brokenByPositionsOrCausalMask();
    void scopes();
    void sampleBert();
    void sampleBertPair();
    void exportMatchesSchema();
};

void TestEquivariance::parsers_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addRow("perm reverse") << "perm" << "reverse" << true;
    QTest::addRow("perm random") << "perm" << "random:17" << true;
    QTest::addRow("perm swap") << "perm" << "swap:1,3" << true;
    QTest::addRow("perm list") << "perm" << "2,0,1" << true;
    QTest::addRow("perm random no seed") << "perm" << "random:" << false;
    QTest::addRow("perm swap one") << "perm" << "swap:1" << false;
    QTest::addRow("perm negative") << "perm" << "2,-1,0" << false;
    QTest::addRow("perm word") << "perm" << "shuffle" << false;
    QTest::addRow("scope model") << "scope" << "model" << true;
    QTest::addRow("scope layer") << "scope" << "layer:1" << true;
    QTest::addRow("scope head") << "scope" << "head:0.2" << true;
    QTest::addRow("scope head no dot") << "scope" << "head:3" << false;
    QTest::addRow("scope other") << "scope" << "all" << false;
    QTest::addRow("pe none") << "pe" << "none" << true;
    QTest::addRow("pe rope") << "pe" << "rope" << true;
    QTest::addRow("pe alibi") << "pe" << "alibi" << false;
}

void TestEquivariance::parsers()
{
    QFETCH(QString, kind);
    QFETCH(QString, text);
    QFETCH(bool, ok);
    const std::string t = text.toStdString();
    if (kind == "perm") {
        auto p = attn::parsePermutationSpec(t);
        QCOMPARE(p.isOk(), ok);
        if (ok) QCOMPARE(QString::fromStdString(attn::permutationSpecText(*p)), text);
        else QVERIFY(p.status().message().rfind("permutation", 0) == 0);   // the message names the field
    } else if (kind == "scope") {
        auto s = attn::parseEquivarianceScope(t);
        QCOMPARE(s.isOk(), ok);
        if (ok) QCOMPARE(QString::fromStdString(attn::equivarianceScopeText(*s)), text);
        else QVERIFY(s.status().message().rfind("scope", 0) == 0);
    } else {
        auto p = attn::parsePositionalChoice(t);
        QCOMPARE(p.isOk(), ok);
        if (ok) QCOMPARE(QString::fromStdString(attn::positionalChoiceName(*p)), text);
    }
}

void TestEquivariance::permutations()
{
    const std::vector<std::uint8_t> special = {1, 0, 0, 0, 1};
    auto rev = attn::makePermutation(*attn::parsePermutationSpec("reverse"), 5, special);
    QCOMPARE(*rev, (std::vector<std::int64_t>{0, 3, 2, 1, 4}));   // [CLS] and [SEP] stay
    auto rnd = attn::makePermutation(*attn::parsePermutationSpec("random:3"), 5, special);
    QCOMPARE((*rnd)[0], 0);
    QCOMPARE((*rnd)[4], 4);
    std::vector<std::int64_t> sorted = *rnd;
    std::sort(sorted.begin(), sorted.end());
    QCOMPARE(sorted, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
    QCOMPARE(*attn::makePermutation(*attn::parsePermutationSpec("swap:0,2"), 3), (std::vector<std::int64_t>{2, 1, 0}));
    QVERIFY(!attn::makePermutation(*attn::parsePermutationSpec("0,1"), 3).isOk());        // wrong size
    QVERIFY(!attn::makePermutation(*attn::parsePermutationSpec("0,1,1"), 3).isOk());      // repeated
    QVERIFY(!attn::makePermutation(*attn::parsePermutationSpec("swap:0,5"), 3).isOk());   // outside
}

void TestEquivariance::equivariantWithoutPositions_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<int>("length");
    QTest::addColumn<QString>("perm");
    QTest::addRow("1 layer 1 head d8 n1") << "random:layers=1,heads=1,d_model=8,seed=1" << 1 << "reverse";
    QTest::addRow("1 layer 4 heads d64 n7") << "random:layers=1,heads=4,d_model=64,seed=7" << 7 << "random:5";
    QTest::addRow("2 layers 4 heads d64 n33") << "random:layers=2,heads=4,d_model=64,seed=7" << 33 << "reverse";
    QTest::addRow("3 layers 2 heads d32 n97 sinusoidal dropped") << "random:layers=3,heads=2,d_model=32,seed=3,pe=sinusoidal" << 97 << "random:11";
    QTest::addRow("2 layers 2 heads d16 n20 rope dropped") << "random:layers=2,heads=2,d_model=16,seed=9,pe=rope" << 20 << "swap:2,17";
    QTest::addRow("1 layer 5 heads d80 n64 alibi dropped") << "random:layers=1,heads=5,d_model=80,seed=4,pe=alibi" << 64 << "random:1";
}

void TestEquivariance::equivariantWithoutPositions()
{
    QFETCH(QString, spec);
    QFETCH(int, length);
    QFETCH(QString, perm);
    const attn::TextModel m = open(spec);
    auto r = attn::runEquivariance(m, textOfLength(length), settingsFor(perm, attn::PositionalChoice::None, "bidirectional"));
    QVERIFY2(r.isOk(), r.isOk() ? "" : r.status().message().c_str());
    QVERIFY(r->expectedEquivariant);
    QCOMPARE(static_cast<int>(r->permutation.size()), length);
    QCOMPARE(static_cast<std::int64_t>(r->heads.size()), m.model().config().layers * m.model().config().heads);
    QVERIFY2(r->maxAbsErrWeights <= 1e-5, qPrintable(QString::number(r->maxAbsErrWeights)));
    QVERIFY2(r->maxAbsErrOutputs <= 1e-5, qPrintable(QString::number(r->maxAbsErrOutputs)));
}

void TestEquivariance::brokenByPositionsOrCausalMask_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("pe");
    QTest::addColumn<QString>("mask");
    const QString none = "random:layers=2,heads=4,d_model=64,seed=7";
    QTest::addRow("sinusoidal via --pe") << none << "sinusoidal" << "bidirectional";
    QTest::addRow("rope via --pe") << none << "rope" << "bidirectional";
    QTest::addRow("model's own sinusoidal") << "random:layers=2,heads=4,d_model=64,seed=7,pe=sinusoidal" << "model" << "bidirectional";
    QTest::addRow("causal mask, no positions") << none << "none" << "causal";
}

void TestEquivariance::brokenByPositionsOrCausalMask()
{
    QFETCH(QString, spec);
    QFETCH(QString, pe);
    QFETCH(QString, mask);
    const attn::TextModel m = open(spec);
    const auto s = settingsFor("reverse", *attn::parsePositionalChoice(pe.toStdString()), mask.toLatin1().constData());
    auto r = attn::runEquivariance(m, textOfLength(24), s);
    QVERIFY2(r.isOk(), r.isOk() ? "" : r.status().message().c_str());
    QVERIFY(!r->expectedEquivariant);
    // Reported, and clearly above float noise: the check detects the break.
    QVERIFY2(r->maxAbsErrWeights > 1e-3, qPrintable(QString::number(r->maxAbsErrWeights)));
    QVERIFY2(r->maxAbsErrOutputs > 1e-3, qPrintable(QString::number(r->maxAbsErrOutputs)));
    if (pe == "sinusoidal" || pe == "rope") QVERIFY(r->modelSpecUsed.find("pe=" + pe.toStdString()) != std::string::npos);
}

void TestEquivariance::scopes()
{
    const attn::TextModel m = open("random:layers=2,heads=3,d_model=24,seed=2");
    auto s = settingsFor("reverse", attn::PositionalChoice::None, "bidirectional");
    s.scope = *attn::parseEquivarianceScope("layer:1");
    auto r = attn::runEquivariance(m, textOfLength(9), s);
    QVERIFY(r.isOk());
    QCOMPARE(r->heads.size(), std::size_t{3});
    QCOMPARE(r->heads[0].head, (attn::HeadRef{1, 0}));
    s.scope = *attn::parseEquivarianceScope("head:0.2");
    r = attn::runEquivariance(m, textOfLength(9), s);
    QVERIFY(r.isOk());
    QCOMPARE(r->heads.size(), std::size_t{1});
    s.scope = *attn::parseEquivarianceScope("head:2.0");
    r = attn::runEquivariance(m, textOfLength(9), s);
    QVERIFY(!r.isOk());
    QVERIFY(r.status().message().rfind("scope", 0) == 0);
    // --pe sinusoidal on a checkpoint is refused with a message naming the choice.
    const attn::TextModel bert = open("sample:rationale-bert");
    r = attn::runEquivariance(bert, "a fine day", settingsFor("reverse", attn::PositionalChoice::Sinusoidal, "model"));
    QVERIFY(!r.isOk());
    QVERIFY(r.status().message().rfind("positional", 0) == 0);
}

// A real encoder: without positions and with its own bidirectional mask it is equivariant (special tokens fixed,
// so the classifier's [CLS] logits are invariant); with its learned positions it is not.
void TestEquivariance::sampleBert()
{
    const attn::TextModel m = open("sample:rationale-bert");
    const std::string text = "it is a letdown, while we called this theater, we painted the lousy actor";
    auto r = attn::runEquivariance(m, text, settingsFor("random:3", attn::PositionalChoice::None, "model"));
    QVERIFY2(r.isOk(), r.isOk() ? "" : r.status().message().c_str());
    const auto L = static_cast<std::int64_t>(r->permutation.size());
    QCOMPARE(r->permutation.front(), 0);
    QCOMPARE(r->permutation.back(), L - 1);
    QVERIFY(r->expectedEquivariant);
    QVERIFY2(r->maxAbsErrWeights <= 1e-5, qPrintable(QString::number(r->maxAbsErrWeights)));
    QVERIFY2(r->maxAbsErrOutputs <= 1e-5, qPrintable(QString::number(r->maxAbsErrOutputs)));
    QVERIFY(r->maxAbsErrLogits >= 0.0 && r->maxAbsErrLogits <= 1e-5);
    r = attn::runEquivariance(m, text, settingsFor("random:3", attn::PositionalChoice::Model, "model"));
    QVERIFY(r.isOk());
    QVERIFY(!r->expectedEquivariant);
    QVERIFY(r->maxAbsErrWeights > 1e-3);
}

// A sentence pair: each token's type moves with it (PX permutes whole input rows, token type embedding included),
// so without positions BERT stays equivariant although tokens cross the middle [SEP].
void TestEquivariance::sampleBertPair()
{
    const attn::TextModel m = open("sample:rationale-bert");
    attn::TokenizeOptions pair;
    pair.pair = "we painted the lousy actor";
    auto tokens = m.tokenize("it is a letdown, while we called this theater", pair);
    QVERIFY(tokens.isOk());
    QVERIFY(!m.forwardInput(*tokens).tokenTypeIds.empty());
    auto r = attn::runEquivariance(m, *tokens, settingsFor("random:3", attn::PositionalChoice::None, "model"));
    QVERIFY2(r.isOk(), r.isOk() ? "" : r.status().message().c_str());
    // Some token of the text lands in the pair's half, and one of the pair's in the text's.
    const auto sep = std::find(tokens->labels.begin() + 1, tokens->labels.end(), std::string("[SEP]")) - tokens->labels.begin();
    bool crossed = false;
    for (std::int64_t i = 1; i < sep; ++i) crossed = crossed || r->permutation[static_cast<std::size_t>(i)] > sep;
    QVERIFY(crossed);
    QVERIFY2(r->maxAbsErrWeights <= 1e-5, qPrintable(QString::number(r->maxAbsErrWeights)));
    QVERIFY2(r->maxAbsErrOutputs <= 1e-5, qPrintable(QString::number(r->maxAbsErrOutputs)));
}

void TestEquivariance::exportMatchesSchema()
{
    QFile file(QStringLiteral(ATTNSCOPE_SCHEMA_DIR "/equivariance.schema.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject schema = QJsonDocument::fromJson(file.readAll()).object();
    QVERIFY(!schema.isEmpty());
    for (const QString spec : {QStringLiteral("sample:rationale-bert"), QStringLiteral("random:layers=1,heads=2,d_model=16,seed=1")}) {
        const attn::TextModel m = open(spec);
        const auto s = settingsFor("reverse", attn::PositionalChoice::None, "model");
        auto r = attn::runEquivariance(m, "the lousy actor", s);
        QVERIFY(r.isOk());
        const std::string json = attn::equivarianceExportJson(m, s, *r);
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &err);
        QCOMPARE(err.error, QJsonParseError::NoError);
        const QStringList problems = attn::test::validateJsonSchema(doc.object(), schema);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        QCOMPARE(doc.object().value("permutation").toArray().size(), static_cast<qsizetype>(r->permutation.size()));
        QCOMPARE(doc.object().value("max_abs_err_weights").toDouble(), r->maxAbsErrWeights);
    }
}

QTEST_APPLESS_MAIN(TestEquivariance)
#include "tst_equivariance.moc"
