// SPDX-License-Identifier: GPL-3.0-or-later
// Models: loading folders (one data row per malformed checkpoint or config, each built here from explicit bytes),
// synthetic specs and input validation. The forward pass's hooks and interventions: tst_model_forward.cpp.
#include <attnscope/model.h>
#include <attnscope/safetensors.h>

#include "tst_model_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

using namespace attn;
using namespace attn::test;

namespace {

// A tiny GPT-2: vocab 5, n_embd 4, 2 heads, 1 layer, 6 positions, n_inner 8.
const QByteArray kGpt2Config = R"({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": 5,
  "n_embd": 4, "n_layer": 1, "n_head": 2, "n_positions": 6, "n_inner": 8})";
const QByteArray kBertConfig = R"({"model_type": "bert", "architectures": ["BertModel"], "vocab_size": 5,
  "hidden_size": 4, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 8,
  "max_position_embeddings": 6, "type_vocab_size": 2})";

StTensor tensor(const std::string &name, std::vector<std::int64_t> shape, float scale = 0.3f)
{
    const std::int64_t n = std::accumulate(shape.begin(), shape.end(), std::int64_t(1), std::multiplies<>());
    return {name, "F32", shape, floatBytes(ramp(n, scale))};
}

// The tiny GPT-2's tensors (with the `transformer.` prefix and the causal-mask buffer transformers used to save).
// `edit` may drop or change one before the file is built.
QByteArray gpt2Weights(const std::function<void(std::vector<StTensor> &)> &edit = {})
{
    std::vector<StTensor> t{
        tensor("transformer.wte.weight", {5, 4}, 0.5f),   tensor("transformer.wpe.weight", {6, 4}, 0.2f),
        tensor("transformer.h.0.ln_1.weight", {4}, 1.0f), tensor("transformer.h.0.ln_1.bias", {4}, 0.1f),
        tensor("transformer.h.0.attn.c_attn.weight", {4, 12}, 0.9f),
        tensor("transformer.h.0.attn.c_attn.bias", {12}, 0.1f),
        tensor("transformer.h.0.attn.c_proj.weight", {4, 4}),
        tensor("transformer.h.0.attn.c_proj.bias", {4}, 0.1f),
        {"transformer.h.0.attn.bias", "F32", {1, 1, 6, 6}, floatBytes(std::vector<float>(36, 1.0f))},
        tensor("transformer.h.0.ln_2.weight", {4}, 1.0f), tensor("transformer.h.0.ln_2.bias", {4}, 0.1f),
        tensor("transformer.h.0.mlp.c_fc.weight", {4, 8}), tensor("transformer.h.0.mlp.c_fc.bias", {8}, 0.1f),
        tensor("transformer.h.0.mlp.c_proj.weight", {8, 4}), tensor("transformer.h.0.mlp.c_proj.bias", {4}, 0.1f),
        tensor("transformer.ln_f.weight", {4}, 1.0f), tensor("transformer.ln_f.bias", {4}, 0.1f),
    };
    if (edit) edit(t);
    return buildSafetensors(t);
}

