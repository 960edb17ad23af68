// SPDX-License-Identifier: GPL-3.0-or-later
// The family mappings: what config.json of each fixture (tests/fixtures/models, written by transformers'
// save_pretrained) becomes in ModelConfig, the old (v4) spellings of the same settings, the checkpoints refused by
// name (multimodal, quantized, GGUF, unknown model_type), and grouped-query captures and per-layer masks in the
// forward pass. Numerical parity with transformers is tst_model_parity.cpp.
#include <attnscope/limits.h>
#include <attnscope/model.h>

#include "tst_model_support.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace attn;
using namespace attn::test;

namespace {

bool contains(const std::string &s, const QString &part) { return s.find(part.toStdString()) != std::string::npos; }

Model openFixture(const char *name)
{
    auto m = Model::open(fixtureModel(name).toStdString());
    if (!m) qFatal("%s: %s", name, m.status().message().c_str());
    return std::move(m).value();
}

std::vector<std::int64_t> windowsOf(const ModelConfig &c)
{
    std::vector<std::int64_t> w;
    for (std::int64_t l = 0; l < c.layers; ++l) w.push_back(layerWindow(c, l));
    return w;
}

using Windows = std::vector<std::int64_t>;

} // namespace

Q_DECLARE_METATYPE(Windows)

class TestModelFamilies : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_counter = 0;

    QString folderWith(const QByteArray &config, const QString &extraFile = {}, const QByteArray &extra = {})
    {
        const QString path = m_dir.filePath(QStringLiteral("f%1").arg(++m_counter));
        QDir().mkpath(path);
        writeBytes(path + "/config.json", config);
        if (!extraFile.isEmpty()) writeBytes(path + "/" + extraFile, extra);
        return path;
    }

