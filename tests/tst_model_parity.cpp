// SPDX-License-Identifier: GPL-3.0-or-later
// Parity with Hugging Face transformers: the fixtures under tests/fixtures/ (tools/make_parity_fixtures.py) hold
// tiny random checkpoints of every supported family (GPT-2, BERT, RoBERTa, DistilBERT, the LLaMA family with each
// RoPE variant, GPT-NeoX) and what transformers computed for them — attentions, hidden states, logits, pooled
// outputs, RoPE inverse frequencies — for plain, right-padded, head-ablated (head_mask), long (past a sliding
// window and the tiled backend's query block) and full-context inputs.
// Each case runs on the reference and the tiled backend. Tolerances: attentions 1e-5, logits 1e-4
// (absolute), hidden states 1e-4; inv_freq 1 ulp (relative 2^-23).
#include <attnscope/model.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <map>

using namespace attn;

namespace {

const QString kFixtures = QStringLiteral(ATTNSCOPE_TEST_DATA_DIR) + "/fixtures/";

struct Extremes {
    double attention = 0.0, hidden = 0.0, logits = 0.0, invFreq = 0.0;
};
Extremes g_worst;
std::map<QString, Extremes> g_byFamily;   // the index's "family" (or the architecture) → worst errors

std::vector<std::int64_t> intArray(const QJsonValue &v)
{
    std::vector<std::int64_t> out;
    for (const QJsonValue &x : v.toArray()) out.push_back(x.toInteger());
    return out;
}

// Max |a - b| over the array `key` of the case (b read from the .bin at its offset).
double maxDiff(const std::vector<float> &a, const std::vector<float> &blob, const QJsonObject &arrays, const char *key,
               std::size_t expectCount, QString *error)
{
    const QJsonObject e = arrays.value(key).toObject();
    const auto offset = static_cast<std::size_t>(e.value("offset").toInteger());
    std::size_t count = 1;
    for (const QJsonValue &d : e.value("shape").toArray()) count *= static_cast<std::size_t>(d.toInteger());
    if (count != expectCount || a.size() != count || offset + count > blob.size()) {
        *error = QStringLiteral("%1: fixture has %2 values, AttnScope %3 (expected %4)")
                     .arg(key).arg(count).arg(a.size()).arg(expectCount);
        return INFINITY;
    }
    double m = 0.0;
    for (std::size_t i = 0; i < count; ++i) {
        const double d = std::fabs(double(a[i]) - double(blob[offset + i]));
        if (!(d <= m)) m = d;   // NaN propagates as a failure
    }
    return m;
}

} // namespace

class TestModelParity : public QObject {
    Q_OBJECT

private:
    QJsonObject m_index;
    std::map<QString, Model> m_models;
    std::map<QString, QString> m_family;

private slots:
    void initTestCase()
    {
        QFile f(kFixtures + "parity/index.json");
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
        QJsonParseError err;
        m_index = QJsonDocument::fromJson(f.readAll(), &err).object();
        QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
        QVERIFY(m_index.value("cases").toArray().size() >= 18);
        qInfo("fixtures made by %s with transformers %s, torch %s",
              qPrintable(m_index.value("generator").toString()),
              qPrintable(m_index.value("versions").toObject().value("transformers").toString()),
              qPrintable(m_index.value("versions").toObject().value("torch").toString()));
        for (const QJsonValue &m : m_index.value("models").toArray()) {
            const QString name = m.toObject().value("name").toString();
            auto model = Model::open((kFixtures + m.toObject().value("folder").toString()).toStdString());
            QVERIFY2(model.isOk(), model.status().message().c_str());
            m_family[name] = m.toObject().value("family").toString(QString::fromStdString(model->config().modelType));
            m_models.emplace(name, std::move(model).value());
        }
    }

    void parity_data()
    {
        QTest::addColumn<int>("caseIndex");
        QTest::addColumn<int>("backend");
        const QJsonArray cases = m_index.value("cases").toArray();
        for (int i = 0; i < cases.size(); ++i)
            for (Backend b : {Backend::Reference, Backend::Tiled})
                QTest::addRow("%s %s", qPrintable(cases[i].toObject().value("name").toString()), backendName(b).c_str())
                    << i << int(b);
    }