// The tiny BERT's tensors, with the old TensorFlow LayerNorm.gamma/beta names and a position_ids buffer.
QByteArray bertWeights()
{
    std::vector<StTensor> t{
        tensor("embeddings.word_embeddings.weight", {5, 4}, 0.5f),
        tensor("embeddings.position_embeddings.weight", {6, 4}, 0.2f),
        tensor("embeddings.token_type_embeddings.weight", {2, 4}, 0.2f),
        tensor("embeddings.LayerNorm.gamma", {4}, 1.0f), tensor("embeddings.LayerNorm.beta", {4}, 0.1f),
        {"embeddings.position_ids", "I64", {1, 6}, QByteArray(48, '\0')},
    };
    for (const char *p : {"query", "key", "value"}) {
        t.push_back(tensor(std::string("encoder.layer.0.attention.self.") + p + ".weight", {4, 4}, 0.9f));
        t.push_back(tensor(std::string("encoder.layer.0.attention.self.") + p + ".bias", {4}, 0.1f));
    }
    for (auto &x : {tensor("encoder.layer.0.attention.output.dense.weight", {4, 4}),
                    tensor("encoder.layer.0.attention.output.dense.bias", {4}),
                    tensor("encoder.layer.0.attention.output.LayerNorm.weight", {4}, 1.0f),
                    tensor("encoder.layer.0.attention.output.LayerNorm.bias", {4}),
                    tensor("encoder.layer.0.intermediate.dense.weight", {8, 4}),
                    tensor("encoder.layer.0.intermediate.dense.bias", {8}),
                    tensor("encoder.layer.0.output.dense.weight", {4, 8}),
                    tensor("encoder.layer.0.output.dense.bias", {4}),
                    tensor("encoder.layer.0.output.LayerNorm.weight", {4}, 1.0f),
                    tensor("encoder.layer.0.output.LayerNorm.bias", {4}),
                    tensor("pooler.dense.weight", {4, 4}), tensor("pooler.dense.bias", {4})})
        t.push_back(x);
    return buildSafetensors(t);
}

QByteArray gpt2ConfigWith(const char *from, const char *to)
{
    QByteArray c = kGpt2Config;
    c.replace(from, to);
    return c;
}

bool contains(const std::string &s, const QString &part) { return s.find(part.toStdString()) != std::string::npos; }

} // namespace

class TestModel : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_counter = 0;

    // A fresh folder holding the given files (empty content: the file is not written).
    QString folder(const QByteArray &config, const QByteArray &weights, const QString &extraFile = {})
    {
        const QString path = m_dir.filePath(QStringLiteral("m%1").arg(++m_counter));
        QDir().mkpath(path);
        if (!config.isNull()) writeBytes(path + "/config.json", config);
        if (!weights.isNull()) writeBytes(path + "/model.safetensors", weights);
        if (!extraFile.isEmpty()) writeBytes(path + "/" + extraFile, QByteArray("\x80\x02}q\x00.", 6));
        return path;
    }

