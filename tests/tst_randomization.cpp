// SPDX-License-Identifier: GPL-3.0-or-later
// Model-parameter randomization (model.h Model::withRandomizedParameters; faithfulness.h RandomizationCheck;
// reference/faithfulness.md §3.14 and the Appendix A.1 "Randomization" toy, here on the sample classifier
// rationale-bert, whose classifier head is separate from its 3 layers): exactly the chosen tensors change,
// determinism in the seed, attention is untouched by the head and changed by W_Q / W_K, the suite's head-only
// Spearman against an own computation, the export schema, and the spec errors.
#include "jsonschema.h"

#include <attnscope/faithfulness.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace {

const attn::TextModel &bert()
{
    static const attn::TextModel m = [] {
        auto r = attn::TextModel::open("sample:rationale-bert");
        if (!r) qFatal("%s", r.status().message().c_str());
        return std::move(*r);
    }();
    return m;
}

const char *kText = "it is a letdown, while we called this theater, we painted the lousy actor about the ticket";

attn::Model randomized(const attn::Model &m, const attn::RandomizationSpec &spec)
{
    auto r = m.withRandomizedParameters(spec);
    if (!r) qFatal("%s", r.status().message().c_str());
    return std::move(*r);
}

attn::ForwardResult run(const attn::Model &m, const std::vector<std::int64_t> &ids)
{
    attn::ForwardInput in;
    in.tokenIds = ids;
    attn::ForwardOptions opt;
    opt.weightsMode = attn::WeightsRequest::Mode::All;
    opt.threads = 1;
    auto r = m.forward(in, opt);
    if (!r) qFatal("%s", r.status().message().c_str());
    return std::move(*r);
}

// Spearman with average ranks for ties, written out here: Pearson of the ranks. (The classifier is nearly saturated
// on kText, so the original leave-one-out deltas are float-quantized and tie.)
double spearmanByHand(const std::vector<double> &a, const std::vector<double> &b)
{
    const auto ranks = [](const std::vector<double> &v) {
        std::vector<double> r(v.size());
        for (std::size_t i = 0; i < v.size(); ++i) {
            double below = 0.0, equal = 0.0;
            for (double x : v) below += x < v[i], equal += x == v[i];
            r[i] = below + (equal + 1.0) / 2.0;
        }
        return r;
    };
    const std::vector<double> ra = ranks(a), rb = ranks(b);
    const double n = static_cast<double>(a.size()), mean = (n + 1.0) / 2.0;
    double sab = 0.0, saa = 0.0, sbb = 0.0;
    for (std::size_t i = 0; i < ra.size(); ++i) {
        sab += (ra[i] - mean) * (rb[i] - mean);
        saa += (ra[i] - mean) * (ra[i] - mean);
        sbb += (rb[i] - mean) * (rb[i] - mean);
    }
    return sab / std::sqrt(saa * sbb);
}

double softmaxAt(const std::vector<float> &logits, std::size_t k)
{
    double mx = -1e300, sum = 0.0;
    for (float v : logits) mx = std::max(mx, double(v));
    for (float v : logits) sum += std::exp(double(v) - mx);
    return std::exp(double(logits[k]) - mx) / sum;
}

bool startsWith(const std::string &s, const std::string &p) { return s.rfind(p, 0) == 0; }

} // namespace

class TestRandomization : public QObject {
    Q_OBJECT
private slots:
    void exactlyTheChosenTensors_data();
    void exactlyTheChosenTensors();
    void redrawnWithTheOriginalSpread();
    void deterministicInTheSeed();
    void headLeavesAttentionQueryKeyChangeIt();
    void tiedLanguageModelHead();
    void suiteHeadOnlyToy();
    void exportMatchesSchema();
    void specErrors_data();
    void specErrors();
    void suiteThresholdError();
};

using Spec = attn::RandomizationSpec;
Q_DECLARE_METATYPE(attn::RandomizationSpec)

