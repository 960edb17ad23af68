// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope-cli faithfulness|run|equivariance --dataset F (engine/include/attnscope/dataset.h): one analysis per
// example of a dataset into a results JSONL file (resumable, shardable) and a summary; and `merge` for shards.
// Formats: docs/json-format.md "Dataset runs"; a how-to with Slurm and GNU parallel: docs/datasets.md.
//
// These verbs declare their options here, in the style of the other verb files, until app/cli gets its shared
// option table; the analysis options repeat those of the single-text verbs with the same names and meanings.
#include "common.h"
#include "verbs.h"

#include <attnscope/dataset.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>

namespace attncli {

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void onInterrupt(int) { g_interrupted = true; }

QString qs(const std::string &s) { return QString::fromStdString(s); }

QString duration(double seconds)
{
    if (seconds < 0) return QStringLiteral("?");
    if (seconds < 90) return QStringLiteral("%1 s").arg(seconds, 0, 'f', 0);
    if (seconds < 5400) return QStringLiteral("%1 min").arg(seconds / 60.0, 0, 'f', 1);
    return QStringLiteral("%1 h").arg(seconds / 3600.0, 0, 'f', 1);
}

void addAnalysisOptions(QCommandLineParser &parser, attn::DatasetAnalysis analysis)
{
    using attn::DatasetAnalysis;
    if (analysis == DatasetAnalysis::Faithfulness)
        parser.addOptions({
            {QStringLiteral("methods"), QStringLiteral("all, or a list of head,head_mean,rollout,flow,loo_deletion,loo_knockout,occlusion"),
             QStringLiteral("LIST"), QStringLiteral("all")},
            {QStringLiteral("head"), QStringLiteral("the head of the 'head' method, L.H (default: last layer, head 0)"), QStringLiteral("L.H")},
            {QStringLiteral("removal"), QStringLiteral("deletion|knockout|mask|unk|pad|zero_embedding[,OP2] (default deletion)"),
             QStringLiteral("OP[,OP2]"), QStringLiteral("deletion")},
            {QStringLiteral("baseline"), QStringLiteral("occlusion baseline: mask|unk|pad|zero_embedding"), QStringLiteral("OP")},
            {QStringLiteral("tests"), QStringLiteral("all | none | permutation,uniform,ablation,random-logit (default all)"),
             QStringLiteral("LIST"), QStringLiteral("all")},
            {QStringLiteral("metrics"), QStringLiteral("all | none (default all)"), QStringLiteral("WHICH"), QStringLiteral("all")},
            {QStringLiteral("randomization"), QStringLiteral("cascade | none (default cascade)"), QStringLiteral("MODE"), QStringLiteral("cascade")},
            {QStringLiteral("permutations"), QStringLiteral("attention permutations per head (default 100)"), QStringLiteral("N"), QStringLiteral("100")},
            {QStringLiteral("random-seeds"), QStringLiteral("random orderings behind every baseline (default 5)"), QStringLiteral("N"), QStringLiteral("5")},
        });
    if (analysis == DatasetAnalysis::Equivariance)
        parser.addOptions({
            {QStringLiteral("perm"), QStringLiteral("random (default: a permutation per example, seeded from --seed and the index) | reverse"),
             QStringLiteral("PERM"), QStringLiteral("random")},
            {QStringLiteral("pe"), QStringLiteral("model | none | sinusoidal | rope (default model)"), QStringLiteral("PE"), QStringLiteral("model")},
            {QStringLiteral("scope"), QStringLiteral("head:L.H | layer:L | model (default model)"), QStringLiteral("SCOPE"), QStringLiteral("model")},
        });
    if (analysis != DatasetAnalysis::Faithfulness)
        parser.addOption({QStringLiteral("mask"), QStringLiteral("model|bidirectional|causal|window:W|causal-window:W (default model)"),
                          QStringLiteral("MASK"), QStringLiteral("model")});
}

// The analysis options into `s`; false with `error` naming the option.
bool readAnalysisOptions(const QCommandLineParser &parser, attn::DatasetSettings &s, QString &error)
{
    using attn::DatasetAnalysis;
    const auto fail = [&](const char *option, const std::string &message) {
        error = QStringLiteral("--%1: %2").arg(QLatin1String(option), qs(message));
        return false;
    };
    if (s.analysis == DatasetAnalysis::Faithfulness) {
        attn::FaithfulnessSettings &f = s.faithfulness;
        const QString methods = parser.value(QStringLiteral("methods"));
        if (methods != QLatin1String("all")) {
            f.methods.clear();
            for (const QString &m : methods.split(QLatin1Char(','))) {
                const auto kind = attn::parseImportanceKind(m.trimmed().toStdString());
                if (!kind) return fail("methods", kind.status().message());
                f.methods.push_back(*kind);
            }
        }
        if (parser.isSet(QStringLiteral("head"))) {
            const auto heads = attn::parseHeadList(parser.value(QStringLiteral("head")).toStdString());
            if (!heads || !*heads || (*heads)->size() != 1) return fail("head", "'" + parser.value(QStringLiteral("head")).toStdString() + "' is not one head L.H");
            f.head = (*heads)->front();
        }
        const QStringList removals = parser.value(QStringLiteral("removal")).split(QLatin1Char(','));
        if (removals.size() > 2) return fail("removal", "give one or two operators");
        for (qsizetype i = 0; i < removals.size(); ++i) {
            const auto op = attn::parseRemovalOperator(removals[i].trimmed().toStdString());
            if (!op) return fail("removal", op.status().message());
            (i == 0 ? f.removal : f.secondRemoval.emplace()) = *op;
        }
        if (parser.isSet(QStringLiteral("baseline"))) {
            const auto b = attn::parseRemovalOperator(parser.value(QStringLiteral("baseline")).toStdString());
            if (!b || *b == attn::RemovalOperator::Deletion || *b == attn::RemovalOperator::Knockout)
                return fail("baseline", "'" + parser.value(QStringLiteral("baseline")).toStdString() + "' is not mask, unk, pad or zero_embedding");
            f.occlusionBaseline = *b;
        }
        const QString tests = parser.value(QStringLiteral("tests"));
        if (tests != QLatin1String("all")) {
            f.permutationTest = f.uniformTest = f.headAblation = f.randomLogitCheck = false;
            if (tests != QLatin1String("none"))
                for (const QString &t : tests.split(QLatin1Char(','))) {
                    if (t == QLatin1String("permutation")) f.permutationTest = true;
                    else if (t == QLatin1String("uniform")) f.uniformTest = true;
                    else if (t == QLatin1String("ablation")) f.headAblation = true;
                    else if (t == QLatin1String("random-logit")) f.randomLogitCheck = true;
                    else return fail("tests", "'" + t.toStdString() + "' is not permutation, uniform, ablation or random-logit");
                }
        }
        const auto randomization = attn::parseRandomizationMode(parser.value(QStringLiteral("randomization")).toStdString());
        if (!randomization) return fail("randomization", randomization.status().message());
        f.randomization = *randomization;
        const QString metrics = parser.value(QStringLiteral("metrics"));
        if (metrics != QLatin1String("all") && metrics != QLatin1String("none")) return fail("metrics", "'" + metrics.toStdString() + "' is not all or none");
        f.orderingMetrics = metrics == QLatin1String("all");
        if (!readInteger(parser, QStringLiteral("permutations"), f.permutations, error, 1) ||
            !readInteger(parser, QStringLiteral("random-seeds"), f.randomSeeds, error, 1))
            return false;
        s.randomSeeds = f.randomSeeds;
        return true;
    }
    const auto mask = attn::parseMaskChoice(parser.value(QStringLiteral("mask")).toStdString());
    if (!mask) return fail("mask", mask.status().message());
    s.mask = *mask;
    if (s.analysis == DatasetAnalysis::Equivariance) {
        attn::EquivarianceSettings &e = s.equivariance;
        e.mask = *mask;
        const QString perm = parser.value(QStringLiteral("perm"));
        if (perm == QLatin1String("random")) e.permutation.kind = attn::PermutationSpec::Kind::Random;
        else if (perm == QLatin1String("reverse")) e.permutation.kind = attn::PermutationSpec::Kind::Reverse;
        else return fail("perm", "'" + perm.toStdString() + "' is not random or reverse (examples differ in length, so explicit permutations do not apply)");
        const auto pe = attn::parsePositionalChoice(parser.value(QStringLiteral("pe")).toStdString());
        if (!pe) return fail("pe", pe.status().message());
        e.positional = *pe;
        const auto scope = attn::parseEquivarianceScope(parser.value(QStringLiteral("scope")).toStdString());
        if (!scope) return fail("scope", scope.status().message());
        e.scope = *scope;
    }
    return true;
}

} // namespace