private slots:
    void fixtureConfig_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("arch");
        QTest::addColumn<QString>("family");
        QTest::addColumn<int>("kvHeads");
        QTest::addColumn<int>("dHead");
        QTest::addColumn<int>("rotaryDim");   // 0: no RoPE
        QTest::addColumn<Windows>("windows");  // per layer, Hugging Face convention
        QTest::addColumn<bool>("tied");
        const int llama = int(Architecture::Llama);
        QTest::addRow("llama gqa, head_dim 16 != 48/4") << "llama-gqa-d48h4" << llama << "Llama" << 2 << 16 << 16 << Windows{0, 0} << false;
        QTest::addRow("llama3 rope, one kv head") << "llama3-rope" << llama << "Llama" << 1 << 16 << 16 << Windows{0, 0} << true;
        QTest::addRow("smollm2 shape") << "smollm2-d36h3" << llama << "Llama" << 1 << 12 << 12 << Windows{0, 0} << true;
        QTest::addRow("mistral every layer slides") << "mistral-window4" << llama << "Mistral" << 2 << 12 << 12 << Windows{4, 4} << false;
        QTest::addRow("qwen2 [full, sliding]") << "qwen2-layertypes" << llama << "Qwen2" << 2 << 12 << 12 << Windows{0, 5} << false;
        QTest::addRow("qwen3 head_dim 20") << "qwen3-qknorm" << llama << "Qwen3" << 2 << 20 << 20 << Windows{0, 0} << true;
        QTest::addRow("gemma one kv head") << "gemma-d72" << llama << "Gemma" << 1 << 16 << 16 << Windows{0, 0} << true;
        QTest::addRow("gemma2 alternating") << "gemma2-softcap" << llama << "Gemma 2" << 2 << 16 << 16 << Windows{4, 0} << true;
        QTest::addRow("gemma3 5 sliding + 1 full") << "gemma3-text" << llama << "Gemma 3" << 2 << 16 << 16
                                                   << Windows{4, 4, 4, 4, 4, 0} << true;
        QTest::addRow("phi3 partial rotary 0.5") << "phi3-fused" << llama << "Phi-3" << 2 << 12 << 6 << Windows{5, 5} << false;
        QTest::addRow("neox rotary_pct 0.25") << "neox-parallel" << int(Architecture::GptNeoX) << "GPT-NeoX" << 4 << 16 << 4
                                              << Windows{0, 0} << false;
        QTest::addRow("roberta") << "roberta-mlm" << int(Architecture::Roberta) << "RoBERTa" << 4 << 12 << 0 << Windows{0, 0} << true;
        QTest::addRow("distilbert") << "distilbert-cls" << int(Architecture::DistilBert) << "DistilBERT" << 5 << 8 << 0
                                    << Windows{0, 0} << true;
    }
    void fixtureConfig()
    {
        QFETCH(QString, name);
        QFETCH(int, arch);
        QFETCH(QString, family);
        QFETCH(int, kvHeads);
        QFETCH(int, dHead);
        QFETCH(int, rotaryDim);
        QFETCH(Windows, windows);
        QFETCH(bool, tied);
        const Model m = openFixture(qPrintable(name));
        const ModelConfig &c = m.config();
        QCOMPARE(int(c.architecture), arch);
        QCOMPARE(QString::fromStdString(c.family), family);
        QCOMPARE(c.kvHeads, std::int64_t(kvHeads));
        QCOMPARE(c.dHead, std::int64_t(dHead));
        QCOMPARE(c.rotaryDim, std::int64_t(rotaryDim));
        QCOMPARE(c.positions == PositionKind::RoPE, rotaryDim > 0);
        QCOMPARE(windowsOf(c), windows);
        if (c.causal) QCOMPARE(c.tiedEmbeddings, tied);
        // GQA groups: kvHeads lists of heads / kvHeads consecutive query heads.
        const auto groups = kvGroups(c);
        QCOMPARE(std::int64_t(groups.size()), c.kvHeads);
        for (std::size_t g = 0; g < groups.size(); ++g)
            for (std::size_t i = 0; i < groups[g].size(); ++i)
                QCOMPARE(groups[g][i], std::int64_t(g * groups[g].size() + i));
    }

    void familyDetails()
    {
        const ModelConfig gemma = openFixture("gemma-d72").config();
        QCOMPARE(gemma.embeddingScale, 8.5f);   // √72 = 8.485 in the checkpoint's bf16
        QVERIFY(gemma.normPlusOne);
        QCOMPARE(gemma.activation, Activation::GeluNew);
        const ModelConfig g2 = openFixture("gemma2-softcap").config();
        QCOMPARE(g2.attnSoftcap, 4.0f);
        QCOMPARE(g2.finalSoftcap, 3.0f);
        QVERIFY(g2.sandwichNorms);
        QCOMPARE(attentionScale(g2, 0), float(1.0 / std::sqrt(20.0)));   // query_pre_attn_scalar, not head_dim
        const ModelConfig g3 = openFixture("gemma3-text").config();
        QCOMPARE(g3.attnSoftcap, 0.0f);   // never applied by transformers for Gemma 3
        QVERIFY(g3.qkNorm);
        QCOMPARE(g3.rope.type, RopeType::Linear);
        QCOMPARE(g3.rope.theta, 1e6);
        QCOMPARE(g3.ropeLocal.type, RopeType::Default);
        QCOMPARE(g3.ropeLocal.theta, 1e4);
        QVERIFY(g3.layerAttention[0].localRope);
        QVERIFY(!g3.layerAttention[5].localRope);
        const ModelConfig qwen2 = openFixture("qwen2-layertypes").config();
        QVERIFY(qwen2.attentionBias);
        QVERIFY(!qwen2.outputBias);
        const ModelConfig longrope = openFixture("phi3-longrope").config();
        QCOMPARE(longrope.rope.type, RopeType::LongRope);
        QCOMPARE(longrope.rope.originalMaxPositions, std::int64_t(16));
        QCOMPARE(longrope.rope.shortFactor.size(), std::size_t(6));
        const ModelConfig neox = openFixture("neox-serial").config();
        QVERIFY(!neox.parallelResidual);
        QCOMPARE(neox.rope.theta, 5000.0);
        const ModelConfig roberta = openFixture("roberta-mlm").config();
        QCOMPARE(roberta.positionOffset, std::int64_t(2));
        QCOMPARE(roberta.head, ModelHead::MaskedLM);
        QCOMPARE(openFixture("distilbert-cls").config().head, ModelHead::Classification);
    }

    // transformers 4 wrote rope_theta + rope_scaling (with "type"), Gemma 3 rope_local_base_freq, Phi-3 "su":
    // they must mean what the v5 spellings in the fixtures mean.
    void v4Spellings()
    {
        const QByteArray gemma3 = R"({"model_type": "gemma3_text", "vocab_size": 61, "hidden_size": 48,
          "intermediate_size": 72, "num_hidden_layers": 6, "num_attention_heads": 4, "num_key_value_heads": 2,
          "head_dim": 16, "query_pre_attn_scalar": 16, "sliding_window": 4, "sliding_window_pattern": 6,
          "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0, "rope_scaling": {"type": "linear", "factor": 8.0},
          "max_position_embeddings": 96})";
        auto old = parseModelConfig(gemma3.toStdString(), "v4 gemma3");
        QVERIFY2(old.isOk(), old.status().message().c_str());
        const ModelConfig v5 = openFixture("gemma3-text").config();
        QVERIFY(old->rope == v5.rope);
        QVERIFY(old->ropeLocal == v5.ropeLocal);
        QVERIFY(old->layerAttention == v5.layerAttention);

        const QByteArray phi3 = R"({"model_type": "phi3", "vocab_size": 61, "hidden_size": 48, "intermediate_size": 72,
          "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4, "max_position_embeddings": 64,
          "original_max_position_embeddings": 16, "rope_scaling": {"type": "su",
          "short_factor": [1, 1.1, 1.3, 1.7, 2, 2.5], "long_factor": [2, 2.5, 3, 4, 6, 8]}})";
        auto su = parseModelConfig(phi3.toStdString(), "v4 phi3");
        QVERIFY2(su.isOk(), su.status().message().c_str());
        QVERIFY(su->rope == openFixture("phi3-longrope").config().rope);

        const QByteArray neox = R"({"model_type": "gpt_neox", "vocab_size": 61, "hidden_size": 40, "intermediate_size": 56,
          "num_hidden_layers": 2, "num_attention_heads": 5, "rotary_pct": 0.5, "rotary_emb_base": 5000,
          "use_parallel_residual": false})";
        auto nx = parseModelConfig(neox.toStdString(), "v4 neox");
        QVERIFY2(nx.isOk(), nx.status().message().c_str());
        QCOMPARE(nx->rotaryDim, std::int64_t(4));
        QCOMPARE(nx->rope.theta, 5000.0);
    }

    // Defaults that only show when a field is absent (the class defaults of the pinned transformers).
    void familyDefaults()
    {
        const auto parse = [](const QByteArray &extra, const char *type) {
            QByteArray text = R"({"model_type": "TYPE", "vocab_size": 32, "hidden_size": 16, "intermediate_size": 24,
              "num_hidden_layers": 2, "num_attention_heads": 2)";
            text.replace("TYPE", type);
            auto c = parseModelConfig((text + extra + "}").toStdString(), type);
            if (!c) qFatal("%s", c.status().message().c_str());
            return std::move(c).value();
        };
        QCOMPARE(windowsOf(parse("", "mistral")), (Windows{4096, 4096}));
        QCOMPARE(windowsOf(parse("", "qwen2")), (Windows{0, 0}));   // use_sliding_window false
        QCOMPARE(windowsOf(parse(R"(, "use_sliding_window": true, "max_window_layers": 1)", "qwen2")), (Windows{0, 4096}));
        QCOMPARE(windowsOf(parse("", "gemma2")), (Windows{4096, 0}));
        QCOMPARE(windowsOf(parse("", "phi3")), (Windows{0, 0}));
        QCOMPARE(parse("", "qwen3").dHead, std::int64_t(128));
        QCOMPARE(parse("", "gemma").dHead, std::int64_t(256));
        QCOMPARE(parse(R"(, "hidden_act": "gelu")", "gemma").activation, Activation::GeluNew);   // v5 rewrites it
        QCOMPARE(parse("", "gemma2").attnSoftcap, 50.0f);
        QCOMPARE(parse(R"(, "attn_logit_softcapping": null)", "gemma2").attnSoftcap, 0.0f);
        QCOMPARE(parse("", "phi3").layerNormEps, 1e-5f);
        QVERIFY(parse("", "qwen2").attentionBias);
        QVERIFY(!parse("", "llama").attentionBias);
        QCOMPARE(parse("", "llama").kvHeads, std::int64_t(2));
    }

    void refused_data()
    {
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<QStringList>("mentions");
        const QByteArray llama = R"({"model_type": "llama", "vocab_size": 32, "hidden_size": 16, "intermediate_size": 24,
          "num_hidden_layers": 2, "num_attention_heads": 2)";
        QTest::addRow("unknown model_type lists the supported")
            << QByteArray(R"({"model_type": "mamba"})") << QStringList{"'mamba'", "not supported", "'qwen2'", "'gemma2'", "'gpt_neox'"};
        QTest::addRow("multimodal gemma3")
            << QByteArray(R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text"}, "vision_config": {}})")
            << QStringList{"multimodal", "vision", "gemma3_text"};
        QTest::addRow("a vision tower on a known type") << QByteArray(llama + R"(, "vision_config": {"hidden_size": 8}})")
                                                        << QStringList{"multimodal", "vision_config"};
        QTest::addRow("quantized") << QByteArray(llama + R"(, "quantization_config": {"quant_method": "gptq", "bits": 4}})")
                                   << QStringList{"quantized", "gptq"};
        QTest::addRow("unknown rope_type") << QByteArray(llama + R"(, "rope_scaling": {"rope_type": "ntk-by-parts", "factor": 2}})")
                                           << QStringList{"'ntk-by-parts'", "llama3"};
        QTest::addRow("llama3 without its factors") << QByteArray(llama + R"(, "rope_scaling": {"rope_type": "llama3", "factor": 8}})")
                                                    << QStringList{"llama3", "low_freq_factor"};
        QTest::addRow("longrope factors of the wrong length")
            << QByteArray(R"({"model_type": "phi3", "vocab_size": 32, "hidden_size": 16, "intermediate_size": 24,
                 "num_hidden_layers": 2, "num_attention_heads": 2, "rope_scaling": {"type": "longrope",
                 "short_factor": [1, 1], "long_factor": [1, 1]}})")
            << QStringList{"short_factor", "needs 4"};
        QTest::addRow("bad layer_types entry")
            << QByteArray(R"({"model_type": "qwen2", "vocab_size": 32, "hidden_size": 16, "intermediate_size": 24,
                 "num_hidden_layers": 2, "num_attention_heads": 2, "layer_types": ["full_attention", "chunked_attention"]})")
            << QStringList{"layer_types[1]", "'chunked_attention'"};
        QTest::addRow("sliding layer without a window")
            << QByteArray(R"({"model_type": "qwen2", "vocab_size": 32, "hidden_size": 16, "intermediate_size": 24,
                 "num_hidden_layers": 2, "num_attention_heads": 2, "layer_types": ["full_attention", "sliding_attention"]})")
            << QStringList{"layer 1", "use_sliding_window"};
        QTest::addRow("kv heads do not divide heads") << QByteArray(llama + R"(, "num_key_value_heads": 3})")
                                                      << QStringList{"num_key_value_heads", "3"};
        QTest::addRow("partial rotary on llama") << QByteArray(llama + R"(, "partial_rotary_factor": 0.5})")
                                                 << QStringList{"partial_rotary_factor", "'llama'"};
        QTest::addRow("gemma3 bidirectional")
            << QByteArray(R"({"model_type": "gemma3_text", "vocab_size": 32, "hidden_size": 16, "intermediate_size": 24,
                 "num_hidden_layers": 2, "num_attention_heads": 2, "use_bidirectional_attention": true})")
            << QStringList{"use_bidirectional_attention"};
        QTest::addRow("a class of another family") << QByteArray(llama + R"(, "architectures": ["Qwen2ForCausalLM"]})")
                                                   << QStringList{"'Qwen2ForCausalLM'", "LlamaForCausalLM"};
    }
    void refused()
    {
        QFETCH(QByteArray, config);
        QFETCH(QStringList, mentions);
        const QString path = folderWith(config);
        auto m = Model::open(path.toStdString());
        QVERIFY(!m.isOk());
        QCOMPARE(m.status().code(), ErrorCode::FormatError);
        const std::string &msg = m.status().message();
        qInfo("%s", msg.c_str());
        QVERIFY2(contains(msg, path + "/config.json"), msg.c_str());
        for (const QString &s : mentions) QVERIFY2(contains(msg, s), qPrintable(QString::fromStdString(msg) + "\n  missing: " + s));
    }

    void ggufRefused()
    {
        const QString path = folderWith(R"({"model_type": "llama", "vocab_size": 32, "hidden_size": 16,
          "intermediate_size": 24, "num_hidden_layers": 2, "num_attention_heads": 2})",
                                        "model-Q4_K_M.gguf", "GGUF");
        auto m = Model::open(path.toStdString());
        QVERIFY(!m.isOk());
        QVERIFY2(contains(m.status().message(), "model-Q4_K_M.gguf") && contains(m.status().message(), "GGUF"),
                 m.status().message().c_str());
        auto file = Model::open((path + "/model-Q4_K_M.gguf").toStdString());
        QVERIFY(!file.isOk());
        QVERIFY2(contains(file.status().message(), "GGUF"), file.status().message().c_str());
    }

    // With GQA, captured K and V are per query head: the heads of a group see the same K and V.
    void gqaCapture()
    {
        const Model m = openFixture("llama-gqa-d48h4");
        ForwardOptions opt;
        opt.captureQKV = true;
        opt.backend = Backend::Reference;
        auto r = m.forward(ids({3, 7, 11, 5, 9}), opt);
        QVERIFY2(r.isOk(), r.status().message().c_str());
        const LayerQKV &qkv = r->qkv[1];
        QCOMPARE(qkv.k.shape[1], std::int64_t(4));
        for (std::int64_t i = 0; i < 5; ++i)
            for (std::int64_t d = 0; d < 16; ++d) {
                QCOMPARE(qkv.k.view().at(0, 0, i, d), qkv.k.view().at(0, 1, i, d));
                QCOMPARE(qkv.v.view().at(0, 2, i, d), qkv.v.view().at(0, 3, i, d));
            }
        QVERIFY(qkv.k.view().at(0, 1, 2, 3) != qkv.k.view().at(0, 2, 2, 3));
    }

    // Per-layer windows in the weights: a sliding layer gives exactly 0 beyond W keys; --mask overrides all.
    void slidingLayers()
    {
        const Model m = openFixture("qwen2-layertypes");   // [full, sliding W = 5]
        ForwardOptions opt;
        opt.weightsMode = WeightsRequest::Mode::All;
        std::vector<std::int64_t> tokens;
        for (int i = 0; i < 12; ++i) tokens.push_back(3 + i);
        auto r = m.forward(ids(tokens), opt);
        QVERIFY2(r.isOk(), r.status().message().c_str());
        const auto weight = [&](const ForwardResult &res, int layer, int head, int i, int j) {
            return res.heads[std::size_t(layer * 4 + head)].weights[std::size_t(i * 12 + j)];
        };
        QVERIFY(weight(*r, 0, 0, 11, 0) > 0.0f);    // full layer: every earlier key
        QCOMPARE(weight(*r, 1, 0, 11, 6), 0.0f);    // sliding layer: keys 7..11 only (5 keys, the query included)
        QVERIFY(weight(*r, 1, 0, 11, 7) > 0.0f);
        opt.maskOverride = MaskSpec::causalMask();
        auto overridden = m.forward(ids(tokens), opt);
        QVERIFY(overridden.isOk());
        QVERIFY(weight(*overridden, 1, 0, 11, 0) > 0.0f);
    }

    // Load progress: non-decreasing, ends at 1; cancel stops the load.
    void loadProgressAndCancel()
    {
        std::vector<double> seen;
        LoadOptions opt;
        opt.progress = [&](double f) { seen.push_back(f); };
        auto m = Model::open(fixtureModel("gemma3-text").toStdString(), opt);
        QVERIFY2(m.isOk(), m.status().message().c_str());
        QVERIFY(seen.size() > 20);   // one call per tensor
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QCOMPARE(seen.back(), 1.0);
        int polls = 0;
        LoadOptions cancel;
        cancel.cancel = [&] { return ++polls > 5; };
        auto stopped = Model::open(fixtureModel("gemma3-text").toStdString(), cancel);
        QVERIFY(!stopped.isOk());
        QCOMPARE(stopped.status().code(), ErrorCode::Cancelled);
    }

    void memoryBudget()
    {
        QVERIFY(availableMemoryBytes().value_or(0) > 0);
        LoadOptions opt;
        opt.maxMemoryBytes = std::uint64_t(8) << 30;
        // Refused before allocating: 64 layers of 4·8192² float32 weights are 64 GiB.
        auto huge = Model::open("random:layers=64,heads=256,d_model=8192", opt);
        QVERIFY(!huge.isOk());
        QCOMPARE(huge.status().code(), ErrorCode::OutOfMemory);
        QVERIFY2(contains(huge.status().message(), "needs 64.0 GiB") && contains(huge.status().message(), "8.0 GiB available"),
                 huge.status().message().c_str());
        opt.maxMemoryBytes = 100000;
        auto folder = Model::open(fixtureModel("llama-gqa-d48h4").toStdString(), opt);
        QVERIFY(!folder.isOk());
        QCOMPARE(folder.status().code(), ErrorCode::OutOfMemory);
        QVERIFY2(contains(folder.status().message(), "llama-gqa-d48h4") && contains(folder.status().message(), "GiB available"),
                 folder.status().message().c_str());
        opt.maxMemoryBytes = std::uint64_t(1) << 30;   // the override: a limit large enough
        QVERIFY(Model::open(fixtureModel("llama-gqa-d48h4").toStdString(), opt).isOk());
    }

    // RoPE models take inputs past max_position_embeddings (as transformers does); learned positions do not.
    void lengthLimits()
    {
        const Model dynamic = openFixture("llama-rope-dynamic");   // max_position_embeddings 16
        std::vector<std::int64_t> tokens(20, 5);
        QVERIFY(dynamic.forward(ids(tokens)).isOk());
        const Model roberta = openFixture("roberta-mlm");   // 30 positions, 2 reserved
        QVERIFY(roberta.forward(ids(std::vector<std::int64_t>(28, 5))).isOk());
        auto tooLong = roberta.forward(ids(std::vector<std::int64_t>(29, 5)));
        QVERIFY(!tooLong.isOk());
        QVERIFY2(contains(tooLong.status().message(), "28 positions"), tooLong.status().message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestModelFamilies)
#include "tst_model_families.moc"
