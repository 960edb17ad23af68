// SPDX-License-Identifier: GPL-3.0-or-later
// Dataset runs (dataset.h): SHA-256 against the FIPS 180-4 / NIST test vectors, the JSONL / CSV / rationales.json
// readers with one row per kind of bad line, preparation against rationale-bert (the 150 bundled examples' character
// spans select exactly the evidence tokens the file lists), per-example seeds (results independent of shards and
// threads), results files (resume, a cut-off last line, refusals), merging, the summary on hand-computed records,
// and every document against docs/schema/dataset-*.schema.json.
#include "jsonschema.h"

#include <attnscope/dataset.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <fstream>

using namespace attn;

namespace {

const TextModel &bert()
{
    static const TextModel m = [] {
        auto r = TextModel::open("sample:rationale-bert");
        if (!r) qFatal("%s", r.status().message().c_str());
        return std::move(*r);
    }();
    return m;
}

std::string bertFolder() { return *resolveModelSpec("sample:rationale-bert"); }

QJsonObject schemaFile(const char *name)
{
    QFile f(QStringLiteral(ATTNSCOPE_SCHEMA_DIR "/") + QString::fromLatin1(name));
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read schema %s", name);
    return QJsonDocument::fromJson(f.readAll()).object();
}

// Problems of `json` against `def` of dataset-results.schema.json (or the summary schema when def is empty).
QStringList schemaProblems(const std::string &json, const char *def)
{
    QJsonObject schema = schemaFile(def ? "dataset-results.schema.json" : "dataset-summary.schema.json");
    if (def) schema.insert("$ref", QStringLiteral("#/$defs/") + QString::fromLatin1(def));
    return test::validateJsonSchema(QJsonDocument::fromJson(QByteArray::fromStdString(json)).object(), schema);
}

// A quick suite: every metric family, few passes.
DatasetSettings quickSettings()
{
    DatasetSettings s;
    s.faithfulness.permutations = 3;
    s.faithfulness.bhattRuns = 8;
    s.faithfulness.randomization = RandomizationMode::None;
    s.faithfulness.methods = {ImportanceKind::AttentionHeadMean, ImportanceKind::Rollout, ImportanceKind::LooDeletion};
    s.threads = 1;
    s.version = "test";
    return s;
}

const char *kSmallJsonl =
    "{\"text\": \"the lousy actor found the dog\", \"label\": \"negative\", \"rationale\": [[4, 9]]}\n"
    "{\"text\": \"their seat looked beautiful\", \"label\": 1, \"rationale_tokens\": [4], \"id\": \"b\"}\n"
    "\n"
    "{\"text\": \"a wonderful and horrible plot\", \"target\": \"class:0\"}\n"
    "{\"text\": \"it is a cast and then we called this theater\", \"label\": 0, \"id\": 17}\n";

std::vector<ExampleRecord> runAll(const Dataset &d, DatasetSettings s)
{
    auto prepared = prepareDataset(bert(), d, s);
    if (!prepared) qFatal("%s", prepared.status().message().c_str());
    std::vector<ExampleRecord> out;
    const Status st = runDataset(bert(), *prepared, s, {}, [&](const ExampleRecord &r) { out.push_back(r); return Status::ok(); });
    if (!st) qFatal("%s", st.message().c_str());
    return out;
}

// The line without its timing fields, for comparisons across runs.
std::string withoutTiming(ExampleRecord r)
{
    r.seconds = 0.0;
    r.threads = 0;
    return exampleRecordLine(r);
}

// Everything but "timing".
QJsonObject withoutTimingObject(const std::string &summary)
{
    QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(summary)).object();
    o.remove("timing");
    return o;
}

} // namespace

class TestDataset : public QObject {
    Q_OBJECT
private slots:
    void sha256_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QString>("digest");
        // FIPS 180-4 examples (NIST CSRC "SHA256.pdf") and the NIST long message.
        QTest::newRow("empty") << QByteArray() << "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        QTest::newRow("abc") << QByteArray("abc") << "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        QTest::newRow("448 bits") << QByteArray("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                                  << "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
        QTest::newRow("896 bits") << QByteArray("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")
                                  << "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1";
        QTest::newRow("million a") << QByteArray(1000000, 'a') << "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
    }
    void sha256()
    {
        QFETCH(QByteArray, input);
        QFETCH(QString, digest);
        QCOMPARE(QString::fromStdString(sha256Hex(std::string_view(input.constData(), static_cast<std::size_t>(input.size())))), digest);
    }

