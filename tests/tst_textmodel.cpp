// SPDX-License-Identifier: GPL-3.0-or-later
// TextModel: model specs (folder, sample:NAME, random:..., the Hugging Face hub cache), tokenization into labelled
// tokens, and the whole text → tokens → forward path on a bundled sample model.
#include <attnscope/textmodel.h>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

class TestTextModel : public QObject {
    Q_OBJECT
private slots:
    void listsBundledSamples();
    void unknownSampleNamesKnownOnes();
    void randomSpecTokenizesBytes();
    void classifierReadsText();
    void tooLongTextNamesPositions();
    void sentencePairCarriesTokenTypes();
    void truncationKeepsThePositions();
    void pairNeedsATokenizer();
    void inductionSampleHasItsHeads();
    void retrievalSampleHasItsHead();
    void hubCacheRepoId();
    void hubCacheFolders();
    void hubCacheMisses_data();
    void hubCacheMisses();
    void hubCacheListsModels();

private:
    // A synthetic hub cache with one repo (models--Org--Tiny): blobs, two snapshots, refs main and v2.
    QString makeHubCache(QTemporaryDir &dir);
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

// A pair is the tokenizer's pair encoding (its parity with Hugging Face: tst_tokenizer_forms), labelled from the
// text each token covers in its own sequence, and its token types reach the model: the forward pass equals one
// with the types given by hand and differs from one without them.
void TestTextModel::sentencePairCarriesTokenTypes()
{
    auto m = attn::TextModel::open("sample:rationale-bert");
    QVERIFY2(m.isOk(), m.status().message().c_str());
    QCOMPARE(m->model().config().typeVocabSize, std::int64_t(2));
    const std::string text = "the plot was excellent", pair = "the dog was awful";
    attn::TokenizeOptions options;
    options.pair = pair;
    auto t = m->tokenize(text, options);
    QVERIFY2(t.isOk(), t.status().message().c_str());
    auto enc = m->tokenizer()->encodePair(text, pair);
    QVERIFY(enc.isOk());
    QCOMPARE(t->ids, std::vector<std::int64_t>(enc->ids.begin(), enc->ids.end()));
    QCOMPARE(t->typeIds, std::vector<std::int64_t>(enc->typeIds.begin(), enc->typeIds.end()));
    QVERIFY(t->textPair && *t->textPair == pair);
    // [CLS] text [SEP] pair [SEP]: types 0 up to the first [SEP], then 1.
    const auto firstSep = std::find(t->labels.begin(), t->labels.end(), std::string("[SEP]")) - t->labels.begin();
    QVERIFY(firstSep > 1 && firstSep + 2 < std::ptrdiff_t(t->ids.size()));
    for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(t->ids.size()); ++i) {
        QCOMPARE(t->typeIds[std::size_t(i)], std::int64_t(i <= firstSep ? 0 : 1));
        const std::int8_t seq = t->sequence[std::size_t(i)];
        if (t->special[std::size_t(i)]) { QCOMPARE(seq, std::int8_t(-1)); continue; }
        QCOMPARE(seq, std::int8_t(i < firstSep ? 0 : 1));
        const std::string &source = seq == 0 ? text : pair;
        QCOMPARE(t->labels[std::size_t(i)], source.substr(t->begins[std::size_t(i)], t->ends[std::size_t(i)] - t->begins[std::size_t(i)]));
    }
    const attn::ForwardInput in = m->forwardInput(*t);
    QCOMPARE(in.tokenTypeIds, t->typeIds);
    attn::ForwardInput byHand;
    byHand.tokenIds = t->ids;
    byHand.tokenTypeIds = t->typeIds;
    attn::ForwardInput untyped;
    untyped.tokenIds = t->ids;
    auto a = m->model().forward(in), b = m->model().forward(byHand), c = m->model().forward(untyped);
    QVERIFY(a.isOk() && b.isOk() && c.isOk());
    QCOMPARE(a->logits, b->logits);
    double moved = 0;
    for (std::size_t k = 0; k < a->logits.size(); ++k) moved = std::max(moved, double(std::abs(a->logits[k] - c->logits[k])));
    QVERIFY2(moved > 1e-3, qPrintable(QString::number(moved)));
    // One text: every type 0, and no token types passed (as transformers does without a pair).
    auto single = m->tokenize(text);
    QVERIFY(single.isOk());
    QVERIFY(std::all_of(single->typeIds.begin(), single->typeIds.end(), [](std::int64_t v) { return v == 0; }));
    QVERIFY(m->forwardInput(*single).tokenTypeIds.empty());
}

