// SPDX-License-Identifier: GPL-3.0-or-later
// The engine's export functions (export.h) without the CLI: the run document carries exactly the ForwardResult's
// numbers (weights round-trip float32, probabilities are the softmax of the logits), option parsing rejects what
// it should, files are replaced atomically, and the schema checker itself catches broken documents.

#include "jsonschema.h"

#include <attnscope/export.h>

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <bit>
#include <cmath>

using namespace attn;

namespace {

const std::string kFixtures = ATTNSCOPE_TEST_DATA_DIR "/fixtures/models/";

QJsonObject runSchema()
{
    QFile file(QStringLiteral(ATTNSCOPE_SCHEMA_DIR "/run.schema.json"));
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

QJsonObject parse(const std::string &json)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &error);
    return error.error == QJsonParseError::NoError ? doc.object() : QJsonObject();
}

std::vector<double> softmax(const float *logits, std::size_t n)
{
    const double m = *std::max_element(logits, logits + n);
    std::vector<double> p(n);
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) sum += p[i] = std::exp(logits[i] - m);
    for (double &x : p) x /= sum;
    return p;
}

} // namespace

class TestExport : public QObject {
    Q_OBJECT

private slots:
    void weightsMatchTheForwardPass_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<bool>("text");
        QTest::addColumn<QString>("heads");
        QTest::addColumn<int>("padding");
        QTest::addRow("random, all heads") << "random:layers=2,heads=3,d_model=24,seed=5" << true << "all" << 0;
        QTest::addRow("random, two heads, pad 1") << "random:layers=2,heads=3,d_model=24,seed=5" << true << "1.2,0.0" << 1;
        QTest::addRow("gpt2-tiny") << QString::fromStdString(kFixtures + "gpt2-tiny") << false << "all" << 2;
        QTest::addRow("bert-cls-d72h3") << QString::fromStdString(kFixtures + "bert-cls-d72h3") << false << "all" << 0;
    }
    void weightsMatchTheForwardPass()
    {
        QFETCH(QString, spec);
        QFETCH(bool, text);
        QFETCH(QString, heads);
        QFETCH(int, padding);
        auto m = openModel(spec.toStdString(), text);
        QVERIFY2(m, m.status().message().c_str());
        RunRequest request;
        if (text) request.text = "attend!";
        else request.ids = {2, 7, 11, 5, 3};
        request.padding = padding;
        auto headList = parseHeadList(heads.toStdString());
        QVERIFY(headList);
        request.heads = *headList;
        auto data = runModel(*m, request);
        QVERIFY2(data, data.status().message().c_str());
        const QJsonObject doc = parse(runExportJson(*m, request, *data));
        QVERIFY(!doc.isEmpty());
        const QStringList problems = test::validateJsonSchema(doc, runSchema());
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));

        const std::int64_t L = data->result.length;
        QCOMPARE(doc.value("input").toObject().value("length").toInt(), int(L));
        const QJsonArray attention = doc.value("attention").toArray();
        int seen = 0;
        for (const CapturedHead &h : data->result.heads) {
            const QJsonArray P = attention.at(int(h.head.layer)).toArray().at(int(h.head.head)).toArray();
            QCOMPARE(P.size(), qsizetype(L));
            for (std::int64_t i = 0; i < L; ++i)
                for (std::int64_t j = 0; j < L; ++j) {
                    // The shortest round-trip decimal reads back to the very same float.
                    const float got = static_cast<float>(P.at(int(i)).toArray().at(int(j)).toDouble());
                    QCOMPARE(got, h.weights[static_cast<std::size_t>(i * L + j)]);
                }
            ++seen;
        }
        QVERIFY(seen > 0);
        int nonNull = 0;
        for (const QJsonValue &layer : attention)
            for (const QJsonValue &head : layer.toArray()) nonNull += head.isArray();
        QCOMPARE(nonNull, seen);

        const ModelConfig &c = m->model.config();
        const QJsonObject out = doc.value("outputs").toObject();
        if (c.head == ModelHead::Classification) {
            const auto p = softmax(data->result.logits.data(), data->result.logits.size());
            const QJsonArray probs = out.value("probabilities").toArray();
            QCOMPARE(probs.size(), qsizetype(p.size()));
            for (std::size_t k = 0; k < p.size(); ++k) QVERIFY(std::abs(probs.at(int(k)).toDouble() - p[k]) < 1e-6);
            const auto best = std::max_element(p.begin(), p.end()) - p.begin();
            QCOMPARE(out.value("predicted").toObject().value("index").toInt(), int(best));
        }
        if (c.head == ModelHead::CausalLM) {
            const std::int64_t last = L - padding - 1;
            const float *row = data->result.logits.data() + last * c.vocabSize;
            const auto p = softmax(row, static_cast<std::size_t>(c.vocabSize));
            const QJsonArray top = out.value("top_k").toArray();
            QCOMPARE(top.size(), 5);
            double previous = 1.0;
            for (const QJsonValue &e : top) {
                const int id = e.toObject().value("id").toInt();
                const double prob = e.toObject().value("probability").toDouble();
                QVERIFY(std::abs(prob - p[static_cast<std::size_t>(id)]) < 1e-6);
                QVERIFY(prob <= previous);
                previous = prob;
            }
            QCOMPARE(top.at(0).toObject().value("id").toInt(), int(std::max_element(p.begin(), p.end()) - p.begin()));
        }
    }

    void maskChoices_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("window");
        QTest::addRow("model") << "model" << true << "model" << -1;
        QTest::addRow("bidirectional") << "bidirectional" << true << "bidirectional" << -1;
        QTest::addRow("causal") << "causal" << true << "causal" << -1;
        QTest::addRow("window:0") << "window:0" << true << "window" << 0;
        QTest::addRow("causal-window:16") << "causal-window:16" << true << "causal_window" << 16;
        QTest::addRow("window:") << "window:" << false << "" << -1;
        QTest::addRow("window:-1") << "window:-1" << false << "" << -1;
        QTest::addRow("window:2x") << "window:2x" << false << "" << -1;
        QTest::addRow("diagonal") << "diagonal" << false << "" << -1;
    }
    void maskChoices()
    {
        QFETCH(QString, text);
        QFETCH(bool, ok);
        QFETCH(QString, kind);
        QFETCH(int, window);
        const auto choice = parseMaskChoice(text.toStdString());
        QCOMPARE(bool(choice), ok);
        if (!ok) {
            QVERIFY(choice.status().message().find(text.toStdString()) != std::string::npos);
            return;
        }
        QCOMPARE(QString::fromStdString(choice->kindName()), kind);
        QCOMPARE(choice->window, std::int64_t(window));
        QCOMPARE(choice->override().has_value(), kind != "model");
    }

    void headLists()
    {
        QVERIFY(parseHeadList("all") && !parseHeadList("all")->has_value());
        const auto list = parseHeadList("1.2,0.0,1.2");
        QVERIFY(list && list->has_value());
        QCOMPARE((*list)->size(), std::size_t(2));   // duplicates dropped, order kept
        QVERIFY(((**list)[0] == HeadRef{1, 2}));
        for (const char *bad : {"", "1", "1.", ".2", "a.b", "1.2,", "-1.0", "1.2.3"})
            QVERIFY2(!parseHeadList(bad), bad);
        ModelConfig c;
        c.layers = 2;
        c.heads = 3;
        QVERIFY(checkHeadList({{1, 2}}, c));
        QVERIFY(!checkHeadList({{2, 0}}, c));
        QVERIFY(!checkHeadList({{0, 3}}, c));
    }

    void paddingIds()
    {
        // gpt2-tiny has no tokenizer and no pad_token_id: its eos (95) pads.
        auto gpt2 = openModel(kFixtures + "gpt2-tiny", false);
        QVERIFY(gpt2);
        QCOMPARE(paddingTokenId(*gpt2), std::int64_t(95));
        auto bert = openModel(kFixtures + "bert-mlm", false);
        QVERIFY(bert);
        QCOMPARE(paddingTokenId(*bert), std::int64_t(0));
    }

    void atomicWrite()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("out.json").toStdString();
        QVERIFY(writeFileAtomically(path, "first"));
        QVERIFY(writeFileAtomically(path, "second"));
        QFile f(QString::fromStdString(path));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("second"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"out.json"});

        const std::string missing = dir.filePath("missing/out.json").toStdString();
        const Status s = writeFileAtomically(missing, "x");
        QVERIFY(!s);
        QCOMPARE(s.code(), ErrorCode::IoError);
        QVERIFY(s.message().find(missing) != std::string::npos);
    }

    void infoDocument()
    {
        auto m = openModel(kFixtures + "bert-cls-d72h3", false);
        QVERIFY(m);
        const QJsonObject info = parse(modelInfoJson(*m));
        QCOMPARE(info.value("architecture").toString(), QStringLiteral("bert"));
        QCOMPARE(info.value("head").toString(), QStringLiteral("classifier"));
        QCOMPARE(info.value("labels").toArray().size(), 3);
        QVERIFY(info.value("tokenizer").isNull());
        QVERIFY(info.value("parameter_count").toDouble() > 0);
    }

    // The checker must fail documents that break the schema, or the passing tests above prove nothing.
    void schemaCheckerCatchesBrokenDocuments()
    {
        auto m = openModel("random:layers=1,heads=2,d_model=8,seed=1", true);
        QVERIFY(m);
        RunRequest request;
        request.text = "ab";
        auto data = runModel(*m, request);
        QVERIFY(data);
        const QJsonObject good = parse(runExportJson(*m, request, *data));
        const QJsonObject schema = runSchema();
        QVERIFY(!schema.isEmpty());
        QVERIFY(test::validateJsonSchema(good, schema).isEmpty());

        QJsonObject noAttention = good;
        noAttention.remove("attention");
        QVERIFY(test::validateJsonSchema(noAttention, schema).join(' ').contains("attention"));
        QJsonObject wrongVersion = good;
        wrongVersion["version"] = 2;
        QVERIFY(!test::validateJsonSchema(wrongVersion, schema).isEmpty());
        QJsonObject stringWeight = good;
        stringWeight["attention"] = QJsonArray{QJsonArray{QJsonArray{QJsonArray{"0.5"}}}};
        QVERIFY(test::validateJsonSchema(stringWeight, schema).join(' ').contains("/attention/0/0/0/0"));
        QJsonObject outsideSubset{{"type", "object"}, {"additionalProperties", false}};
        QVERIFY(!test::validateJsonSchema(good, outsideSubset).isEmpty());

        // The .npy form: a reference object in place of the arrays, valid as exported, broken without its file name.
        const QJsonObject npy = parse(runExportJson(*m, request, *data, npySideFileName("out/run.json")));
        QVERIFY2(test::validateJsonSchema(npy, schema).isEmpty(), qPrintable(test::validateJsonSchema(npy, schema).join('\n')));
        const QJsonObject ref = npy.value("attention").toObject();
        QCOMPARE(ref.value("npy").toString(), QStringLiteral("run.attention.npy"));
        QCOMPARE(ref.value("shape").toArray(), (QJsonArray{1, 2, 2, 2}));
        QJsonObject noFile = npy;
        QJsonObject brokenRef = ref;
        brokenRef.remove("npy");
        noFile["attention"] = brokenRef;
        QVERIFY(test::validateJsonSchema(noFile, schema).join(' ').contains("npy"));
    }

    void npyFileNameAndHeader()
    {
        QCOMPARE(npySideFileName("a/b/run.json"), std::string("run.attention.npy"));
        QCOMPARE(npySideFileName("weights"), std::string("weights.attention.npy"));
        auto m = openModel("random:layers=2,heads=3,d_model=12,seed=2", true);
        QVERIFY(m);
        RunRequest request;
        request.text = "abc";
        request.heads = std::vector<HeadRef>{{1, 2}};
        auto data = runModel(*m, request);
        QVERIFY(data);
        const std::string bytes = attentionNpy(m->model.config(), data->result);
        QCOMPARE(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
        const std::size_t headerLength = std::size_t(std::uint8_t(bytes[8])) | std::size_t(std::uint8_t(bytes[9])) << 8;
        QCOMPARE((10 + headerLength) % 64, std::size_t(0));
        const std::string header = bytes.substr(10, headerLength);
        QVERIFY2(header.find("'shape': (1, 3, 3)") != std::string::npos, header.c_str());
        // Only head 1.2 was captured: the file holds its block alone (not 5 blocks of NaN beside it).
        QCOMPARE(bytes.size(), 10 + headerLength + 9 * 4);
        const auto at = [&](const std::string &b, std::size_t offset, std::size_t k) {
            std::uint32_t bits = 0;
            for (int i = 0; i < 4; ++i) bits |= std::uint32_t(std::uint8_t(b[offset + 4 * k + i])) << (8 * i);
            return std::bit_cast<float>(bits);
        };
        for (std::size_t k = 0; k < 9; ++k) QCOMPARE(at(bytes, 10 + headerLength, k), data->result.heads.front().weights[k]);
        QVERIFY(!npyHoldsEveryHead(m->model.config(), data->result));
        const QJsonObject ref = parse(runExportJson(*m, request, *data, std::string("run.attention.npy"))).value("attention").toObject();
        QCOMPARE(ref.value("shape").toArray(), (QJsonArray{1, 3, 3}));
        QCOMPARE(ref.value("heads").toArray(), (QJsonArray{QJsonArray{1, 2}}));

        // Two heads in the order asked: the blocks follow that order.
        request.heads = std::vector<HeadRef>{{1, 0}, {0, 1}};
        auto two = runModel(*m, request);
        QVERIFY(two);
        const std::string twoBytes = attentionNpy(m->model.config(), two->result);
        const std::size_t twoHeader = std::size_t(std::uint8_t(twoBytes[8])) | std::size_t(std::uint8_t(twoBytes[9])) << 8;
        QVERIFY(twoBytes.substr(10, twoHeader).find("'shape': (2, 3, 3)") != std::string::npos);
        for (std::size_t b = 0; b < 2; ++b)
            for (std::size_t k = 0; k < 9; ++k)
                QCOMPARE(at(twoBytes, 10 + twoHeader, b * 9 + k), two->result.heads[b].weights[k]);
        QCOMPARE(two->result.heads[0].head, (HeadRef{1, 0}));

        // Every head: [layers, heads, n, n] in layer/head order, no "heads" list.
        request.heads.reset();
        auto all = runModel(*m, request);
        QVERIFY(all);
        QVERIFY(npyHoldsEveryHead(m->model.config(), all->result));
        const std::string allBytes = attentionNpy(m->model.config(), all->result);
        const std::size_t allHeader = std::size_t(std::uint8_t(allBytes[8])) | std::size_t(std::uint8_t(allBytes[9])) << 8;
        QVERIFY(allBytes.substr(10, allHeader).find("'shape': (2, 3, 3, 3)") != std::string::npos);
        QCOMPARE(allBytes.size(), 10 + allHeader + 2 * 3 * 9 * 4);
        for (const CapturedHead &h : all->result.heads)
            for (std::size_t k = 0; k < 9; ++k)
                QCOMPARE(at(allBytes, 10 + allHeader, std::size_t(h.head.layer * 3 + h.head.head) * 9 + k), h.weights[k]);
        const QJsonObject allRef = parse(runExportJson(*m, request, *all, std::string("run.attention.npy"))).value("attention").toObject();
        QCOMPARE(allRef.value("shape").toArray(), (QJsonArray{2, 3, 3, 3}));
        QVERIFY(!allRef.contains("heads"));
    }

    // --analyses on the bundled induction model and a repeated text: every number is recomputed here from the
    // document's own weights, by the definitions (analysis.h) written out again, not by the engine's functions.
    void analysesFollowFromTheWeights()
    {
        auto m = openModel("sample:induction-gpt2", true);
        QVERIFY2(m, m.status().message().c_str());
        RunRequest request;
        request.text = "bo he so ve pa va ro na bo he so ve";
        auto analyses = parseRunAnalyses("stats,rollout,flow");
        QVERIFY(analyses);
        request.analyses = *analyses;
        auto data = runModel(*m, request);
        QVERIFY2(data, data.status().message().c_str());
        const QJsonObject doc = parse(runExportJson(*m, request, *data));
        const QStringList problems = test::validateJsonSchema(doc, runSchema());
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        const ModelConfig &c = m->model.config();
        const int n = int(data->result.length);
        QVERIFY(n >= 12);
        const QJsonArray attention = doc.value("attention").toArray();
        const QJsonArray ids = doc.value("input").toObject().value("token_ids").toArray();
        const auto A = [&](int l, int h, int i, int j) {
            return attention.at(l).toArray().at(h).toArray().at(i).toArray().at(j).toDouble();
        };
        const QJsonObject an = doc.value("analyses").toObject();
        const QJsonArray stats = an.value("head_statistics").toArray();
        QCOMPARE(stats.size(), qsizetype(c.layers * c.heads));
        double bestInduction = 0.0;
        for (const QJsonValue &v : stats) {
            const QJsonObject s = v.toObject();
            const int l = s.value("layer").toInt(), h = s.value("head").toInt();
            double entropy = 0, distance = 0, first = 0, self = 0, previous = 0, duplicate = 0, induction = 0;
            int repeated = 0;
            for (int i = 0; i < n; ++i) {
                for (int j = 0; j < n; ++j) {
                    const double a = A(l, h, i, j);
                    if (a > 0) entropy -= a * std::log(a);
                    distance += a * std::abs(i - j);
                }
                first += A(l, h, i, 0);
                self += A(l, h, i, i);
                if (i >= 1) previous += A(l, h, i, i - 1);
                bool seen = false;
                double dup = 0, ind = 0;
                for (int j = 0; j < i; ++j)
                    if (ids.at(j) == ids.at(i)) {
                        seen = true;
                        dup += A(l, h, i, j);
                        ind += A(l, h, i, j + 1);
                    }
                if (seen) ++repeated, duplicate += dup, induction += ind;
            }
            QVERIFY(repeated > 0);
            const double tolerance = 1e-5;   // float32 in the document
            QVERIFY(std::abs(s.value("entropy").toDouble() - entropy / n) < tolerance);
            QVERIFY(std::abs(s.value("mean_distance").toDouble() - distance / n) < tolerance * n);
            QVERIFY(std::abs(s.value("first_token").toDouble() - first / n) < tolerance);
            QVERIFY(std::abs(s.value("self").toDouble() - self / n) < tolerance);
            QVERIFY(std::abs(s.value("previous_token").toDouble() - previous / (n - 1)) < tolerance);
            QVERIFY(std::abs(s.value("duplicate_token").toDouble() - duplicate / repeated) < tolerance);
            QVERIFY(std::abs(s.value("induction").toDouble() - induction / repeated) < tolerance);
            bestInduction = std::max(bestInduction, induction / repeated);
        }
        QVERIFY2(bestInduction > 0.5, "the induction model has an induction head on a repeated text");

        // Rollout: mean over heads, 0.5·A + 0.5·I, rows renormalised, R = Ã_L ··· Ã_1.
        std::vector<double> R;
        for (int l = 0; l < c.layers; ++l) {
            std::vector<double> T(std::size_t(n * n));
            for (int i = 0; i < n; ++i) {
                double sum = 0;
                for (int j = 0; j < n; ++j) {
                    double mean = 0;
                    for (int h = 0; h < c.heads; ++h) mean += A(l, h, i, j) / double(c.heads);
                    T[std::size_t(i * n + j)] = 0.5 * mean + (i == j ? 0.5 : 0.0);
                    sum += T[std::size_t(i * n + j)];
                }
                for (int j = 0; j < n; ++j) T[std::size_t(i * n + j)] /= sum;
            }
            if (R.empty()) { R = T; continue; }
            std::vector<double> next(std::size_t(n * n), 0.0);
            for (int i = 0; i < n; ++i)
                for (int k = 0; k < n; ++k)
                    for (int j = 0; j < n; ++j) next[std::size_t(i * n + j)] += T[std::size_t(i * n + k)] * R[std::size_t(k * n + j)];
            R = next;
        }
        const QJsonObject rollout = an.value("rollout").toObject();
        QCOMPARE(rollout.value("head_fusion").toString(), QStringLiteral("mean"));
        const QJsonArray rm = rollout.value("matrix").toArray();
        QCOMPARE(rm.size(), qsizetype(n));
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                QVERIFY(std::abs(rm.at(i).toArray().at(j).toDouble() - R[std::size_t(i * n + j)]) < 1e-5);
        // Flow: a distribution per output position (its max-flow values are checked in tst_analysis).
        const QJsonArray fm = an.value("flow").toObject().value("matrix").toArray();
        QCOMPARE(fm.size(), qsizetype(n));
        for (const QJsonValue &row : fm) {
            double sum = 0;
            for (const QJsonValue &x : row.toArray()) sum += x.toDouble();
            QVERIFY(std::abs(sum - 1.0) < 1e-5);
        }
    }

    void analysesRefuseWhatTheyCannotCompute()
    {
        QVERIFY(!parseRunAnalyses("stats,attention"));
        QVERIFY(QString::fromStdString(parseRunAnalyses("stats,attention").status().message()).contains("'attention'"));
        QVERIFY(!parseRunAnalyses(""));
        const auto all = parseRunAnalyses("all");
        QVERIFY(all && all->stats && all->rollout && all->flow);
        QVERIFY(parseRunAnalyses("none") && !parseRunAnalyses("none")->any());

        auto m = openModel("random:layers=2,heads=2,d_model=16,seed=3", true);
        QVERIFY(m);
        RunRequest request;
        request.text = "abcd";
        request.analyses.rollout = true;
        request.heads = std::vector<HeadRef>{{0, 1}};
        auto partial = runModel(*m, request);
        QVERIFY(!partial);
        QVERIFY(QString::fromStdString(partial.status().message()).contains("rollout fuses every head"));
        request.heads.reset();
        request.analyses = {false, false, true};
        request.text = std::string(kMaxFlowTokens + 1, 'a');
        auto tooLong = runModel(*m, request);
        QVERIFY(!tooLong);
        QVERIFY(QString::fromStdString(tooLong.status().message()).contains("up to 64 tokens"));
        // Statistics need no particular heads: only the captured ones are listed.
        request.text = "abab";
        request.analyses = {true, false, false};
        request.heads = std::vector<HeadRef>{{1, 0}};
        auto one = runModel(*m, request);
        QVERIFY(one);
        const QJsonArray stats = parse(runExportJson(*m, request, *one)).value("analyses").toObject().value("head_statistics").toArray();
        QCOMPARE(stats.size(), 1);
        QCOMPARE(stats.at(0).toObject().value("layer").toInt(), 1);
    }

    // The provenance names this build and each file the model was read from, with digests that Qt's own SHA-256
    // (QCryptographicHash) computes from the files again.
    void provenanceNamesTheBuildAndTheFiles()
    {
        const std::string folder = kFixtures + "gpt2-tiny";
        auto m = openModel(folder, false);
        QVERIFY(m);
        RunRequest request;
        request.ids = {1, 2, 3};
        request.backend = Backend::Tiled;
        request.threads = 1;
        auto data = runModel(*m, request);
        QVERIFY(data);
        const QJsonObject p = parse(runExportJson(*m, request, *data)).value("provenance").toObject();
        QCOMPARE(p.value("attnscope").toObject().value("version").toString(), QStringLiteral(ATTNSCOPE_PROJECT_VERSION));
        const QString commit = p.value("attnscope").toObject().value("commit").toString();
        QVERIFY2(QRegularExpression(QStringLiteral("^([0-9a-f]{40}(\\+dirty)?|unknown)$")).match(commit).hasMatch(), qPrintable(commit));
        QCOMPARE(p.value("backend").toString(), QStringLiteral("tiled"));
        QCOMPARE(p.value("kernel").toString(), QString::fromStdString(cpuSimdLevel()));
        QCOMPARE(p.value("threads").toInt(), 1);
        QCOMPARE(p.value("model").toObject().value("source").toString(), QString::fromStdString(folder));
        const QJsonArray files = p.value("model").toObject().value("files").toArray();
        QStringList names;
        for (const QJsonValue &v : files) {
            const QJsonObject f = v.toObject();
            names << f.value("file").toString();
            QFile file(QString::fromStdString(folder) + "/" + f.value("file").toString());
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QByteArray bytes = file.readAll();
            QCOMPARE(f.value("bytes").toInteger(), qint64(bytes.size()));
            QCOMPARE(f.value("sha256").toString(), QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()));
        }
        QCOMPARE(names, (QStringList{"config.json", "model.safetensors"}));
        QVERIFY(p.value("tokenizer").toObject().value("files").toArray().isEmpty());   // the fixture has none
        QVERIFY(!p.contains("error"));

        // A sample model's tokenizer files; a random model has no files; Auto threads resolve.
        auto sample = openModel("sample:induction-gpt2", true);
        QVERIFY(sample);
        RunRequest text;
        text.text = "bo he";
        auto run = runModel(*sample, text);
        QVERIFY(run);
        const QJsonObject sp = parse(runExportJson(*sample, text, *run)).value("provenance").toObject();
        QStringList tokenizerFiles;
        for (const QJsonValue &v : sp.value("tokenizer").toObject().value("files").toArray()) tokenizerFiles << v.toObject().value("file").toString();
        QCOMPARE(tokenizerFiles, (QStringList{"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.json", "merges.txt"}));
        QCOMPARE(sp.value("threads").toInt(), hardwareThreads());
        const Provenance random = makeProvenance("random:layers=1,heads=1,d_model=8", Backend::Reference, 2);
        QVERIFY(random.files.model.empty() && random.files.tokenizer.empty() && random.error.empty());
        QCOMPARE(random.kernel, std::string("fp64 scalar"));
        // An unreadable folder: the export still has a provenance, saying why it names no files.
        const Provenance missing = makeProvenance("/nonexistent/model/folder", Backend::Tiled, 1);
        QVERIFY(missing.files.model.empty());
        QVERIFY(!missing.error.empty());
    }
};

QTEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"