    void jsonl()
    {
        auto d = parseJsonlDataset(kSmallJsonl, "small.jsonl");
        QVERIFY2(d, d.status().message().c_str());
        QCOMPARE(d->examples.size(), std::size_t(4));
        QCOMPARE(d->kind, std::string("jsonl"));
        QCOMPARE(d->sha256, sha256Hex(kSmallJsonl));
        const DatasetExample &a = d->examples[0], &b = d->examples[1], &c = d->examples[2], &e = d->examples[3];
        QCOMPARE(a.id, std::string("0"));   // the 0-based line number
        QCOMPARE(a.labelName.value_or(""), std::string("negative"));
        QCOMPARE(a.rationale.size(), std::size_t(1));
        QCOMPARE(b.id, std::string("b"));
        QVERIFY(!b.idIsNumber);
        QCOMPARE(b.labelIndex.value_or(-1), std::int64_t(1));
        QCOMPARE(c.id, std::string("3"));   // line 4 of the file (a blank line before it)
        QCOMPARE(c.index, std::int64_t(2));
        QCOMPARE(c.line, std::int64_t(4));
        QCOMPARE(c.target.value_or(""), std::string("class:0"));
        QCOMPARE(e.id, std::string("17"));
        QVERIFY(e.idIsNumber);
    }