private slots:
    // ---- loading -----------------------------------------------------------------------------------------
    void loadsHandMadeGpt2()
    {
        auto model = Model::open(folder(kGpt2Config, gpt2Weights()).toStdString());
        QVERIFY2(model.isOk(), model.status().message().c_str());
        const ModelConfig &c = model->config();
        QCOMPARE(c.architecture, Architecture::Gpt2);
        QCOMPARE(c.dHead, std::int64_t(2));
        QCOMPARE(c.intermediate, std::int64_t(8));
        QCOMPARE(c.activation, Activation::GeluNew);
        QCOMPARE(c.head, ModelHead::CausalLM);
        QVERIFY(c.causal);
        ForwardOptions opt;
        opt.weightsMode = WeightsRequest::Mode::All;
        opt.backend = Backend::Reference;
        auto r = model->forward(ids({1, 2, 3, 4, 0, 1}), opt);
        QVERIFY2(r.isOk(), r.status().message().c_str());
        QCOMPARE(r->logits.size(), std::size_t(6 * 5));
        QCOMPARE(r->heads.size(), std::size_t(2));
    }

    void loadsHandMadeBertWithOldNames()
    {
        auto model = Model::open(folder(kBertConfig, bertWeights()).toStdString());
        QVERIFY2(model.isOk(), model.status().message().c_str());
        QCOMPARE(model->config().head, ModelHead::None);
        QCOMPARE(model->config().layerNormEps, 1e-12f);
        ForwardInput in = ids({1, 2, 3});
        in.tokenTypeIds = {0, 1, 1};
        auto r = model->forward(in);
        QVERIFY2(r.isOk(), r.status().message().c_str());
        QCOMPARE(r->pooled.size(), std::size_t(4));
        QVERIFY(r->logits.empty());
    }

    void loadsFixtures_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("arch");
        QTest::addColumn<int>("head");
        QTest::addColumn<int>("dModel");
        QTest::addColumn<int>("heads");
        QTest::addColumn<QString>("dtype");   // storage dtype: the parity cases then cover every conversion
        QTest::addRow("gpt2-tiny") << "gpt2-tiny" << int(Architecture::Gpt2) << int(ModelHead::CausalLM) << 64 << 4 << "F32";
        QTest::addRow("gpt2-odd-d72h3") << "gpt2-odd-d72h3" << int(Architecture::Gpt2) << int(ModelHead::CausalLM) << 72 << 3 << "F16";
        QTest::addRow("gpt2-d40h5") << "gpt2-d40h5" << int(Architecture::Gpt2) << int(ModelHead::CausalLM) << 40 << 5 << "BF16";
        QTest::addRow("bert-mlm") << "bert-mlm" << int(Architecture::Bert) << int(ModelHead::MaskedLM) << 48 << 4 << "F32";
        QTest::addRow("bert-cls-d72h3") << "bert-cls-d72h3" << int(Architecture::Bert) << int(ModelHead::Classification) << 72 << 3 << "F16";
        QTest::addRow("bert-base-d48h6") << "bert-base-d48h6" << int(Architecture::Bert) << int(ModelHead::None) << 48 << 6 << "BF16";
    }
    void loadsFixtures()
    {
        QFETCH(QString, name);
        QFETCH(int, arch);
        QFETCH(int, head);
        QFETCH(int, dModel);
        QFETCH(int, heads);
        auto model = Model::open(fixtureModel(name).toStdString());
        QVERIFY2(model.isOk(), model.status().message().c_str());
        QCOMPARE(int(model->config().architecture), arch);
        QCOMPARE(int(model->config().head), head);
        QCOMPARE(model->config().dModel, std::int64_t(dModel));
        QCOMPARE(model->config().heads, std::int64_t(heads));
        QCOMPARE(model->name(), name.toStdString());
        QFETCH(QString, dtype);
        auto file = SafetensorsFile::open((fixtureModel(name) + "/model.safetensors").toStdString());
        QVERIFY(file.isOk());
        for (const SafetensorsTensor &t : file->tensors())
            QCOMPARE(QString::fromStdString(safetensorsDTypeName(t.dtype)), dtype);
    }

    void badFolder_data()
    {
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<QByteArray>("weights");
        QTest::addColumn<QString>("extra");       // an extra file, or "missing-folder" / "file-not-folder"
        QTest::addColumn<int>("code");
        QTest::addColumn<QStringList>("mentions");

        const int io = int(ErrorCode::IoError), fmt = int(ErrorCode::FormatError);
        const QByteArray w = gpt2Weights();
        QTest::addRow("no such folder") << QByteArray() << QByteArray() << "missing-folder" << io << QStringList{"no such folder"};
        QTest::addRow("a file, not a folder") << QByteArray() << QByteArray() << "file-not-folder" << io << QStringList{"not a folder"};
        QTest::addRow("no config.json") << QByteArray() << w << "" << io << QStringList{"config.json"};
        QTest::addRow("config not JSON") << QByteArray("{\"model_type\": gpt2}") << w << "" << fmt
                                         << QStringList{"config.json", "not valid JSON"};
        QTest::addRow("config not an object") << QByteArray("[]") << w << "" << fmt << QStringList{"config.json", "object"};
        QTest::addRow("missing model_type") << gpt2ConfigWith("\"model_type\": \"gpt2\",", "") << w << "" << fmt
                                            << QStringList{"config.json", "'model_type'"};
        QTest::addRow("unknown model_type") << gpt2ConfigWith("\"gpt2\"", "\"mamba\"") << w << "" << fmt
                                            << QStringList{"config.json", "'mamba'"};
        QTest::addRow("unknown architecture") << gpt2ConfigWith("GPT2LMHeadModel", "GPT2ForTokenClassification") << w << ""
                                              << fmt << QStringList{"config.json", "GPT2ForTokenClassification"};
        QTest::addRow("architecture of another model_type") << gpt2ConfigWith("GPT2LMHeadModel", "BertModel") << w << ""
                                                            << fmt << QStringList{"config.json", "'BertModel'", "'gpt2'"};
        QTest::addRow("missing n_embd") << gpt2ConfigWith("\"n_embd\": 4,", "") << w << "" << fmt
                                        << QStringList{"config.json", "'n_embd'"};
        QTest::addRow("n_head a string") << gpt2ConfigWith("\"n_head\": 2", "\"n_head\": \"2\"") << w << "" << fmt
                                         << QStringList{"config.json", "'n_head'", "string"};
        QTest::addRow("n_layer zero") << gpt2ConfigWith("\"n_layer\": 1", "\"n_layer\": 0") << w << "" << fmt
                                      << QStringList{"config.json", "'n_layer'"};
        QTest::addRow("vocab_size fractional") << gpt2ConfigWith("\"vocab_size\": 5", "\"vocab_size\": 5.5") << w << ""
                                               << fmt << QStringList{"config.json", "'vocab_size'"};
        QTest::addRow("epsilon a string") << gpt2ConfigWith("\"n_inner\": 8", "\"n_inner\": 8, \"layer_norm_epsilon\": \"1e-5\"")
                                          << w << "" << fmt << QStringList{"config.json", "'layer_norm_epsilon'"};
        QTest::addRow("scale flag not a bool") << gpt2ConfigWith("\"n_inner\": 8", "\"n_inner\": 8, \"scale_attn_weights\": 1")
                                               << w << "" << fmt << QStringList{"config.json", "'scale_attn_weights'"};
        QTest::addRow("heads do not divide width") << gpt2ConfigWith("\"n_head\": 2", "\"n_head\": 3") << w << "" << fmt
                                                   << QStringList{"config.json", "heads"};
        QTest::addRow("unknown activation") << gpt2ConfigWith("\"n_inner\": 8", "\"n_inner\": 8, \"activation_function\": \"mish\"")
                                            << w << "" << fmt << QStringList{"config.json", "'mish'"};
        QTest::addRow("bert relative positions")
            << QByteArray(kBertConfig).replace("\"type_vocab_size\": 2", "\"type_vocab_size\": 2, \"position_embedding_type\": \"relative_key\"")
            << bertWeights() << "" << fmt << QStringList{"config.json", "'relative_key'"};
        QTest::addRow("bert missing intermediate_size") << QByteArray(kBertConfig).replace("\"intermediate_size\": 8,", "")
                                                        << bertWeights() << "" << fmt
                                                        << QStringList{"config.json", "'intermediate_size'"};
        QTest::addRow("bert id2label with a hole")
            << QByteArray(kBertConfig).replace("\"type_vocab_size\": 2", "\"type_vocab_size\": 2, \"id2label\": {\"0\": \"a\", \"2\": \"c\"}")
            << bertWeights() << "" << fmt << QStringList{"config.json", "id2label", "1"};
        QTest::addRow("pickle only (.bin)") << kGpt2Config << QByteArray() << "pytorch_model.bin" << fmt
                                            << QStringList{"pytorch_model.bin", "safetensors", "save_file"};
        QTest::addRow("pickle only (.ckpt)") << kGpt2Config << QByteArray() << "last.ckpt" << fmt
                                             << QStringList{"last.ckpt", "save_file"};
        QTest::addRow("no weights at all") << kGpt2Config << QByteArray() << "" << io << QStringList{"model.safetensors"};
        QTest::addRow("missing tensor")
            << kGpt2Config << gpt2Weights([](auto &t) { std::erase_if(t, [](auto &x) { return x.name == "transformer.h.0.attn.c_proj.weight"; }); })
            << "" << fmt << QStringList{"model.safetensors", "'h.0.attn.c_proj.weight'"};
        QTest::addRow("wrong shape")
            << kGpt2Config << gpt2Weights([](auto &t) {
                   for (auto &x : t)
                       if (x.name == "transformer.h.0.attn.c_attn.weight") x.shape = {12, 4};
               })
            << "" << fmt << QStringList{"model.safetensors", "'transformer.h.0.attn.c_attn.weight'", "[12, 4]", "[4, 12]"};
        QTest::addRow("integer weights")
            << kGpt2Config << gpt2Weights([](auto &t) { t[0].dtype = "I32"; })
            << "" << fmt << QStringList{"model.safetensors", "'transformer.wte.weight'", "I32"};
        QTest::addRow("same weight under two names")
            << kGpt2Config << gpt2Weights([](auto &t) { t.push_back(tensor("wte.weight", {5, 4})); })
            << "" << fmt << QStringList{"model.safetensors", "wte.weight"};
        QTest::addRow("checkpoint header lies") << kGpt2Config << rawSafetensors("{}", {}, 1 << 20) << "" << fmt
                                                << QStringList{"model.safetensors", "header length"};
        // Issue 14: sizes checked against stated limits before anything is allocated; non-finite numbers refused.
        const auto bertWith = [](const char *extra) {
            return QByteArray(kBertConfig).replace("\"type_vocab_size\": 2", QByteArray("\"type_vocab_size\": 2, ") + extra);
        };
        QTest::addRow("num_labels 9e18 (a float)") << bertWith("\"num_labels\": 9e18") << bertWeights() << "" << fmt
                                                  << QStringList{"'num_labels'", "integer"};
        QTest::addRow("num_labels 9000000000000000000") << bertWith("\"num_labels\": 9000000000000000000") << bertWeights()
                                                       << "" << fmt << QStringList{"'num_labels'", "limit is 100000"};
        QTest::addRow("n_layer 1e15 (a float)") << gpt2ConfigWith("\"n_layer\": 1", "\"n_layer\": 1e15") << w << "" << fmt
                                               << QStringList{"'n_layer'", "integer"};
        QTest::addRow("n_layer 10^15") << gpt2ConfigWith("\"n_layer\": 1", "\"n_layer\": 1000000000000000") << w << "" << fmt
                                      << QStringList{"'n_layer'", "1000000000000000", "limit is 1024"};
        QTest::addRow("n_embd whose 4x overflows") << gpt2ConfigWith("\"n_embd\": 4", "\"n_embd\": 4611686018427387904") << w
                                                  << "" << fmt << QStringList{"'n_embd'", "limit is 65536"};
        QTest::addRow("n_inner over the limit") << gpt2ConfigWith("\"n_inner\": 8", "\"n_inner\": 2000000000") << w << ""
                                               << fmt << QStringList{"'n_inner'", "limit is 1048576"};
        QTest::addRow("vocab_size 2^64") << gpt2ConfigWith("\"vocab_size\": 5", "\"vocab_size\": 18446744073709551616") << w
                                        << "" << fmt << QStringList{"'vocab_size'"};
        QTest::addRow("n_head over the limit") << gpt2ConfigWith("\"n_head\": 2", "\"n_head\": 1000000") << w << "" << fmt
                                              << QStringList{"'n_head'", "limit is 4096"};
        QTest::addRow("layer_norm_epsilon 1e300 (inf as float32)")
            << gpt2ConfigWith("\"n_inner\": 8", "\"n_inner\": 8, \"layer_norm_epsilon\": 1e300") << w << "" << fmt
            << QStringList{"'layer_norm_epsilon'", "finite"};
        QTest::addRow("layer_norm_epsilon 1e400 (overflows JSON)")
            << gpt2ConfigWith("\"n_inner\": 8", "\"n_inner\": 8, \"layer_norm_epsilon\": 1e400") << w << "" << fmt
            << QStringList{"config.json", "overflow"};
        QTest::addRow("layer_norm_epsilon 2 (absurd)")
            << gpt2ConfigWith("\"n_inner\": 8", "\"n_inner\": 8, \"layer_norm_epsilon\": 2") << w << "" << fmt
            << QStringList{"'layer_norm_epsilon'", "limit is 1"};
        QTest::addRow("position table too small for n_positions")
            << gpt2ConfigWith("\"n_positions\": 6", "\"n_positions\": 7") << w << "" << fmt
            << QStringList{"'transformer.wpe.weight'", "n_positions"};
    }

    void badFolder()
    {
        QFETCH(QByteArray, config);
        QFETCH(QByteArray, weights);
        QFETCH(QString, extra);
        QFETCH(int, code);
        QFETCH(QStringList, mentions);
        QString path;
        if (extra == "missing-folder") {
            path = m_dir.filePath("does-not-exist");
        } else if (extra == "file-not-folder") {
            path = m_dir.filePath("plain-file");
            writeBytes(path, "x");
        } else {
            path = folder(config, weights, extra);
        }
        auto model = Model::open(path.toStdString());
        QVERIFY(!model.isOk());
        const std::string &msg = model.status().message();
        QVERIFY2(int(model.status().code()) == code, msg.c_str());
        QVERIFY2(contains(msg, path), msg.c_str());
        for (const QString &m : mentions) QVERIFY2(contains(msg, m), qPrintable(QString::fromStdString(msg) + "\n  missing: " + m));
    }

    void shardedCheckpoint()
    {
        const QString path = folder(kGpt2Config, QByteArray());
        // Split the tiny GPT-2 into two shards by name.
        std::vector<StTensor> a, b;
        gpt2Weights([&](std::vector<StTensor> &t) {
            for (auto &x : t) (x.name.find(".h.0.") != std::string::npos ? b : a).push_back(x);
        });
        QVERIFY(writeBytes(path + "/model-00001-of-00002.safetensors", buildSafetensors(a)));
        QVERIFY(writeBytes(path + "/model-00002-of-00002.safetensors", buildSafetensors(b)));
        QByteArray index = "{\"metadata\": {}, \"weight_map\": {";
        for (auto &x : a) index += "\"" + QByteArray::fromStdString(x.name) + "\": \"model-00001-of-00002.safetensors\",";
        for (auto &x : b) index += "\"" + QByteArray::fromStdString(x.name) + "\": \"model-00002-of-00002.safetensors\",";
        index.chop(1);
        index += "}}";
        QVERIFY(writeBytes(path + "/model.safetensors.index.json", index));
        auto model = Model::open(path.toStdString());
        QVERIFY2(model.isOk(), model.status().message().c_str());

        QVERIFY(writeBytes(path + "/model.safetensors.index.json", R"({"weight_map": {"wte.weight": "../evil.safetensors"}})"));
        auto evil = Model::open(path.toStdString());
        QVERIFY(!evil.isOk());
        QVERIFY2(contains(evil.status().message(), "../evil.safetensors"), evil.status().message().c_str());
    }

    // ---- synthetic specs ---------------------------------------------------------------------------------
    void syntheticSpec()
    {
        auto c = parseSyntheticSpec("random:layers=2,heads=3,d_model=48,seed=7,pe=sinusoidal");
        QVERIFY2(c.isOk(), c.status().message().c_str());
        QCOMPARE(c->layers, std::int64_t(2));
        QCOMPARE(c->heads, std::int64_t(3));
        QCOMPARE(c->dHead, std::int64_t(16));
        QCOMPARE(c->seed, std::uint64_t(7));
        QCOMPARE(c->positions, PositionKind::Sinusoidal);
        auto defaults = parseSyntheticSpec("random:");
        QVERIFY(defaults.isOk());
        QCOMPARE(defaults->dModel, std::int64_t(64));
    }

    void badSyntheticSpec_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("mentions");
        QTest::addRow("zero layers") << "random:layers=0" << "layers is 0";
        QTest::addRow("heads do not divide") << "random:heads=3,d_model=64" << "not a multiple of heads";
        QTest::addRow("unknown key") << "random:depth=3" << "unknown key 'depth'";
        QTest::addRow("not a number") << "random:layers=two" << "layers 'two'";
        QTest::addRow("twice") << "random:seed=1,seed=2" << "'seed' is given twice";
        QTest::addRow("unknown pe") << "random:pe=learned" << "pe 'learned'";
        QTest::addRow("no value") << "random:layers" << "'layers' is not a key=value";
        QTest::addRow("trailing comma") << "random:layers=1," << "'' is not a key=value";
        QTest::addRow("odd head size with rope") << "random:heads=1,d_model=3,pe=rope" << "even head size";
        QTest::addRow("negative seed") << "random:seed=-1" << "seed is -1";
    }
    void badSyntheticSpec()
    {
        QFETCH(QString, spec);
        QFETCH(QString, mentions);
        auto model = Model::open(spec.toStdString());
        QVERIFY(!model.isOk());
        QCOMPARE(model.status().code(), ErrorCode::InvalidArgument);
        QVERIFY2(contains(model.status().message(), mentions), model.status().message().c_str());
        QVERIFY2(contains(model.status().message(), spec), model.status().message().c_str());
    }

    // ---- input validation --------------------------------------------------------------------------------
    void badInput_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("mentions");
        QTest::addRow("longer than the positions") << 0 << "n_positions";
        QTest::addRow("token id outside the vocabulary") << 1 << "token id 9 at position 1";
        QTest::addRow("attention mask of the wrong length") << 2 << "attention mask has 2 entries";
        QTest::addRow("weights for a head that does not exist") << 3 << "layer 0 head 2";
        QTest::addRow("ablation mean of the wrong size") << 4 << "head size is 2";
        QTest::addRow("knockout outside the input") << 5 << "position 7";
        QTest::addRow("token types for GPT-2") << 6 << "no token types";
        QTest::addRow("no tokens") << 7 << "no tokens";
        QTest::addRow("ids and embeddings") << 8 << "not both";
        QTest::addRow("mask override of the wrong size") << 9 << "keyValid";
    }
    void badInput()
    {
        QFETCH(int, kind);
        QFETCH(QString, mentions);
        auto model = Model::open(folder(kGpt2Config, gpt2Weights()).toStdString());
        QVERIFY(model.isOk());
        ForwardInput in = ids({1, 2, 3});
        ForwardOptions opt;
        switch (kind) {
        case 0: in.tokenIds = {1, 2, 3, 4, 0, 1, 2}; break;
        case 1: in.tokenIds = {1, 9, 3}; break;
        case 2: in.attentionMask = {1, 1}; break;
        case 3: opt.weightsMode = WeightsRequest::Mode::Heads; opt.weightHeads = {{0, 2}}; break;
        case 4: opt.ablations = {{{0, 1}, HeadAblation::Kind::Mean, {1, 2, 3}}}; break;
        case 5: opt.knockouts = {{7, -1}}; break;
        case 6: in.tokenTypeIds = {0, 0, 0}; break;
        case 7: in.tokenIds.clear(); break;
        case 8: in.inputEmbeddings.assign(12, 0.0f); break;
        case 9: opt.maskOverride = MaskSpec{}; opt.maskOverride->keyValid = {1, 1}; break;
        }
        auto r = model->forward(in, opt);
        QVERIFY(!r.isOk());
        QCOMPARE(r.status().code(), ErrorCode::InvalidArgument);
        QVERIFY2(contains(r.status().message(), mentions), r.status().message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestModel)
#include "tst_model.moc"