int datasetVerb(const QStringList &args, attn::DatasetAnalysis analysis)
{
    const QString verb = qs(attn::datasetAnalysisName(analysis));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Run the %1 analysis on every example of a dataset (JSONL; CSV/TSV with --columns; or 'sample', the model\n"
        "folder's rationales.json) and write one JSON line per example to --out as it finishes, after a header line\n"
        "(model, settings, the dataset's SHA-256, shard, versions). --resume continues a stopped run; --shard i/N\n"
        "takes the examples with index mod N = i (combine the files with 'attnscope-cli merge'); --summary writes\n"
        "means, medians, standard deviations and bootstrap intervals of every metric beside the random baselines,\n"
        "with Wilcoxon tests (Holm-corrected) and effect sizes. Formats: docs/json-format.md; docs/datasets.md.").arg(verb));
    parser.addOptions({
        {QStringLiteral("model"), kModelHelp, QStringLiteral("M")},
        {QStringLiteral("dataset"), QStringLiteral("F.jsonl, F.csv, F.tsv, or sample (the model folder's rationales.json)"), QStringLiteral("F")},
        {QStringLiteral("columns"), QStringLiteral("CSV/TSV: field=column,... for text, text_pair, label, target, target_text, id, rationale, rationale_tokens"),
         QStringLiteral("MAP")},
        {QStringLiteral("out"), QStringLiteral("the results file (JSONL) to write"), QStringLiteral("R.jsonl")},
        {QStringLiteral("summary"), QStringLiteral("also write the summary JSON (over every example in --out)"), QStringLiteral("S.json")},
        {QStringLiteral("resume"), QStringLiteral("continue --out: keep its examples, drop a cut-off last line, refuse other settings")},
        {QStringLiteral("shard"), QStringLiteral("i/N: only the examples with index mod N = i (0 <= i < N; default 0/1)"), QStringLiteral("i/N"),
         QStringLiteral("0/1")},
        {QStringLiteral("target"), QStringLiteral("predicted | gold (the label) | class:N | position:P; an example's 'target' overrides it"),
         QStringLiteral("TARGET"), QStringLiteral("predicted")},
        {QStringLiteral("seed"), QStringLiteral("run seed; example k uses a seed derived from it and k (default 42)"), QStringLiteral("S"),
         QStringLiteral("42")},
        {QStringLiteral("precision-k"), QStringLiteral("k of precision@k against gold rationales (default 1)"), QStringLiteral("K"), QStringLiteral("1")},
        {QStringLiteral("backend"), QStringLiteral("reference|tiled|unfused|cuda|auto (default auto)"), QStringLiteral("B"), QStringLiteral("auto")},
        {QStringLiteral("threads"), QStringLiteral("threads inside an example, 0 = all hardware threads (default 0); results do not depend on it"),
         QStringLiteral("N"), QStringLiteral("0")},
    });
    addAnalysisOptions(parser, analysis);
    addChatterOptions(parser);
    if (auto stop = parseVerbArguments(parser, verb, args)) return *stop;
    const auto bad = [&](const QString &message) {
        printError(verb, message);
        return kExitBadArguments;
    };
    Chatter chatter;
    if (QString error; !readChatter(parser, chatter, error)) return bad(error);
    if (QString error; !requireOptions(parser, {"model", "dataset", "out"}, error)) return bad(error);
    const QString out = parser.value(QStringLiteral("out"));
    if (out == QLatin1String("-")) return bad(QStringLiteral("--out: a dataset run needs a file (it is appended to and resumed), not -"));

    attn::DatasetSettings s;
    s.analysis = analysis;
    s.version = ATTNSCOPE_VERSION;
    s.target = parser.value(QStringLiteral("target")).toStdString();
    QString error;
    if (!readInteger(parser, QStringLiteral("seed"), s.seed, error, std::uint64_t(0)) ||
        !readInteger(parser, QStringLiteral("threads"), s.threads, error, 0) ||
        !readInteger(parser, QStringLiteral("precision-k"), s.precisionK, error, 1) || !readAnalysisOptions(parser, s, error))
        return bad(error);
    const auto shard = attn::parseShard(parser.value(QStringLiteral("shard")).toStdString());
    if (!shard) return bad(QStringLiteral("--shard: %1").arg(qs(shard.status().message())));
    s.shard = *shard;
    const auto backend = attn::parseBackend(parser.value(QStringLiteral("backend")).toStdString());
    if (!backend) return bad(QStringLiteral("--backend: unknown backend '%1' (reference|tiled|unfused|cuda|auto)").arg(parser.value(QStringLiteral("backend"))));
    s.backend = *backend;
    const auto columns = attn::parseColumnMapping(parser.value(QStringLiteral("columns")).toStdString());
    if (!columns) return bad(QStringLiteral("--columns: %1").arg(qs(columns.status().message())));
    const std::string target = s.target;
    if (target != "predicted" && target != "gold" && target.rfind("class:", 0) != 0 && target.rfind("position:", 0) != 0)
        return bad(QStringLiteral("--target: '%1' is not predicted, gold, class:N or position:P").arg(qs(target)));

    progress(chatter, verb, QStringLiteral("opening %1").arg(parser.value(QStringLiteral("model"))));
    const auto opened = openModelOrReport(verb, parser.value(QStringLiteral("model")), true);
    if (!opened) return kExitError;
    if (s.faithfulness.head)
        if (attn::Status st = attn::checkHeadList({*s.faithfulness.head}, opened->model.config()); !st)
            return bad(QStringLiteral("--head: %1").arg(qs(st.message())));
    if (analysis == attn::DatasetAnalysis::Equivariance) {
        // As `equivariance --text`: the scope and --pe are arguments, but only the model knows its size and kind.
        const attn::ModelConfig &c = opened->model.config();
        const attn::EquivarianceScope &scope = s.equivariance.scope;
        if ((scope.kind == attn::EquivarianceScope::Kind::Layer && scope.layer >= c.layers) ||
            (scope.kind == attn::EquivarianceScope::Kind::Head && (scope.head.layer >= c.layers || scope.head.head >= c.heads)))
            return bad(QStringLiteral("--scope: %1 is outside the model's %2 layers x %3 heads")
                           .arg(qs(attn::equivarianceScopeText(scope))).arg(c.layers).arg(c.heads));
        const attn::PositionalChoice pe = s.equivariance.positional;
        if ((pe == attn::PositionalChoice::Sinusoidal || pe == attn::PositionalChoice::Rope) && c.architecture != attn::Architecture::Synthetic)
            return bad(QStringLiteral("--pe: %1 is only available for random: models; use model or none").arg(qs(attn::positionalChoiceName(pe))));
    }
    const auto dataset = attn::openDataset(parser.value(QStringLiteral("dataset")).toStdString(), opened->path, *columns);
    if (!dataset) {
        printError(verb, QStringLiteral("--dataset: %1").arg(qs(dataset.status().message())));
        return kExitError;
    }
    const auto prepared = attn::prepareDataset(*opened->textModel, *dataset, s);
    if (!prepared) {
        printError(verb, QStringLiteral("--dataset: %1").arg(qs(prepared.status().message())));
        return kExitError;
    }
    const std::string header = attn::datasetResultsHeader(*opened->textModel, *dataset, s);
    std::vector<attn::ExampleRecord> done;
    auto writer = attn::ResultsWriter::open(out.toStdString(), header, parser.isSet(QStringLiteral("resume")), &done);
    if (!writer) {
        printError(verb, QStringLiteral("--out: %1").arg(qs(writer.status().message())));
        return kExitError;
    }
    std::set<std::int64_t> skip;
    for (const attn::ExampleRecord &r : done) skip.insert(r.index);
    if (!done.empty()) progress(chatter, verb, QStringLiteral("resuming %1: %2 examples already there").arg(out).arg(done.size()));

    const auto t0 = std::chrono::steady_clock::now();
    auto lastReport = t0 - std::chrono::seconds(10);
    const auto onProgress = [&](const attn::DatasetProgress &p) {
        const auto now = std::chrono::steady_clock::now();
        if (now - lastReport < std::chrono::seconds(1) && p.done < p.total) return;
        lastReport = now;
        progress(chatter, verb, QStringLiteral("%1/%2 examples (%3 %), %4 elapsed, ETA %5")
                                    .arg(p.done).arg(p.total).arg(100.0 * p.fraction, 0, 'f', 0)
                                    .arg(duration(p.elapsedSeconds), duration(p.etaSeconds)));
    };
    // Ctrl-C stops between forward passes, so every line already written is whole; --resume continues.
    g_interrupted = false;
    const auto previous = std::signal(SIGINT, onInterrupt);
    const attn::Status st = attn::runDataset(*opened->textModel, *prepared, s, skip,
                                             [&](const attn::ExampleRecord &r) { return writer->append(r); }, onProgress,
                                             [] { return g_interrupted.load(); });
    std::signal(SIGINT, previous);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!st) {
        if (st.code() == attn::ErrorCode::Cancelled)
            printError(verb, QStringLiteral("interrupted; %1 holds every finished example: continue with --resume").arg(out));
        else printError(verb, qs(st.message()));
        return kExitError;
    }
    progress(chatter, verb, QStringLiteral("wrote %1").arg(out));
    if (!parser.isSet(QStringLiteral("summary"))) return kExitOk;
    // The summary reads the file back: the numbers are those a later merge or resume sees.
    const auto results = attn::readResultsFile(out.toStdString());
    if (!results) {
        printError(verb, qs(results.status().message()));
        return kExitError;
    }
    const auto summary = attn::datasetSummaryJson(results->header, results->records, {wall, 1});
    if (!summary) {
        printError(verb, qs(summary.status().message()));
        return kExitError;
    }
    if (!writeOutput(verb, parser.value(QStringLiteral("summary")), *summary)) return kExitError;
    progress(chatter, verb, QStringLiteral("wrote %1").arg(parser.value(QStringLiteral("summary"))));
    return kExitOk;
}