// Truncation cuts to the model's positions exactly as the tokenizer's longest_first does (parity with Hugging Face
// in tst_tokenizer_forms) and says so; without it the text is refused with a message that names the way out.
void TestTextModel::truncationKeepsThePositions()
{
    auto m = attn::TextModel::open("sample:rationale-bert");
    QVERIFY(m.isOk());
    std::string text;
    for (int i = 0; i < 300; ++i) text += "film ";
    auto refused = m->tokenize(text);
    QVERIFY(!refused.isOk());
    QVERIFY2(QString::fromStdString(refused.status().message()).contains("truncation keeps the first 128"),
             refused.status().message().c_str());
    attn::TokenizeOptions options;
    options.truncate = true;
    auto t = m->tokenize(text, options);
    QVERIFY2(t.isOk(), t.status().message().c_str());
    QCOMPARE(t->ids.size(), std::size_t(128));
    QVERIFY(t->truncated);
    QCOMPARE(t->untruncatedLength, m->tokenizer()->encode(text)->ids.size());
    attn::EncodeOptions cut;
    cut.maxLength = 128;
    auto expected = m->tokenizer()->encode(text, cut);
    QCOMPARE(t->ids, std::vector<std::int64_t>(expected->ids.begin(), expected->ids.end()));
    QCOMPARE(t->labels.back(), std::string("[SEP]"));
    QVERIFY(m->model().forward(m->forwardInput(*t)).isOk());
    // A pair: the longer text loses tokens first.
    options.pair = "the dog";
    auto p = m->tokenize(text, options);
    QVERIFY2(p.isOk(), p.status().message().c_str());
    QCOMPARE(p->ids.size(), std::size_t(128));
    const auto pairTokens = std::count(p->sequence.begin(), p->sequence.end(), std::int8_t(1));
    QCOMPARE(std::size_t(pairTokens), m->tokenizer()->encode("the dog", false)->ids.size());
    // A short text is not touched.
    auto shortText = m->tokenize("the film", options);
    QVERIFY(shortText.isOk() && !shortText->truncated);
    QCOMPARE(shortText->untruncatedLength, shortText->ids.size());
}