// Which names each spec must change, written out by hand (rationale-bert: 3 layers, pooler + classifier head).
void TestRandomization::exactlyTheChosenTensors_data()
{
    QTest::addColumn<attn::RandomizationSpec>("spec");
    QTest::addColumn<QStringList>("changed");   // name prefixes; every other tensor must be bit-identical
    const QStringList head = {"pooler.", "classifier."};
    const QStringList all2 = {"layer.2.q.", "layer.2.k.", "layer.2.v.", "layer.2.o.", "layer.2.fc1.", "layer.2.fc2."};
    const QStringList all1 = {"layer.1.q.", "layer.1.k.", "layer.1.v.", "layer.1.o.", "layer.1.fc1.", "layer.1.fc2."};
    QTest::addRow("head only") << Spec::cascade(3, 0) << head;
    QTest::addRow("cascade 1") << Spec::cascade(3, 1) << head + all2;
    QTest::addRow("cascade 2") << Spec::cascade(3, 2) << head + all2 + all1;
    Spec q1;
    q1.layers = {1};
    q1.parts = Spec::Query;
    QTest::addRow("layer 1 W_Q") << q1 << QStringList{"layer.1.q."};
    Spec k0v0;
    k0v0.layers = {0};
    k0v0.parts = Spec::Key | Spec::Value;
    QTest::addRow("layer 0 W_K W_V") << k0v0 << QStringList{"layer.0.k.", "layer.0.v."};
    Spec mlp2;
    mlp2.layers = {2};
    mlp2.parts = Spec::Mlp;
    mlp2.resetLayerNorms = true;   // BERT's LayerNorm weights are not 1/0, so the reset shows
    QTest::addRow("layer 2 mlp + norms") << mlp2 << QStringList{"layer.2.fc1.", "layer.2.fc2.", "layer.2.ln1.", "layer.2.ln2."};
}

void TestRandomization::exactlyTheChosenTensors()
{
    QFETCH(attn::RandomizationSpec, spec);
    QFETCH(QStringList, changed);
    const attn::Model &m = bert().model();
    const attn::Model r = randomized(m, spec);
    const std::vector<std::string> names = m.parameterNames();
    QCOMPARE(r.parameterNames(), names);
    QVERIFY(std::find(names.begin(), names.end(), "embeddings.token") != names.end());
    QVERIFY(std::find(names.begin(), names.end(), "classifier.weight") != names.end());
    int changedCount = 0;
    for (const std::string &name : names) {
        const bool expect = std::any_of(changed.begin(), changed.end(), [&](const QString &p) { return startsWith(name, p.toStdString()); });
        const std::vector<float> &a = *m.parameter(name), &b = *r.parameter(name);
        QCOMPARE(a.size(), b.size());
        const bool same = std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
        QVERIFY2(same != expect, name.c_str());
        changedCount += expect;
    }
    QVERIFY(changedCount >= changed.size());   // every prefix names at least one tensor
    QVERIFY(m.parameter("no.such.tensor") == nullptr);
}

// N(0, σ²) with the original σ: a redrawn [64, 64] matrix has mean ≈ 0 and the original spread (4096 draws:
// the sample standard deviation is within ±5 % with overwhelming probability).
void TestRandomization::redrawnWithTheOriginalSpread()
{
    const attn::Model &m = bert().model();
    const attn::Model r = randomized(m, Spec::cascade(3, 1));
    const auto moments = [](const std::vector<float> &v) {
        double mean = 0.0, ss = 0.0;
        for (float x : v) mean += x;
        mean /= double(v.size());
        for (float x : v) ss += (x - mean) * (x - mean);
        return std::pair{mean, std::sqrt(ss / double(v.size()))};
    };
    for (const char *name : {"layer.2.q.weight", "layer.2.fc1.weight", "pooler.weight"}) {
        const auto [m0, s0] = moments(*m.parameter(name));
        const auto [m1, s1] = moments(*r.parameter(name));
        QVERIFY2(std::abs(s1 / s0 - 1.0) < 0.05, name);
        QVERIFY2(std::abs(m1) < 5.0 * s0 / std::sqrt(double(r.parameter(name)->size())), name);
        Q_UNUSED(m0);
    }
}