    void parity()
    {
        QFETCH(int, caseIndex);
        QFETCH(int, backend);
        const QJsonObject c = m_index.value("cases").toArray()[caseIndex].toObject();
        const Model &model = m_models.at(c.value("model").toString());
        const ModelConfig &cfg = model.config();

        QFile bin(kFixtures + c.value("file").toString());
        QVERIFY2(bin.open(QIODevice::ReadOnly), qPrintable(bin.fileName()));
        const QByteArray raw = bin.readAll();
        std::vector<float> blob(static_cast<std::size_t>(raw.size()) / 4);
        std::memcpy(blob.data(), raw.constData(), blob.size() * 4);

        ForwardInput in;
        in.tokenIds = intArray(c.value("input_ids"));
        for (std::int64_t m : intArray(c.value("attention_mask"))) in.attentionMask.push_back(m ? 1 : 0);
        if (c.value("token_type_ids").isArray()) in.tokenTypeIds = intArray(c.value("token_type_ids"));
        ForwardOptions opt;
        opt.backend = static_cast<Backend>(backend);
        opt.weightsMode = WeightsRequest::Mode::All;
        opt.captureHiddenStates = true;
        const QJsonArray headMask = c.value("head_mask").toArray();
        for (int l = 0; l < headMask.size(); ++l) {
            const QJsonArray row = headMask[l].toArray();
            for (int h = 0; h < row.size(); ++h)
                if (row[h].toDouble() == 0.0) opt.ablations.push_back({{l, h}, HeadAblation::Kind::Zero, {}});
        }

        auto r = model.forward(in, opt);
        QVERIFY2(r.isOk(), r.status().message().c_str());
        const auto L = static_cast<std::size_t>(in.tokenIds.size());
        const auto layers = static_cast<std::size_t>(cfg.layers), heads = static_cast<std::size_t>(cfg.heads);
        const auto D = static_cast<std::size_t>(cfg.dModel);
        const QJsonObject arrays = c.value("arrays").toObject();
        QString error;

        std::vector<float> att;
        for (const CapturedHead &h : r->heads) att.insert(att.end(), h.weights.begin(), h.weights.end());
        const double dAtt = maxDiff(att, blob, arrays, "attentions", layers * heads * L * L, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));

        std::vector<float> hidden;
        for (const auto &h : r->hiddenStates) hidden.insert(hidden.end(), h.begin(), h.end());
        const double dHidden = maxDiff(hidden, blob, arrays, "hidden_states", (layers + 1) * L * D, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));

        double dLogits = 0.0;
        if (arrays.contains("logits")) {
            const std::size_t n = cfg.head == ModelHead::Classification ? static_cast<std::size_t>(cfg.numLabels)
                                                                        : L * static_cast<std::size_t>(cfg.vocabSize);
            dLogits = maxDiff(r->logits, blob, arrays, "logits", n, &error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
        } else {
            QVERIFY(r->logits.empty());
        }
        if (arrays.contains("pooled")) {
            const double dPooled = maxDiff(r->pooled, blob, arrays, "pooled", D, &error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            QVERIFY2(dPooled < 1e-4, qPrintable(QString::number(dPooled)));
        }

        // RoPE: the inverse frequencies the forward pass used, relative to transformers' (1 ulp allowed: the
        // platform's float pow may round differently from torch's).
        double dInv = 0.0;
        for (const auto &[key, layer] : {std::pair{"inv_freq", std::int64_t(-1)}, std::pair{"inv_freq_local", std::int64_t(-2)}}) {
            if (!arrays.contains(key)) continue;
            std::int64_t l = 0;   // Gemma 3: a sliding layer for the local set, a full one for the other
            for (; l < cfg.layers; ++l)
                if (cfg.layerAttention[std::size_t(l)].localRope == (layer == -2)) break;
            const std::vector<float> inv = ropeInverseFrequencies(cfg, l, std::int64_t(L));
            const QJsonObject e = arrays.value(key).toObject();
            const auto offset = static_cast<std::size_t>(e.value("offset").toInteger());
            QCOMPARE(inv.size(), std::size_t(e.value("shape").toArray()[0].toInteger()));
            for (std::size_t k = 0; k < inv.size(); ++k) {
                const double ref = blob[offset + k];
                dInv = std::max(dInv, std::fabs(double(inv[k]) - ref) / std::fabs(ref));
            }
        }

        for (Extremes *e : {&g_worst, &g_byFamily[m_family.at(c.value("model").toString())]}) {
            e->attention = std::max(e->attention, dAtt);
            e->hidden = std::max(e->hidden, dHidden);
            e->logits = std::max(e->logits, dLogits);
            e->invFreq = std::max(e->invFreq, dInv);
        }
        const QString report = QStringLiteral("max |diff|: attentions %1, hidden states %2, logits %3, inv_freq (rel) %4")
                                   .arg(dAtt, 0, 'g', 3).arg(dHidden, 0, 'g', 3).arg(dLogits, 0, 'g', 3).arg(dInv, 0, 'g', 3);
        QVERIFY2(dAtt <= 1e-5, qPrintable(report));
        QVERIFY2(dHidden <= 1e-4, qPrintable(report));
        QVERIFY2(dLogits <= 1e-4, qPrintable(report));
        QVERIFY2(dInv <= 1.2e-7, qPrintable(report));
    }

    void cleanupTestCase()
    {
        for (const auto &[family, e] : g_byFamily)
            qInfo("%-12s attentions %.3g, hidden states %.3g, logits %.3g, inv_freq (rel) %.3g", qPrintable(family),
                  e.attention, e.hidden, e.logits, e.invFreq);
        qInfo("worst over all cases: attentions %.3g, hidden states %.3g, logits %.3g, inv_freq (rel) %.3g",
              g_worst.attention, g_worst.hidden, g_worst.logits, g_worst.invFreq);
    }
};

QTEST_GUILESS_MAIN(TestModelParity)
#include "tst_model_parity.moc"