void TestTextModel::pairNeedsATokenizer()
{
    auto m = attn::TextModel::open("random:layers=1,heads=2,d_model=16,seed=3");
    QVERIFY(m.isOk());
    attn::TokenizeOptions options;
    options.pair = "b";
    auto t = m->tokenize("a", options);
    QVERIFY(!t.isOk());
    QVERIFY2(QString::fromStdString(t.status().message()).contains("no pair template"), t.status().message().c_str());
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


// The LLaMA-family sample (Qwen2: RoPE, grouped-query attention, layer 0 sliding with window 3, layer 1 full),
// trained on in-context key -> value retrieval. Episodes come from the engine's own generator (not the card's
// sampler): 8 pairs "key value" with distinct keys, then one of the keys again; the text ends there. The
// retrieval-head score of a head is the mean attention weight from that last key to the value after its first
// occurrence. The thresholds are the sample's targets (best retrieval head >= 0.5 in the full layer, next-token
// accuracy >= 0.9), not numbers taken from the card.
void TestTextModel::retrievalSampleHasItsHead()
{
    auto m = attn::TextModel::open("sample:retrieval-qwen2");
    QVERIFY2(m.isOk(), m.status().message().c_str());
    const auto &cfg = m->model().config();
    QCOMPARE(cfg.family, std::string("Qwen2"));
    QVERIFY(cfg.kvHeads < cfg.heads);
    QCOMPARE(cfg.positions, attn::PositionKind::RoPE);
    QCOMPARE(attn::layerWindow(cfg, 0), std::int64_t(3));
    QCOMPARE(attn::layerWindow(cfg, 1), std::int64_t(0));
    std::vector<std::string> keys, values;
    for (char c : std::string("bdfghklm"))
        for (char v : std::string("aeiou")) keys.push_back(std::string{c, v});
    for (int d = 0; d < 10; ++d) values.push_back(std::to_string(d));
    std::vector<std::int64_t> valueIds;
    for (const auto &v : values) {
        auto t = m->tokenize("ba " + v);
        QVERIFY2(t.isOk() && t->ids.size() == 2, "a value is one token after a space");
        valueIds.push_back(t->ids[1]);
    }
    const int pairs = 8, episodes = 200;
    std::vector<double> retrieval(std::size_t(cfg.layers * cfg.heads));
    int correct = 0;
    std::mt19937 rng(31337);
    attn::ForwardOptions opt;
    opt.weightsMode = attn::WeightsRequest::Mode::All;
    for (int e = 0; e < episodes; ++e) {
        std::vector<std::size_t> order(keys.size());
        std::iota(order.begin(), order.end(), std::size_t(0));
        std::shuffle(order.begin(), order.end(), rng);
        std::vector<int> vals(pairs);
        std::string text;
        for (int p = 0; p < pairs; ++p) {
            vals[std::size_t(p)] = int(rng() % 10);
            text += (p ? " " : "") + keys[order[std::size_t(p)]] + " " + values[std::size_t(vals[std::size_t(p)])];
        }
        const int q = int(rng() % pairs);
        text += " " + keys[order[std::size_t(q)]];
        auto t = m->tokenize(text);
        QVERIFY2(t.isOk(), t.status().message().c_str());
        QCOMPARE(t->ids.size(), std::size_t(2 * pairs + 1));   // one token a word
        attn::ForwardInput in;
        in.tokenIds = t->ids;
        auto out = m->model().forward(in, opt);
        QVERIFY2(out.isOk(), out.status().message().c_str());
        const std::size_t n = t->ids.size(), last = n - 1, value = std::size_t(2 * q + 1);
        for (const auto &h : out->heads)
            retrieval[std::size_t(h.head.layer * cfg.heads + h.head.head)] += h.weights[last * n + value] / episodes;
        const float *row = out->logits.data() + last * std::size_t(cfg.vocabSize);
        const auto best = std::max_element(row, row + cfg.vocabSize) - row;
        correct += best == valueIds[std::size_t(vals[std::size_t(q)])];
    }
    const auto top = std::max_element(retrieval.begin(), retrieval.end());
    const auto topIndex = top - retrieval.begin();
    qInfo("best retrieval head L%d H%d score %.3f, accuracy %.3f (%d episodes of %d pairs)",
          int(topIndex / cfg.heads), int(topIndex % cfg.heads), *top, double(correct) / episodes, episodes, pairs);
    QVERIFY2(*top >= 0.5, qPrintable(QString("best retrieval-head score %1 < 0.5").arg(*top)));
    QCOMPARE(topIndex / cfg.heads, std::ptrdiff_t(1));   // the full layer: the sliding one cannot see the key
    QVERIFY2(correct >= episodes * 9 / 10, qPrintable(QString("accuracy %1 / %2 < 0.9").arg(correct).arg(episodes)));
}

namespace {

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QByteArray readFixture(const QString &file)
{
    QFile f(QStringLiteral(ATTNSCOPE_TEST_DATA_DIR) + "/fixtures/models/llama-gqa-d48h4/" + file);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Environment variables set for one test and restored after it.
class ScopedEnv {
public:
    ScopedEnv(std::initializer_list<std::pair<const char *, QString>> vars)
    {
        for (const auto &[name, value] : vars) {
            m_saved.push_back({name, qgetenv(name), qEnvironmentVariableIsSet(name)});
            if (value.isNull()) qunsetenv(name);
            else qputenv(name, value.toUtf8());
        }
    }
    ~ScopedEnv()
    {
        for (const auto &s : m_saved) {
            if (s.wasSet) qputenv(s.name, s.value);
            else qunsetenv(s.name);
        }
    }

private:
    struct Saved {
        const char *name;
        QByteArray value;
        bool wasSet;
    };
    std::vector<Saved> m_saved;
};

} // namespace

QString TestTextModel::makeHubCache(QTemporaryDir &dir)
{
    const QString repo = dir.filePath("hub/models--Org--Tiny");
    // Snapshot files are symlinks into blobs/, as huggingface_hub lays them out.
    writeFile(repo + "/blobs/cfg", readFixture("config.json"));
    writeFile(repo + "/blobs/weights", readFixture("model.safetensors"));
    for (const char *rev : {"abc123", "def456"}) {
        const QString snap = repo + "/snapshots/" + rev;
        QDir().mkpath(snap);
        QFile::link("../../blobs/cfg", snap + "/config.json");
        QFile::link("../../blobs/weights", snap + "/model.safetensors");
    }
    writeFile(repo + "/refs/main", "abc123");
    writeFile(repo + "/refs/v2", "def456\n");
    writeFile(repo + "/refs/evil", "../../../etc");
    return dir.filePath("hub");
}

void TestTextModel::hubCacheRepoId()
{
    QTemporaryDir dir;
    const QString hub = makeHubCache(dir);
    const ScopedEnv env{{"HF_HUB_CACHE", hub}, {"HUGGINGFACE_HUB_CACHE", QString()}};
    const QString repo = hub + "/models--Org--Tiny";
    auto main = attn::resolveModelSpec("Org/Tiny");
    QVERIFY2(main.isOk(), main.status().message().c_str());
    QCOMPARE(QString::fromStdString(*main), repo + "/snapshots/abc123");
    QCOMPARE(QString::fromStdString(*attn::resolveModelSpec("Org/Tiny@v2")), repo + "/snapshots/def456");
    QCOMPARE(QString::fromStdString(*attn::resolveModelSpec("Org/Tiny@def456")), repo + "/snapshots/def456");
    auto model = attn::Model::open(*main);
    QVERIFY2(model.isOk(), model.status().message().c_str());
    QCOMPARE(model->config().modelType, std::string("llama"));

    // HF_HOME/hub when HF_HUB_CACHE is not set.
    const ScopedEnv home{{"HF_HUB_CACHE", QString()}, {"HF_HOME", dir.path()}};
    auto viaHome = attn::resolveModelSpec("Org/Tiny");
    QVERIFY2(viaHome.isOk(), viaHome.status().message().c_str());
    QCOMPARE(QString::fromStdString(*viaHome), repo + "/snapshots/abc123");
}

void TestTextModel::hubCacheFolders()
{
    QTemporaryDir dir;
    const QString repo = makeHubCache(dir) + "/models--Org--Tiny";
    // The repo folder opens its refs/main snapshot; a snapshot folder opens as it is.
    QCOMPARE(QString::fromStdString(*attn::resolveModelSpec(repo.toStdString())), repo + "/snapshots/abc123");
    QCOMPARE(QString::fromStdString(*attn::resolveModelSpec((repo + "/").toStdString())), repo + "/snapshots/abc123");
    const QString snap = repo + "/snapshots/def456";
    QCOMPARE(QString::fromStdString(*attn::resolveModelSpec(snap.toStdString())), snap);
    QVERIFY(attn::Model::open(snap.toStdString()).isOk());
}

void TestTextModel::hubCacheMisses_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QStringList>("mentions");
    QTest::addRow("repo not in the cache") << "Org/Absent" << QStringList{"models--Org--Absent", "never downloads", "huggingface-cli"};
    QTest::addRow("unknown revision") << "Org/Tiny@v9" << QStringList{"'v9'", "abc123", "def456"};
    QTest::addRow("a ref that leaves the cache") << "Org/Tiny@evil" << QStringList{"'evil'", "refs/evil"};
}

void TestTextModel::hubCacheMisses()
{
    QFETCH(QString, spec);
    QFETCH(QStringList, mentions);
    QTemporaryDir dir;
    const QString hub = makeHubCache(dir);
    const ScopedEnv env{{"HF_HUB_CACHE", hub}, {"HUGGINGFACE_HUB_CACHE", QString()}};
    auto r = attn::resolveModelSpec(spec.toStdString());
    QVERIFY(!r.isOk());
    QCOMPARE(r.status().code(), attn::ErrorCode::IoError);
    const QString msg = QString::fromStdString(r.status().message());
    for (const QString &m : mentions) QVERIFY2(msg.contains(m), qPrintable(msg + "\n  missing: " + m));
    // Through TextModel the same message comes back; nothing is downloaded.
    auto t = attn::TextModel::open(spec.toStdString());
    QVERIFY(!t.isOk());
    QCOMPARE(QString::fromStdString(t.status().message()), msg);
}

// The GUI's model picker lists the cache's models by repo id; a model opened from the cache shows its repo id,
// not the snapshot's commit hash.
void TestTextModel::hubCacheListsModels()
{
    QTemporaryDir dir;
    const QString hub = makeHubCache(dir);
    QDir(hub).mkpath(QStringLiteral("models--Org--Empty/snapshots/0000"));   // no config.json: not a model
    QDir(hub).mkpath(QStringLiteral("datasets--Org--Data/snapshots/1111"));
    // A whole model with its tokenizer (induction-gpt2's files) under a repo id of its own.
    const QString named = hub + "/models--Org--Named";
    QVERIFY(QDir().mkpath(named + "/snapshots/c0ffee") && QDir().mkpath(named + "/refs"));
    const QString sample = QString::fromStdString(*attn::resolveModelSpec("sample:induction-gpt2"));
    for (const QFileInfo &f : QDir(sample).entryInfoList(QDir::Files))
        QVERIFY(QFile::copy(f.filePath(), named + "/snapshots/c0ffee/" + f.fileName()));
    writeFile(named + "/refs/main", "c0ffee");
    const ScopedEnv env{{"HF_HUB_CACHE", hub}, {"HUGGINGFACE_HUB_CACHE", QString()}};
    const auto models = attn::listHubModels();
    QCOMPARE(models.size(), std::size_t(2));
    QCOMPARE(models[0].repoId, std::string("Org/Named"));
    QCOMPARE(models[1].repoId, std::string("Org/Tiny"));
    QCOMPARE(QString::fromStdString(models[1].snapshot), hub + "/models--Org--Tiny/snapshots/abc123");
    for (const QString &spec : {QStringLiteral("Org/Named"), named, named + "/snapshots/c0ffee"}) {
        auto opened = attn::TextModel::open(spec.toStdString());
        QVERIFY2(opened.isOk(), opened.status().message().c_str());
        QCOMPARE(opened->displayName(), std::string("Org/Named"));
    }
    // Elsewhere a folder shows its own name.
    auto plain = attn::TextModel::open(sample.toStdString());
    QVERIFY(plain.isOk());
    QCOMPARE(plain->displayName(), std::string("induction-gpt2"));
}

QTEST_GUILESS_MAIN(TestTextModel)
#include "tst_textmodel.moc"