void TestRandomization::deterministicInTheSeed()
{
    const attn::Model &m = bert().model();
    const attn::Model a = randomized(m, Spec::cascade(3, 2, 7)), b = randomized(m, Spec::cascade(3, 2, 7));
    const attn::Model c = randomized(m, Spec::cascade(3, 2, 8));
    const attn::Model headOnly = randomized(m, Spec::cascade(3, 0, 7));
    for (const std::string &name : m.parameterNames()) {
        QVERIFY2(*a.parameter(name) == *b.parameter(name), name.c_str());
        if (startsWith(name, "classifier.weight") || startsWith(name, "layer.1.q.weight"))
            QVERIFY2(*a.parameter(name) != *c.parameter(name), name.c_str());
        // Cascading: the head drawn at step 0 is the head of step 2 (one stream per tensor).
        if (startsWith(name, "pooler.") || startsWith(name, "classifier."))
            QVERIFY2(*a.parameter(name) == *headOnly.parameter(name), name.c_str());
    }
    QCOMPARE(QString::fromStdString(Spec::cascade(3, 2).describe()), QStringLiteral("head + layers 2..1"));
    QCOMPARE(QString::fromStdString(Spec::cascade(3, 0).describe()), QStringLiteral("head"));
    Spec qk;
    qk.layers = {1};
    qk.parts = Spec::Query | Spec::Key;
    QCOMPARE(QString::fromStdString(qk.describe()), QStringLiteral("layer 1 (q, k)"));
}

// Raw attention at layer l depends only on layers ≤ l: the head leaves every weight bit-identical while the output
// changes; W_Q (or W_K) of layer 2 changes layer 2's attention and nothing below it.
void TestRandomization::headLeavesAttentionQueryKeyChangeIt()
{
    const auto tokens = bert().tokenize(kText);
    QVERIFY(tokens.isOk());
    const attn::Model &m = bert().model();
    const attn::ForwardResult base = run(m, tokens->ids);
    const attn::ForwardResult head = run(randomized(m, Spec::cascade(3, 0)), tokens->ids);
    QCOMPARE(head.heads.size(), base.heads.size());
    for (std::size_t i = 0; i < base.heads.size(); ++i) QVERIFY(head.heads[i].weights == base.heads[i].weights);
    QVERIFY(head.lastHidden == base.lastHidden);
    QVERIFY(head.logits != base.logits);
    for (unsigned part : {unsigned(Spec::Query), unsigned(Spec::Key)}) {
        Spec s;
        s.layers = {2};
        s.parts = part;
        const attn::ForwardResult r = run(randomized(m, s), tokens->ids);
        for (std::size_t i = 0; i < base.heads.size(); ++i) {
            const bool layer2 = base.heads[i].head.layer == 2;
            QCOMPARE(r.heads[i].weights == base.heads[i].weights, !layer2);
        }
    }
}

// agreement-gpt2's LM head is tied to the token embeddings (as in GPT-2): randomizing the head unties it and keeps
// the embeddings.
void TestRandomization::tiedLanguageModelHead()
{
    auto tm = attn::TextModel::open("sample:agreement-gpt2");
    QVERIFY(tm.isOk());
    const attn::Model &m = tm->model();
    QVERIFY(m.parameter("lm_head.weight") == nullptr);
    const attn::Model r = randomized(m, Spec::cascade(m.config().layers, 0));
    QVERIFY(*r.parameter("embeddings.token") == *m.parameter("embeddings.token"));
    QVERIFY(r.parameter("lm_head.weight") != nullptr);
    QVERIFY(*r.parameter("lm_head.weight") != *m.parameter("embeddings.token"));
    const std::vector<std::int64_t> ids = {5, 9, 2, 7, 5, 9};
    const attn::ForwardResult a = run(m, ids), b = run(r, ids);
    for (std::size_t i = 0; i < a.heads.size(); ++i) QVERIFY(a.heads[i].weights == b.heads[i].weights);
    QVERIFY(a.logits != b.logits);
    // The TextModel around the copy keeps the tokenizer.
    const attn::TextModel copy = tm->withModel(r);
    QVERIFY(copy.tokenizer().has_value());
    QCOMPARE(copy.spec(), tm->spec());
}