    void badLines_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("message");
        const QString ok = QStringLiteral("{\"text\": \"fine\"}\n");
        QTest::newRow("not JSON") << ok + "{\"text\": \"x\"\n" << "bad.jsonl:2: not valid JSON";
        QTest::newRow("not an object") << ok + "[1, 2]\n" << "bad.jsonl:2: not a JSON object";
        QTest::newRow("no text") << ok + "{\"label\": 1}\n" << "bad.jsonl:2: 'text': missing";
        QTest::newRow("text null") << ok + "{\"text\": null}\n" << "bad.jsonl:2: 'text': missing";
        QTest::newRow("label too large") << ok + "{\"text\": \"x\", \"label\": 18446744073709551615}\n" << "bad.jsonl:2: 'label': neither";
        QTest::newRow("text not a string") << ok + "{\"text\": 5}\n" << "bad.jsonl:2: 'text': not a string";
        QTest::newRow("empty text") << QStringLiteral("{\"text\": \"\"}\n") << "bad.jsonl:1: 'text': empty";
        QTest::newRow("label") << ok + "{\"text\": \"x\", \"label\": -1}\n" << "bad.jsonl:2: 'label': neither";
        QTest::newRow("label float") << ok + "{\"text\": \"x\", \"label\": 1.5}\n" << "bad.jsonl:2: 'label': neither";
        QTest::newRow("span not a pair") << ok + "{\"text\": \"abc\", \"rationale\": [[0]]}\n" << "bad.jsonl:2: 'rationale'[0]: not a [start, end] pair";
        QTest::newRow("span reversed") << ok + "{\"text\": \"abc\", \"rationale\": [[0, 1], [2, 2]]}\n" << "bad.jsonl:2: 'rationale'[1]: start 2 is not before end 2";
        // 'ü' is one code point (two bytes): "über" has 4 code points, so end 5 is past it.
        QTest::newRow("span past the text") << ok + QStringLiteral("{\"text\": \"über\", \"rationale\": [[1, 5]]}\n") << "bad.jsonl:2: 'rationale'[0]: end 5 is past the text's 4 code points";
        QTest::newRow("both rationales") << ok + "{\"text\": \"abc\", \"rationale\": [[0, 1]], \"rationale_tokens\": [1]}\n" << "give one of them";
        QTest::newRow("token twice") << ok + "{\"text\": \"abc\", \"rationale_tokens\": [1, 1]}\n" << "bad.jsonl:2: 'rationale_tokens'[1]: 1 is listed twice";
        QTest::newRow("token negative") << ok + "{\"text\": \"abc\", \"rationale_tokens\": [-3]}\n" << "'rationale_tokens'[0]: not an integer >= 0";
        QTest::newRow("id type") << ok + "{\"text\": \"abc\", \"id\": [1]}\n" << "bad.jsonl:2: 'id': neither";
        QTest::newRow("duplicate id") << ok + "{\"text\": \"abc\", \"id\": 0}\n" << "bad.jsonl:2: 'id': 0 is also the id of line 1";
        QTest::newRow("pair not a string") << ok + "{\"text\": \"abc\", \"text_pair\": 3}\n" << "'text_pair': not a string";
        QTest::newRow("empty file") << QString() << "bad.jsonl: no examples";
        QTest::newRow("two bad lines") << QStringLiteral("5\n{\"text\": 1}\n") << "2 problems";
    }
    void badLines()
    {
        QFETCH(QString, file);
        QFETCH(QString, message);
        const auto d = parseJsonlDataset(file.toStdString(), "bad.jsonl");
        QVERIFY(!d);
        QVERIFY2(QString::fromStdString(d.status().message()).contains(message), d.status().message().c_str());
    }

    void delimited()
    {
        // Quoted fields with a comma, a doubled quote and a newline; a mapping for the text and label columns.
        const std::string csv = "review,sentiment,rationale,rationale_tokens,id\n"
                                "\"great, \"\"really\"\" great\",1,0:5,,a\n"
                                "\"two\nlines\",negative,,1 2,\n";
        auto m = parseColumnMapping("text=review,label=sentiment");
        QVERIFY(m);
        auto d = parseDelimitedDataset(csv, "r.csv", ',', *m);
        QVERIFY2(d, d.status().message().c_str());
        QCOMPARE(d->examples.size(), std::size_t(2));
        QCOMPARE(d->examples[0].text, std::string("great, \"really\" great"));
        QCOMPARE(d->examples[0].labelIndex.value_or(-1), std::int64_t(1));
        QCOMPARE(d->examples[0].rationale.size(), std::size_t(1));
        QCOMPARE(d->examples[0].id, std::string("a"));
        QCOMPARE(d->examples[1].text, std::string("two\nlines"));
        QCOMPARE(d->examples[1].labelName.value_or(""), std::string("negative"));
        QCOMPARE(d->examples[1].rationaleTokens->size(), std::size_t(2));
        QCOMPARE(d->examples[1].id, std::string("2"));   // the record starts on line 3
        auto tsv = parseDelimitedDataset("text\tlabel\nhello there\t0\n", "r.tsv", '\t', {});
        QVERIFY2(tsv, tsv.status().message().c_str());
        QCOMPARE(tsv->kind, std::string("tsv"));

        const auto bad = [](const std::string &bytes, const ColumnMapping &cm) { return parseDelimitedDataset(bytes, "r.csv", ',', cm).status().message(); };
        QVERIFY(QString::fromStdString(bad("a,b\n1,2\n", {})).contains("no 'text' column"));
        QVERIFY(QString::fromStdString(bad("text\nx\n", {{"label", "gold"}})).contains("maps label to a column 'gold'"));
        QVERIFY(QString::fromStdString(bad("text,label\nx\n", {})).contains("r.csv:2: 1 fields, the header has 2"));
        QVERIFY(QString::fromStdString(bad("text\n\"open\n", {})).contains("a quoted field is not closed"));
        QVERIFY(QString::fromStdString(bad("text,rationale\nabc,1-2\n", {})).contains("r.csv:2: 'rationale': '1-2' is not START:END"));
        QVERIFY(!parseColumnMapping("txt=review"));
        QVERIFY(!parseColumnMapping("text"));
    }

    void sampleSet()
    {
        DatasetSettings s = quickSettings();
        auto d = openDataset("sample", bertFolder());
        QVERIFY2(d, d.status().message().c_str());
        QCOMPARE(d->kind, std::string("sample"));
        QCOMPARE(d->examples.size(), std::size_t(150));
        auto sha = sha256File(d->path);
        QVERIFY(sha);
        QCOMPARE(d->sha256, *sha);
        // prepareDataset checks that each example's character spans select exactly its evidence_token_indices and
        // that the tokenizer reproduces input_ids: all 150 pass.
        auto prepared = prepareDataset(bert(), *d, s);
        QVERIFY2(prepared, prepared.status().message().c_str());
        QCOMPARE(prepared->size(), std::size_t(150));
        int evidence = 0;
        for (const PreparedExample &p : *prepared) {
            QVERIFY(p.hasRationale);
            for (std::uint8_t g : p.gold) evidence += g;
        }
        QVERIFY(evidence >= 150);
        QVERIFY(!openDataset("sample", ""));
        QVERIFY(QString::fromStdString(openDataset("sample", QDir::tempPath().toStdString()).status().message()).contains("has no rationales.json"));
    }

    void prepareRefusals_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("message");
        QTest::newRow("label name") << "{\"text\": \"a good plot\", \"label\": \"neutral\"}" << "x.jsonl:1: 'label': 'neutral' is not a class";
        QTest::newRow("label index") << "{\"text\": \"a good plot\", \"label\": 2}" << "x.jsonl:1: 'label': class 2 is outside the model's 2 classes";
        QTest::newRow("special rationale token") << "{\"text\": \"a good plot\", \"rationale_tokens\": [0]}" << "'rationale_tokens': 0 is a special token ([CLS])";
        QTest::newRow("rationale token past the end") << "{\"text\": \"a good plot\", \"rationale_tokens\": [99]}" << "'rationale_tokens': 99 is outside the";
        QTest::newRow("space-only span") << "{\"text\": \"a good plot\", \"rationale\": [[1, 2]]}" << "'rationale'[0]: covers no token";
        QTest::newRow("seq2seq") << "{\"text\": \"a good plot\", \"target_text\": \"gut\"}" << "'target_text': sample:rationale-bert is not an encoder-decoder";
        QTest::newRow("gold without label") << "{\"text\": \"a good plot\", \"target\": \"gold\"}" << "'target': gold, but the example has no 'label'";
        QTest::newRow("position on a classifier") << "{\"text\": \"a good plot\", \"target\": \"position:1\"}" << "position:P needs a language model";
        QTest::newRow("bad target") << "{\"text\": \"a good plot\", \"target\": \"best\"}" << "'target': 'best' is not predicted, gold";
        QTest::newRow("one token") << "{\"text\": \"plot\"}" << "needs at least 2 non-special tokens";
    }
    void prepareRefusals()
    {
        QFETCH(QString, line);
        QFETCH(QString, message);
        auto d = parseJsonlDataset((line + "\n").toStdString(), "x.jsonl");
        QVERIFY2(d, d.status().message().c_str());
        const auto p = prepareDataset(bert(), *d, quickSettings());
        QVERIFY(!p);
        QVERIFY2(QString::fromStdString(p.status().message()).contains(message), p.status().message().c_str());
    }

    // A BERT pair runs as transformers runs it: the pair template, token types 0 then 1 in every pass (deletion
    // keeps each token's own type), and character rationales select tokens of `text` only.
    void textPairOnBert()
    {
        auto d = parseJsonlDataset("{\"text\": \"a good plot\", \"text_pair\": \"the good dog\", \"rationale\": [[2, 6]]}\n", "pair.jsonl");
        QVERIFY2(d, d.status().message().c_str());
        DatasetSettings s = quickSettings();
        auto p = prepareDataset(bert(), *d, s);
        QVERIFY2(p, p.status().message().c_str());
        const TokenizedText &t = (*p)[0].tokens;
        TokenizeOptions pair;
        pair.pair = "the good dog";
        auto expected = bert().tokenize("a good plot", pair);
        QVERIFY(expected);
        QCOMPARE(t.ids, expected->ids);
        QCOMPARE(t.typeIds, expected->typeIds);
        QVERIFY(std::count(t.typeIds.begin(), t.typeIds.end(), 1) >= 3);   // "the good dog [SEP]"
        // "good" (code points 2..6, ASCII: bytes too) selects the text's tokens inside it; the pair's "good" none.
        std::vector<std::uint8_t> gold(t.ids.size(), 0);
        int inText = 0;
        for (std::size_t i = 0; i < gold.size(); ++i)
            if (expected->sequence[i] == 0 && expected->begins[i] >= 2 && expected->ends[i] <= 6) gold[i] = 1, ++inText;
        QVERIFY(inText >= 1);
        QCOMPARE((*p)[0].gold, gold);

        auto r = runFaithfulness(bert(), t, s.faithfulness);
        QVERIFY2(r, r.status().message().c_str());
        // m(x) is the classifier's probability with the token types; without them it would differ.
        const auto probability = [&](bool typed) {
            ForwardInput in;
            in.tokenIds = t.ids;
            if (typed) in.tokenTypeIds = t.typeIds;
            auto out = bert().model().forward(in);
            const double a = out->logits[0], b = out->logits[1], m = std::max(a, b);
            const double e0 = std::exp(a - m), e1 = std::exp(b - m);
            return (r->target.index == 0 ? e0 : e1) / (e0 + e1);
        };
        QVERIFY2(std::abs(r->target.score - probability(true)) < 1e-6, qPrintable(QString::number(r->target.score)));
        QVERIFY(std::abs(probability(true) - probability(false)) > 1e-4);
    }

    void goldFromSpans()
    {
        // "the lousy actor found the dog": code points 4..9 are "lousy" → token 2 ([CLS] the lousy ...).
        auto d = parseJsonlDataset(kSmallJsonl, "small.jsonl");
        auto p = prepareDataset(bert(), *d, quickSettings());
        QVERIFY2(p, p.status().message().c_str());
        QCOMPARE((*p)[0].tokens.labels[2], std::string("lousy"));
        QCOMPARE((*p)[0].gold, (std::vector<std::uint8_t>{0, 0, 1, 0, 0, 0, 0, 0}));
        QCOMPARE((*p)[0].goldSpans, (std::vector<stats::Span>{{2, 3}}));
        QCOMPARE((*p)[0].goldClass.value_or(-1), std::int64_t(0));   // "negative" → class 0
        QVERIFY(!(*p)[2].hasRationale);
        QCOMPARE((*p)[2].targetClass.value_or(-1), std::int64_t(0));
    }

    // Each example's numbers depend on the run seed and its index only: shards, threads and order change nothing.
    void shardsAndThreads()
    {
        auto d = parseJsonlDataset(kSmallJsonl, "small.jsonl");
        DatasetSettings s = quickSettings();
        const std::vector<ExampleRecord> all = runAll(*d, s);
        QCOMPARE(all.size(), std::size_t(4));
        DatasetSettings s0 = s, s1 = s;
        s0.shard = {0, 2};
        s1.shard = {1, 2};
        s1.threads = 2;
        std::vector<ExampleRecord> parts = runAll(*d, s0);
        for (const ExampleRecord &r : runAll(*d, s1)) parts.push_back(r);
        QCOMPARE(parts.size(), std::size_t(4));
        std::sort(parts.begin(), parts.end(), [](const ExampleRecord &a, const ExampleRecord &b) { return a.index < b.index; });
        for (std::size_t i = 0; i < all.size(); ++i) QCOMPARE(withoutTiming(parts[i]), withoutTiming(all[i]));
        QCOMPARE(all[1].seed, stats::deriveSeed(42, 1));
        QVERIFY(all[0].seed != all[1].seed);
        // A different run seed changes the random baselines.
        DatasetSettings other = s;
        other.seed = 7;
        QVERIFY(withoutTiming(runAll(*d, other)[0]) != withoutTiming(all[0]));
        // Every record is a schema-valid line and reads back to the same line.
        for (const ExampleRecord &r : all) {
            const std::string line = exampleRecordLine(r);
            const QStringList problems = schemaProblems(line, "record");
            QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
            auto back = parseExampleRecordLine(line, "x");
            QVERIFY(back);
            QCOMPARE(exampleRecordLine(*back), line);
        }
    }

    void analyses_data()
    {
        QTest::addColumn<int>("analysis");
        QTest::newRow("run") << int(DatasetAnalysis::Run);
        QTest::newRow("equivariance") << int(DatasetAnalysis::Equivariance);
    }
    void analyses()
    {
        QFETCH(int, analysis);
        auto d = parseJsonlDataset(kSmallJsonl, "small.jsonl");
        DatasetSettings s = quickSettings();
        s.analysis = static_cast<DatasetAnalysis>(analysis);
        s.equivariance.permutation.kind = PermutationSpec::Kind::Random;
        s.equivariance.positional = PositionalChoice::None;
        const std::vector<ExampleRecord> recs = runAll(*d, s);
        QCOMPARE(recs.size(), std::size_t(4));
        const auto value = [&](const ExampleRecord &r, const std::string &metric, const std::string &method) {
            for (const MetricValue &v : r.metrics)
                if (v.metric == metric && v.method == method) return v.value;
            return -1.0;
        };
        if (s.analysis == DatasetAnalysis::Run) {
            // 3 layers × 4 heads of statistics; the first-token share is a weight in [0, 1].
            const double sink = value(recs[0], "first_token", "L2 H3");
            QVERIFY(sink >= 0.0 && sink <= 1.0);
            QVERIFY(value(recs[0], "rollout_first_token", "rollout") >= 0.0);
            QVERIFY(value(recs[0], "token_f1", "rollout") >= 0.0);   // example 0 has a rationale
        } else {
            // No positions and a bidirectional BERT: equivariant up to float noise, whatever the permutation.
            for (const ExampleRecord &r : recs) QVERIFY(value(r, "max_abs_err_weights", "model") < 1e-5);
        }
        const std::string header = datasetResultsHeader(bert(), *d, s);
        QVERIFY2(schemaProblems(header, "header").isEmpty(), qPrintable(schemaProblems(header, "header").join('\n')));
        auto summary = datasetSummaryJson(header, recs, {});
        QVERIFY(summary);
        QVERIFY2(schemaProblems(*summary, nullptr).isEmpty(), qPrintable(schemaProblems(*summary, nullptr).join('\n')));
    }

    void resultsFiles()
    {
        QTemporaryDir dir;
        auto d = parseJsonlDataset(kSmallJsonl, "small.jsonl");
        DatasetSettings s = quickSettings();
        const std::string header = datasetResultsHeader(bert(), *d, s);
        const std::string path = dir.filePath("r.jsonl").toStdString();
        const std::vector<ExampleRecord> recs = runAll(*d, s);
        {
            auto w = ResultsWriter::open(path, header, false, nullptr);
            QVERIFY2(w, w.status().message().c_str());
            for (std::size_t i = 0; i < 3; ++i) QVERIFY(w->append(recs[i]));
        }
        // Without --resume an existing file is an error.
        const auto again = ResultsWriter::open(path, header, false, nullptr);
        QVERIFY(!again);
        QVERIFY(QString::fromStdString(again.status().message()).contains("exists; continue it with --resume"));
        // Another setting: refused, naming the field.
        DatasetSettings other = s;
        other.faithfulness.permutations = 4;
        const auto mismatch = ResultsWriter::open(path, datasetResultsHeader(bert(), *d, other), true, nullptr);
        QVERIFY(!mismatch);
        QVERIFY2(QString::fromStdString(mismatch.status().message()).contains("settings.faithfulness.permutations: 3 vs 4"), mismatch.status().message().c_str());
        // A run killed while writing line 4 (the third example): the cut-off line is dropped on resume.
        {
            std::ifstream in(path, std::ios::binary);
            std::string bytes((std::istreambuf_iterator<char>(in)), {});
            const std::size_t cut = bytes.rfind('\n', bytes.size() - 2) + 1 + 40;
            std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes.substr(0, cut);
        }
        auto partial = readResultsFile(path);
        QVERIFY(partial);
        QVERIFY(partial->droppedPartialLine);
        QCOMPARE(partial->records.size(), std::size_t(2));
        std::vector<ExampleRecord> done;
        {
            auto w = ResultsWriter::open(path, header, true, &done);
            QVERIFY2(w, w.status().message().c_str());
            QCOMPARE(done.size(), std::size_t(2));
            QVERIFY(w->append(recs[2]));
            QVERIFY(w->append(recs[3]));
        }
        auto full = readResultsFile(path);
        QVERIFY(full);
        QVERIFY(!full->droppedPartialLine);
        QCOMPARE(full->records.size(), std::size_t(4));
        for (std::size_t i = 0; i < 4; ++i) QCOMPARE(exampleRecordLine(full->records[i]), exampleRecordLine(recs[i]));
        // A bad line in the middle is an error naming it.
        std::ofstream(dir.filePath("bad.jsonl").toStdString()) << header << "\n{\"index\": 1}\n" << exampleRecordLine(recs[0]) << "\n";
        const auto bad = readResultsFile(dir.filePath("bad.jsonl").toStdString());
        QVERIFY(!bad);
        QVERIFY2(QString::fromStdString(bad.status().message()).contains("bad.jsonl:2: 'id': missing"), bad.status().message().c_str());
    }

    void merge()
    {
        QTemporaryDir dir;
        auto d = parseJsonlDataset(kSmallJsonl, "small.jsonl");
        DatasetSettings s = quickSettings();
        const std::vector<ExampleRecord> recs = runAll(*d, s);
        const auto write = [&](const std::string &name, Shard shard, const std::vector<std::size_t> &which) {
            DatasetSettings t = s;
            t.shard = shard;
            const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
            auto w = ResultsWriter::open(path, datasetResultsHeader(bert(), *d, t), false, nullptr);
            for (std::size_t i : which) (void)w->append(recs[i]);
            return path;
        };
        const std::string a = write("a.jsonl", {0, 2}, {0, 2}), b = write("b.jsonl", {1, 2}, {1, 3});
        auto merged = mergeResultsFiles({b, a});
        QVERIFY2(merged, merged.status().message().c_str());
        QCOMPARE(merged->records.size(), std::size_t(4));
        for (std::size_t i = 0; i < 4; ++i) QCOMPARE(merged->records[i].index, std::int64_t(i));
        // The summary of the merged shards equals the one-process summary apart from timing.
        const std::string single = write("single.jsonl", {0, 1}, {0, 1, 2, 3});
        auto one = readResultsFile(single);
        auto s1 = datasetSummaryJson(one->header, one->records, {1.0, 1});
        auto s2 = datasetSummaryJson(merged->header, merged->records, {-1.0, 2});
        QVERIFY(s1 && s2);
        QVERIFY(*s1 != *s2);   // the timing differs
        QCOMPARE(withoutTimingObject(*s2), withoutTimingObject(*s1));
        QVERIFY2(schemaProblems(*s1, nullptr).isEmpty(), qPrintable(schemaProblems(*s1, nullptr).join('\n')));
        QVERIFY2(schemaProblems(merged->header, "header").isEmpty(), qPrintable(schemaProblems(merged->header, "header").join('\n')));

        const auto message = [](const Result<MergedResults> &r) { return QString::fromStdString(r.status().message()); };
        const std::string c = write("c.jsonl", {1, 2}, {1});
        QVERIFY(message(mergeResultsFiles({a, c})).contains("2 of 4 examples are in none of the files (indices 1, 3)") ||
                message(mergeResultsFiles({a, c})).contains("1 of 4 examples are in none of the files (indices 3)"));
        QVERIFY2(message(mergeResultsFiles({a, b, single})).contains("example 0 (id 0) is in both"), qPrintable(message(mergeResultsFiles({a, b, single}))));
        DatasetSettings other = s;
        other.seed = 9;
        other.shard = {1, 2};
        const std::string path = dir.filePath("o.jsonl").toStdString();
        (void)ResultsWriter::open(path, datasetResultsHeader(bert(), *d, other), false, nullptr);
        QVERIFY(message(mergeResultsFiles({a, path})).contains("not a shard of the same run"));
        QVERIFY(message(mergeResultsFiles({a, path})).contains("seed: 42 vs 9"));
    }

    void summaryHand()
    {
        // Four examples, one metric: head = (1, 2, 3, 4), random = (0, 0, 0, 0). d = (1, 2, 3, 4): R+ = 10, R− = 0,
        // exact p = 2·P(W ≥ 10) = 2/16 = 0.125 (only the all-positive pattern reaches 10); one test, so p_holm = 0.125;
        // rank-biserial (10 − 0)/10 = 1. mean = median = 2.5, sd = √(5/3). A fifth example without the metric is
        // "missing".
        DatasetSettings s = quickSettings();
        auto d = parseJsonlDataset(kSmallJsonl, "small.jsonl");
        const std::string header = datasetResultsHeader(bert(), *d, s);
        std::vector<ExampleRecord> recs;
        for (int i = 0; i < 5; ++i) {
            ExampleRecord r;
            r.index = 4 - i;   // out of order on purpose
            r.id = std::to_string(r.index);
            if (r.index < 4) {
                r.metrics.push_back({"aopc_comprehensiveness", "head", double(r.index + 1)});
                r.metrics.push_back({"aopc_comprehensiveness", "random", 0.0});
            } else {
                r.metrics.push_back({"target_score", "model", 0.5});
            }
            recs.push_back(r);
        }
        auto summary = datasetSummaryJson(header, recs, {});
        QVERIFY(summary);
        const QJsonObject doc = QJsonDocument::fromJson(QByteArray::fromStdString(*summary)).object();
        QJsonObject aopc;
        for (const QJsonValue &m : doc.value("metrics").toArray())
            if (m.toObject().value("metric") == QLatin1String("aopc_comprehensiveness")) aopc = m.toObject();
        QCOMPARE(aopc.value("better").toString(), QStringLiteral("higher"));
        const QJsonObject head = aopc.value("methods").toArray().at(0).toObject();
        QCOMPARE(head.value("n").toInt(), 4);
        QCOMPARE(head.value("missing").toInt(), 1);
        QCOMPARE(head.value("mean").toDouble(), 2.5);
        QCOMPARE(head.value("median").toDouble(), 2.5);
        QVERIFY(std::abs(head.value("sd").toDouble() - std::sqrt(5.0 / 3.0)) < 1e-15);
        const QJsonArray ci = head.value("ci95").toArray();
        QVERIFY(ci.at(0).toDouble() >= 1.0 && ci.at(0).toDouble() < 2.5 && ci.at(1).toDouble() > 2.5 && ci.at(1).toDouble() <= 4.0);
        QCOMPARE(aopc.value("random").toObject().value("mean").toDouble(), 0.0);
        const QJsonObject t = aopc.value("tests").toArray().at(0).toObject();
        QCOMPARE(t.value("test").toString(), QStringLiteral("exact"));
        QCOMPARE(t.value("statistic").toDouble(), 0.0);
        QCOMPARE(t.value("p").toDouble(), 0.125);
        QCOMPARE(t.value("p_holm").toDouble(), 0.125);
        QCOMPARE(t.value("rank_biserial").toDouble(), 1.0);
        QCOMPARE(t.value("difference").toObject().value("mean").toDouble(), 2.5);
        QCOMPARE(doc.value("examples").toObject().value("summarized").toInt(), 5);
    }

    void progressAndCancel()
    {
        auto d = parseJsonlDataset(kSmallJsonl, "small.jsonl");
        DatasetSettings s = quickSettings();
        auto prepared = prepareDataset(bert(), *d, s);
        std::vector<DatasetProgress> seen;
        int sunk = 0;
        const Status st = runDataset(bert(), *prepared, s, {0, 3}, [&](const ExampleRecord &) { ++sunk; return Status::ok(); },
                                     [&](const DatasetProgress &p) { seen.push_back(p); });
        QVERIFY(st);
        QCOMPARE(sunk, 2);   // 0 and 3 were skipped (done already)
        QVERIFY(!seen.empty());
        QCOMPARE(seen.back().done, std::int64_t(2));
        QCOMPARE(seen.back().total, std::int64_t(2));
        QCOMPARE(seen.back().fraction, 1.0);
        for (std::size_t i = 1; i < seen.size(); ++i) QVERIFY(seen[i].fraction >= seen[i - 1].fraction);
        int calls = 0;
        const Status cancelled = runDataset(bert(), *prepared, s, {}, [&](const ExampleRecord &) { return Status::ok(); }, {},
                                            [&] { return ++calls > 1; });
        QCOMPARE(cancelled.code(), ErrorCode::Cancelled);
    }
};

QTEST_GUILESS_MAIN(TestDataset)
#include "tst_dataset.moc"
