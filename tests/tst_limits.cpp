// SPDX-License-Identifier: GPL-3.0-or-later
// Limits on sizes read from files (issue 14): config.json fields over their stated maxima or non-finite are refused
// naming the file and the field; the memory budget refuses weights that do not fit before anything is allocated;
// a safetensors header with 50 000 tensors validates (the duplicate-key check is linear now) and still finds
// duplicates. Every config.json of tests/fuzz/regressions/config is replayed here with the message it must give.

#include <attnscope/limits.h>
#include <attnscope/model.h>
#include <attnscope/safetensors.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <limits>
#include <string>

namespace {

const QString kRegressions = QStringLiteral(ATTNSCOPE_TEST_DATA_DIR "/fuzz/regressions/");
const QString kFixtures = QStringLiteral(ATTNSCOPE_TEST_DATA_DIR "/fixtures/models/");

std::string readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return f.readAll().toStdString();
}

// A small valid GPT-2 config.json with one field replaced (raw JSON text of the value).
std::string gpt2With(const std::string &field, const std::string &value)
{
    std::string fields[][2] = {{"vocab_size", "16"}, {"n_embd", "8"},   {"n_head", "2"},
                               {"n_layer", "1"},     {"n_positions", "8"}, {"layer_norm_epsilon", "1e-5"}};
    std::string text = "{\"model_type\": \"gpt2\"";
    for (auto &f : fields) text += ", \"" + f[0] + "\": " + (f[0] == field ? value : f[1]);
    if (field == "n_inner") text += ", \"n_inner\": " + value;
    return text + "}";
}

// The safetensors bytes of `count` one-element F32 tensors, optionally with one name given twice.
std::vector<unsigned char> manyTensorBytes(int count, bool duplicateLast)
{
    std::string header = "{";
    for (int i = 0; i < count; ++i) {
        const int name = duplicateLast && i == count - 1 ? 0 : i;
        header += (i ? "," : "") + std::string("\"t") + std::to_string(name) + "\":{\"dtype\":\"F32\",\"shape\":[1]," +
                  "\"data_offsets\":[" + std::to_string(4 * i) + "," + std::to_string(4 * i + 4) + "]}";
    }
    header += "}";
    std::vector<unsigned char> bytes(8 + header.size() + 4 * std::size_t(count), 0);
    std::uint64_t n = header.size();
    for (int b = 0; b < 8; ++b) bytes[std::size_t(b)] = static_cast<unsigned char>(n >> (8 * b));
    std::memcpy(bytes.data() + 8, header.data(), header.size());
    return bytes;
}

std::uint64_t loadedParameterBytes(const attn::Model &m)
{
    std::uint64_t floats = 0;
    for (const std::string &name : m.parameterNames()) floats += m.parameter(name)->size();
    return floats * sizeof(float);
}

} // namespace

class TestLimits : public QObject {
    Q_OBJECT

private slots:
    void cleanup() { attn::setMemoryBudget(std::nullopt); }