// Appendix A.1: with the head alone randomized, attention importances keep Spearman exactly 1 (and fail the check,
// flagged structural) while leave-one-out changes; its ρ equals an own computation on the randomized copy.
void TestRandomization::suiteHeadOnlyToy()
{
    attn::FaithfulnessSettings s;
    s.methods = {attn::ImportanceKind::AttentionHead, attn::ImportanceKind::AttentionHeadMean, attn::ImportanceKind::Rollout,
                 attn::ImportanceKind::Flow, attn::ImportanceKind::LooDeletion, attn::ImportanceKind::LooKnockout};
    s.orderingMetrics = false;
    s.permutationTest = s.uniformTest = s.headAblation = s.randomLogitCheck = false;
    s.seed = 11;
    auto r = attn::runFaithfulness(bert(), kText, s);
    QVERIFY2(r.isOk(), r.isOk() ? "" : r.status().message().c_str());
    QVERIFY(r->randomization.has_value());
    const attn::RandomizationCheck &c = *r->randomization;
    QCOMPARE(c.seed, std::uint64_t{11});
    QCOMPARE(c.steps.size(), std::size_t{4});   // head, + layer 2, + layers 2..1, + all
    QCOMPARE(c.methods.size(), std::size_t{6});
    const int n = r->scoredTokens;
    QCOMPARE(c.forwardPasses, std::int64_t{4 * (1 + 2 * (n + 1))});
    QCOMPARE(r->forwardPasses, std::int64_t{1 + 2 * (n + 1)} + c.forwardPasses);
    for (std::size_t k = 0; k < c.steps.size(); ++k) QCOMPARE(c.steps[k].topLayers, std::int64_t(k));
    QCOMPARE(QString::fromStdString(c.steps[3].randomized), QStringLiteral("head + layers 2..0"));
    QVERIFY(c.steps[0].outputTvd > 0.0);
    for (std::size_t m = 0; m < c.methods.size(); ++m) {
        const bool attention = m < 4;
        QCOMPARE(bool(c.structural[m]), attention);
        if (attention) {
            QCOMPARE(c.steps[0].spearman[m], 1.0);
            QCOMPARE(c.steps[0].spearmanAbs[m], 1.0);
            QVERIFY(c.fails[m]);
            QVERIFY(c.firstChangedStep[m] >= 1);   // changes once a layer it reads is randomized
        } else {
            QVERIFY2(c.steps[0].spearman[m] < 1.0, c.methods[m].c_str());
        }
    }
    // The head-only LOO-deletion ρ by hand: own deletion passes on an own randomized copy.
    const attn::Model copy = randomized(bert().model(), Spec::cascade(3, 0, 11));
    const std::vector<std::int64_t> &ids = r->tokens.ids;
    const auto target = static_cast<std::size_t>(r->target.index);
    const double full = softmaxAt(run(copy, ids).logits, target);
    std::vector<double> original, mine;
    const attn::Importance &loo = r->importances[4];
    QCOMPARE(loo.kind, attn::ImportanceKind::LooDeletion);
    for (std::size_t t = 1; t + 1 < ids.size(); ++t) {
        std::vector<std::int64_t> without = ids;
        without.erase(without.begin() + static_cast<std::ptrdiff_t>(t));
        mine.push_back(full - softmaxAt(run(copy, without).logits, target));
        original.push_back(loo.scores[t]);
    }
    QVERIFY(std::abs(c.steps[0].spearman[4] - spearmanByHand(original, mine)) <= 1e-12);
}