int mergeVerb(const QStringList &args)
{
    const QString verb = QStringLiteral("merge");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Combine the results files of a sharded dataset run (--shard i/N) into one summary, identical to a\n"
        "single-process run's apart from 'timing'; names missing and overlapping examples. --out also writes the\n"
        "combined results file (one header, the examples sorted by index)."));
    parser.addPositionalArgument(QStringLiteral("results"), QStringLiteral("the shards' results files (R-*.jsonl)"), QStringLiteral("R.jsonl..."));
    parser.addOptions({
        {QStringLiteral("summary"), QStringLiteral("the summary JSON to write, or - for stdout"), QStringLiteral("S.json")},
        {QStringLiteral("out"), QStringLiteral("also write the merged results file"), QStringLiteral("merged.jsonl")},
    });
    addChatterOptions(parser);
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help = parser.addHelpOption();
    if (!parser.parse(args)) {
        printError(verb, parser.errorText());
        return kExitBadArguments;
    }
    if (parser.isSet(help)) {
        QString text = parser.helpText();
        text.replace(0, text.indexOf(QLatin1Char('\n')), QStringLiteral("Usage: attnscope-cli merge [options] R.jsonl..."));
        std::fputs(qPrintable(text), stdout);
        return kExitOk;
    }
    Chatter chatter;
    if (QString error; !readChatter(parser, chatter, error)) {
        printError(verb, error);
        return kExitBadArguments;
    }
    if (QString error; !requireOptions(parser, {"summary"}, error)) {
        printError(verb, error);
        return kExitBadArguments;
    }
    std::vector<std::string> files;
    for (const QString &f : parser.positionalArguments()) files.push_back(f.toStdString());
    if (files.empty()) {
        printError(verb, QStringLiteral("no results files given"));
        return kExitBadArguments;
    }
    const auto merged = attn::mergeResultsFiles(files);
    if (!merged) {
        printError(verb, qs(merged.status().message()));
        return kExitError;
    }
    if (parser.isSet(QStringLiteral("out"))) {
        std::string text = merged->header + "\n";
        for (const attn::ExampleRecord &r : merged->records) text += attn::exampleRecordLine(r) + "\n";
        if (!writeOutput(verb, parser.value(QStringLiteral("out")), text)) return kExitError;
    }
    const auto summary = attn::datasetSummaryJson(merged->header, merged->records, {-1.0, static_cast<int>(files.size())});
    if (!summary) {
        printError(verb, qs(summary.status().message()));
        return kExitError;
    }
    if (!writeOutput(verb, parser.value(QStringLiteral("summary")), *summary)) return kExitError;
    progress(chatter, verb, QStringLiteral("merged %1 files, %2 examples").arg(files.size()).arg(merged->records.size()));
    return kExitOk;
}

} // namespace attncli