    // Every hostile config.json of issue 14: refused, the message names the file and the field (and the limit).
    void configRegressions_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        QTest::newRow("id2label gap") << "issue14-id2label-gap" << "id2label is missing label id 1";
        QTest::newRow("eps 1e300 bert") << "issue14-layer_norm_eps-1e300-bert"
                                        << "field 'layer_norm_eps' is 1e+300, which is not a finite float32 number";
        QTest::newRow("eps 1e-50") << "issue14-layer_norm_epsilon-1e-50"
                                   << "field 'layer_norm_epsilon' is 1e-50; it must be in [1e-30, 1]";
        QTest::newRow("eps 1e300") << "issue14-layer_norm_epsilon-1e300"
                                   << "field 'layer_norm_epsilon' is 1e+300, which is not a finite float32 number";
        QTest::newRow("n_embd 2^62") << "issue14-n_embd-2e62-no-n_inner"
                                     << "field 'n_embd' is 4611686018427387904; the limit is 65536";
        QTest::newRow("4 n_embd overflows") << "issue14-n_embd-times-4-overflows"
                                            << "field 'n_embd' is 2305843009213693952; the limit is 65536";
        QTest::newRow("n_inner 2^62") << "issue14-n_inner-2e62"
                                      << "field 'n_inner' is 4611686018427387904; the limit is 1048576";
        QTest::newRow("n_layer 1e15") << "issue14-n_layer-1e15"
                                      << "field 'n_layer' is 1000000000000000; the limit is 1024";
        QTest::newRow("n_layer 1e15 float") << "issue14-n_layer-float-1e15"
                                            << "field 'n_layer' must be an integer, but is a fractional number";
        QTest::newRow("n_positions 2^62") << "issue14-n_positions-2e62"
                                          << "field 'n_positions' is 4611686018427387904; the limit is 67108864";
        QTest::newRow("num_labels 9e18 float") << "issue14-num_labels-9e18"
                                               << "field 'num_labels' must be an integer, but is a fractional number";
        QTest::newRow("num_labels 9e18") << "issue14-num_labels-int-9e18"
                                         << "field 'num_labels' is 9000000000000000000; the limit is 100000";
        QTest::newRow("vocab 2^62") << "issue14-vocab_size-2e62"
                                    << "field 'vocab_size' is 4611686018427387904; the limit is 16777216";
    }
    void configRegressions()
    {
        QFETCH(QString, file);
        QFETCH(QString, message);
        const std::string text = readAll(kRegressions + "config/" + file);
        QVERIFY(!text.empty());
        const auto parsed = attn::parseModelConfig(text, "X/config.json");
        QVERIFY(!parsed);
        QCOMPARE(parsed.status().code(), attn::ErrorCode::FormatError);
        const QString got = QString::fromStdString(parsed.status().message());
        QVERIFY2(got.startsWith("X/config.json: "), qPrintable(got));
        QVERIFY2(got.contains(message), qPrintable(got));
    }
    // The rows above are every file of the folder: a new regression input needs its row.
    void configRegressionsAllListed()
    {
        const QStringList files = QDir(kRegressions + "config").entryList(QDir::Files);
        QCOMPARE(files.size(), 13);
    }

    // The limits themselves: the largest allowed value is accepted, one more is refused.
    void configLimits_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("value");
        QTest::addColumn<bool>("accepted");
        QTest::addColumn<QString>("named");   // what a refusal names; empty: the field
        QTest::newRow("n_layer 1024") << "n_layer" << "1024" << true << "";
        QTest::newRow("n_layer 1025") << "n_layer" << "1025" << false << "";
        QTest::newRow("n_embd 65536") << "n_embd" << "65536" << true << "";
        QTest::newRow("n_embd 65537") << "n_embd" << "65537" << false << "";
        QTest::newRow("vocab 2^24") << "vocab_size" << "16777216" << true << "";
        QTest::newRow("vocab 2^24+1") << "vocab_size" << "16777217" << false << "";
        QTest::newRow("n_inner 2^20") << "n_inner" << "1048576" << true << "";
        QTest::newRow("n_inner 2^20+1") << "n_inner" << "1048577" << false << "";
        QTest::newRow("n_head 4096 > n_embd") << "n_head" << "4096" << false << "not a multiple of the number of heads (4096)";
        QTest::newRow("n_head 4097") << "n_head" << "4097" << false << "";
        QTest::newRow("eps 1") << "layer_norm_epsilon" << "1" << true << "";
        QTest::newRow("eps 1.5") << "layer_norm_epsilon" << "1.5" << false << "";
        QTest::newRow("eps 1e-30") << "layer_norm_epsilon" << "1e-30" << true << "";
        QTest::newRow("eps 1e-31") << "layer_norm_epsilon" << "1e-31" << false << "";
        QTest::newRow("eps 0") << "layer_norm_epsilon" << "0" << false << "";
        QTest::newRow("eps -1") << "layer_norm_epsilon" << "-1" << false << "";
    }
    void configLimits()
    {
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(bool, accepted);
        QFETCH(QString, named);
        const auto parsed = attn::parseModelConfig(gpt2With(field.toStdString(), value.toStdString()), "config.json");
        QVERIFY2(bool(parsed) == accepted, parsed ? "accepted" : parsed.status().message().c_str());
        const std::string expected = (named.isEmpty() ? "'" + field + "'" : named).toStdString();
        if (!accepted) QVERIFY2(parsed.status().message().find(expected) != std::string::npos,
                                parsed.status().message().c_str());
    }
    // 4 * n_embd, the default n_inner, at the largest width: exact, no overflow.
    void defaultInnerAtLimit()
    {
        const auto parsed = attn::parseModelConfig(gpt2With("n_embd", "65536"), "config.json");
        QVERIFY(parsed);
        QCOMPARE(parsed->intermediate, std::int64_t(4) * 65536);
    }

    // The estimate against what a loaded model really holds: never less (the budget must not let a model through
    // that does not fit), and not far above (it must not refuse models that do; a tied LM head is counted as its
    // own matrix, which the estimate cannot know).
    void estimateAgainstLoaded_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::newRow("random 1x1x2") << "random:layers=1,heads=1,d_model=2,vocab=3";
        QTest::newRow("random 2x4x64") << "random:layers=2,heads=4,d_model=64,seed=7";
        QTest::newRow("random 3x5x80") << "random:layers=3,heads=5,d_model=80,vocab=97";
        for (const char *m : {"gpt2-tiny", "gpt2-untied", "gpt2-odd-d72h3", "bert-mlm", "bert-cls-d72h3", "bert-base-d48h6"})
            QTest::newRow(m) << kFixtures + m;
    }
    void estimateAgainstLoaded()
    {
        QFETCH(QString, spec);
        const auto model = attn::Model::open(spec.toStdString());
        QVERIFY2(model, model ? "" : model.status().message().c_str());
        const std::uint64_t loaded = loadedParameterBytes(*model);
        const std::uint64_t estimate = attn::estimateWeightBytes(model->config());
        QVERIFY2(estimate >= loaded, qPrintable(QStringLiteral("estimate %1 < loaded %2").arg(estimate).arg(loaded)));
        QVERIFY2(double(estimate) <= 2.0 * double(loaded),
                 qPrintable(QStringLiteral("estimate %1 > 2 x loaded %2").arg(estimate).arg(loaded)));
        qInfo("estimate / loaded = %.3f", double(estimate) / double(loaded));
    }
    // Hand-computed: layers=1, heads=1, d_model=2, vocab=3: embeddings 3*2, Q K V O 4*2*2 with biases 4*2, two
    // layer norms 2*2*2, the final norm 2*2: 6 + 16 + 8 + 8 + 4 = 42 floats.
    void estimateByHand()
    {
        const auto c = attn::parseSyntheticSpec("random:layers=1,heads=1,d_model=2,vocab=3");
        QVERIFY(c);
        QCOMPARE(attn::estimateWeightBytes(*c), std::uint64_t(42 * 4));
    }
    // issue 14: random:layers=64,heads=256,d_model=8192 (~69 GB) aborted the CLI and grew the GUI past 5 GB.
    void hugeSyntheticRefused()
    {
        attn::setMemoryBudget(std::uint64_t(1) << 30);
        const auto model = attn::Model::synthetic("random:layers=64,heads=256,d_model=8192");
        QVERIFY(!model);
        QCOMPARE(model.status().code(), attn::ErrorCode::OutOfMemory);
        const QString message = QString::fromStdString(model.status().message());
        QVERIFY2(message.contains("needs 64.") && message.contains("GiB for its weights, 1.0 GiB allowed"),
                 qPrintable(message));
    }
    void budgetOverrideAdmits()
    {
        attn::setMemoryBudget(std::uint64_t(1) << 20);
        QVERIFY(!attn::Model::synthetic("random:layers=2,heads=4,d_model=256"));   // 2.4 MB
        attn::setMemoryBudget(std::uint64_t(8) << 20);
        QVERIFY(attn::Model::synthetic("random:layers=2,heads=4,d_model=256"));
    }
    // Without an override the budget is the memory available now: the largest spec (~103 GiB) exceeds it on any
    // machine that runs this suite, else the row says so and skips.
    void defaultBudgetIsAvailableMemory()
    {
        const auto c = attn::parseSyntheticSpec("random:layers=64,heads=256,d_model=8192,vocab=1048576");
        QVERIFY(c);
        const auto available = attn::availableMemoryBytes();
        QVERIFY(available && *available > 0);
        if (attn::estimateWeightBytes(*c) <= *available) QSKIP("this machine has more memory than the largest spec needs");
        const attn::Status s = attn::checkWeightMemory(*c, "spec");
        QCOMPARE(s.code(), attn::ErrorCode::OutOfMemory);
        QVERIFY(s.message().find("GiB available") != std::string::npos);
    }
    // A checkpoint folder whose config claims more than the budget is refused before any tensor is read (here the
    // folder has no weights at all: the budget speaks first).
    void folderRefusedBeforeReading()
    {
        QTemporaryDir dir;
        QFile config(dir.filePath("config.json"));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(gpt2With("n_layer", "1024").c_str());
        config.close();
        attn::setMemoryBudget(std::uint64_t(1) << 20);
        const auto model = attn::Model::open(dir.path().toStdString());
        QVERIFY(!model);
        QCOMPARE(model.status().code(), attn::ErrorCode::OutOfMemory);
        QVERIFY2(model.status().message().find(dir.path().toStdString() + ": needs") == 0, model.status().message().c_str());
    }
    void formatGib()
    {
        QCOMPARE(attn::formatGib(std::uint64_t(3) << 29), std::string("1.5 GiB"));
        QCOMPARE(attn::formatGib(std::numeric_limits<std::uint64_t>::max()), std::string("more than 16 EiB"));
    }
    // Saturating: the largest config the limits allow does not wrap around to a small estimate.
    void estimateSaturates()
    {
        attn::ModelConfig c;
        c.architecture = attn::Architecture::Gpt2;
        c.vocabSize = std::int64_t(1) << 62;
        c.dModel = std::int64_t(1) << 62;
        c.layers = 1;
        c.heads = 1;
        c.dHead = c.dModel;
        QCOMPARE(attn::estimateWeightBytes(c), std::numeric_limits<std::uint64_t>::max());
    }

    // issue 14: 50 000 tensors took 44 s (100 000: > 120 s) in the duplicate-key check. The header still
    // validates completely, and a duplicate among them is still found.
    void manyTensors_data()
    {
        QTest::addColumn<int>("count");
        QTest::addColumn<bool>("duplicate");
        QTest::newRow("50000") << 50000 << false;
        QTest::newRow("100000") << 100000 << false;
        QTest::newRow("50000, last repeats the first") << 50000 << true;
    }
    void manyTensors()
    {
        QFETCH(int, count);
        QFETCH(bool, duplicate);
        const auto file = attn::SafetensorsFile::fromBytes(manyTensorBytes(count, duplicate), "many.safetensors");
        if (duplicate) {
            QVERIFY(!file);
            QVERIFY2(file.status().message().find("the key 't0' more than once") != std::string::npos,
                     file.status().message().c_str());
            return;
        }
        QVERIFY2(file, file ? "" : file.status().message().c_str());
        QCOMPARE(int(file->tensors().size()), count);
        QVERIFY(file->find("t" + std::to_string(count - 1)));
    }
    // Duplicates inside a tensor's own object are found too (the check runs per object, at every depth).
    void nestedDuplicate()
    {
        const std::string header = R"({"a":{"dtype":"F32","shape":[1],"dtype":"F32","data_offsets":[0,4]}})";
        std::vector<unsigned char> bytes(8 + header.size() + 4, 0);
        bytes[0] = static_cast<unsigned char>(header.size());
        std::memcpy(bytes.data() + 8, header.data(), header.size());
        const auto file = attn::SafetensorsFile::fromBytes(bytes, "n.safetensors");
        QVERIFY(!file);
        QVERIFY2(file.status().message().find("the key 'dtype' more than once") != std::string::npos,
                 file.status().message().c_str());
    }
};

QTEST_APPLESS_MAIN(TestLimits)
#include "tst_limits.moc"