void TestRandomization::exportMatchesSchema()
{
    QFile file(QStringLiteral(ATTNSCOPE_SCHEMA_DIR "/faithfulness.schema.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject schema = QJsonDocument::fromJson(file.readAll()).object();
    for (attn::RandomizationMode mode : {attn::RandomizationMode::Cascade, attn::RandomizationMode::None}) {
        attn::FaithfulnessSettings s;
        s.orderingMetrics = false;
        s.permutationTest = s.uniformTest = s.headAblation = false;
        s.randomization = mode;
        auto r = attn::runFaithfulness(bert(), kText, s);
        QVERIFY(r.isOk());
        const QJsonObject doc = QJsonDocument::fromJson(QByteArray::fromStdString(attn::faithfulnessExportJson(bert(), s, *r))).object();
        const QStringList problems = attn::test::validateJsonSchema(doc, schema);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        if (mode == attn::RandomizationMode::None) {
            QVERIFY(doc.value("randomization").isNull());
            QVERIFY(!r->randomization);
            continue;
        }
        const QJsonObject rnd = doc.value("randomization").toObject();
        QCOMPARE(rnd.value("parameters").toObject().value("seed").toInt(), 42);
        QCOMPARE(rnd.value("parameters").toObject().value("steps").toInt(), 4);
        QCOMPARE(rnd.value("steps").toArray().size(), 4);
        QCOMPARE(rnd.value("steps").toArray().at(0).toObject().value("results").toArray().size(), 7);
        QCOMPARE(rnd.value("summary").toArray().size(), 7);
    }
}

void TestRandomization::specErrors_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<attn::RandomizationSpec>("spec");
    QTest::addColumn<QString>("message");
    Spec none;
    QTest::addRow("nothing") << "sample:rationale-bert" << none << "nothing to randomize";
    Spec high;
    high.layers = {3};
    QTest::addRow("layer 3 of 3") << "sample:rationale-bert" << high << "layer 3 is outside the model's layers [0, 3)";
    Spec negative;
    negative.layers = {-1};
    QTest::addRow("layer -1") << "sample:rationale-bert" << negative << "layer -1 is outside";
    Spec twice;
    twice.layers = {1, 1};
    QTest::addRow("twice") << "sample:rationale-bert" << twice << "layer 1 is named twice";
    Spec noParts;
    noParts.layers = {0};
    noParts.parts = 0;
    QTest::addRow("no parts") << "sample:rationale-bert" << noParts << "parts is empty";
    Spec badBits;
    badBits.layers = {0};
    badBits.parts = 64;
    QTest::addRow("unknown part") << "sample:rationale-bert" << badBits << "unknown bits";
    QTest::addRow("no head") << "random:layers=1,heads=2,d_model=8" << Spec::cascade(1, 0) << "has no output head";
}

void TestRandomization::specErrors()
{
    QFETCH(QString, model);
    QFETCH(attn::RandomizationSpec, spec);
    QFETCH(QString, message);
    auto m = attn::TextModel::open(model.toStdString());
    QVERIFY(m.isOk());
    const auto r = m->model().withRandomizedParameters(spec);
    QVERIFY(!r.isOk());
    QVERIFY2(QString::fromStdString(r.status().message()).contains(message), r.status().message().c_str());
    QVERIFY(QString::fromStdString(r.status().message()).startsWith("randomization: "));
}

void TestRandomization::suiteThresholdError()
{
    attn::FaithfulnessSettings s;
    s.randomizationThreshold = 1.5;
    const auto r = attn::runFaithfulness(bert(), kText, s);
    QVERIFY(!r.isOk());
    QVERIFY2(QString::fromStdString(r.status().message()).startsWith("randomization threshold: 1.5"), r.status().message().c_str());
}

QTEST_APPLESS_MAIN(TestRandomization)
#include "tst_randomization.moc"
