// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope-cli faithfulness|run|equivariance --dataset F (engine/include/attnscope/dataset.h): one analysis per
// example of a dataset into a results JSONL file (resumable, shardable) and a summary; and `merge` for shards.
// Formats: docs/json-format.md "Dataset runs"; a how-to with Slurm and GNU parallel: docs/datasets.md.
// Options come from the shared table (options.cpp: dataset, columns, shard, resume, summary and the common
// rows); the faithfulness suite's own options are the single-text verb's (addFaithfulnessOptions).
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

void addAnalysisOptions(VerbOptions &opts, attn::DatasetAnalysis analysis)
{
    using T = OptionType;
    if (analysis == attn::DatasetAnalysis::Faithfulness) addFaithfulnessOptions(opts);
    if (analysis == attn::DatasetAnalysis::Equivariance)
        opts.add({
            {"perm", T::Text, "PERM", "random (a permutation per example, seeded from --seed and the index) | reverse", "random"},
            {"pe", T::Text, "PE", "model | none | sinusoidal | rope (the last two: random: models only)", "model"},
            {"scope", T::Text, "SCOPE", "head:L.H | layer:L | model (every head)", "model"},
        });
    if (analysis != attn::DatasetAnalysis::Faithfulness) opts.use({"mask"});
}

// The analysis options into `s`; false (rejected in `opts`) on a bad value.
bool readAnalysisOptions(VerbOptions &opts, attn::DatasetSettings &s)
{
    using attn::DatasetAnalysis;
    if (s.analysis == DatasetAnalysis::Faithfulness) {
        if (!readFaithfulnessOptions(opts, s.faithfulness)) return false;
        s.randomSeeds = s.faithfulness.randomSeeds;
        return true;
    }
    if (!opts.readMask(s.mask)) return false;
    if (s.analysis != DatasetAnalysis::Equivariance) return true;
    attn::EquivarianceSettings &e = s.equivariance;
    e.mask = s.mask;
    const QString perm = opts.value("perm");
    if (perm == QLatin1String("random")) e.permutation.kind = attn::PermutationSpec::Kind::Random;
    else if (perm == QLatin1String("reverse")) e.permutation.kind = attn::PermutationSpec::Kind::Reverse;
    else return opts.reject(QStringLiteral("--perm: '%1' is not random or reverse (examples differ in length, so explicit permutations do not apply)").arg(perm));
    const auto pe = attn::parsePositionalChoice(opts.value("pe").toStdString());
    if (!pe) return opts.reject(QStringLiteral("--pe: %1").arg(qs(pe.status().message())));
    e.positional = *pe;
    const auto scope = attn::parseEquivarianceScope(opts.value("scope").toStdString());
    if (!scope) return opts.reject(QStringLiteral("--scope: %1").arg(qs(scope.status().message())));
    e.scope = *scope;
    return true;
}

} // namespace

int datasetVerb(const QStringList &args, attn::DatasetAnalysis analysis)
{
    VerbOptions opts(qs(attn::datasetAnalysisName(analysis)), QStringLiteral(
        "Run the %1 analysis on every example of a dataset (JSONL; CSV/TSV with --columns; or 'sample', the model\n"
        "folder's rationales.json) and write one JSON line per example to --out as it finishes, after a header line\n"
        "(model, settings, the dataset's SHA-256, shard, versions). --resume continues a stopped run; --shard i/N\n"
        "takes the examples with index mod N = i (combine the files with 'attnscope-cli merge'); --summary writes\n"
        "means, medians, standard deviations and bootstrap intervals of every metric beside the random baselines,\n"
        "with Wilcoxon tests (Holm-corrected) and effect sizes. Formats: docs/json-format.md; docs/datasets.md.")
                                                        .arg(qs(attn::datasetAnalysisName(analysis))));
    using T = OptionType;
    opts.use({"model", "dataset", "columns", {"out", QStringLiteral("the results file (JSONL) to write")},
              {"summary", QStringLiteral("also write the summary JSON (over every example in --out)")}, "resume", "shard"});
    opts.add({
        {"target", T::Text, "TARGET", "predicted | gold (the label) | class:N | position:P; an example's 'target' overrides it",
         "predicted"},
        {"seed", T::Integer, "S", "run seed; example k uses a seed derived from it and k", "42", 0, kNoLimit},
        {"precision-k", T::Integer, "K", "k of precision@k against gold rationales", "1", 1, 100000},
    });
    opts.use({"backend", {"threads", QStringLiteral("CPU threads inside an example, 0 = all hardware threads; results do not depend on it")}});
    addAnalysisOptions(opts, analysis);
    opts.use({"quiet", "progress"});
    if (auto stop = opts.parse(args)) return *stop;
    const QString verb = opts.verb();
    Chatter chatter;
    if (!opts.readChatter(chatter) || !opts.require({"model", "dataset", "out"})) return opts.fail();
    const QString out = opts.value("out");
    if (out == QLatin1String("-")) return opts.fail(QStringLiteral("--out: a dataset run needs a file (it is appended to and resumed), not -"));

    attn::DatasetSettings s;
    s.analysis = analysis;
    s.version = ATTNSCOPE_VERSION;
    s.target = opts.value("target").toStdString();
    if (!opts.read("seed", s.seed) || !opts.read("threads", s.threads) || !opts.read("precision-k", s.precisionK) ||
        !opts.readBackend(s.backend) || !readAnalysisOptions(opts, s))
        return opts.fail();
    const auto shard = attn::parseShard(opts.value("shard").toStdString());
    if (!shard) return opts.fail(QStringLiteral("--shard: %1").arg(qs(shard.status().message())));
    s.shard = *shard;
    const auto columns = attn::parseColumnMapping(opts.value("columns").toStdString());
    if (!columns) return opts.fail(QStringLiteral("--columns: %1").arg(qs(columns.status().message())));
    const std::string target = s.target;
    if (target != "predicted" && target != "gold" && target.rfind("class:", 0) != 0 && target.rfind("position:", 0) != 0)
        return opts.fail(QStringLiteral("--target: '%1' is not predicted, gold, class:N or position:P").arg(qs(target)));
    const auto bad = [&](const QString &message) { return opts.fail(message); };

    progress(chatter, verb, QStringLiteral("opening %1").arg(opts.value("model")));
    const auto opened = openModelOrReport(verb, opts.value("model"), true);
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
    const auto dataset = attn::openDataset(opts.value("dataset").toStdString(), opened->path, *columns);
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
    auto writer = attn::ResultsWriter::open(out.toStdString(), header, opts.isSet("resume"), &done);
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
    if (!opts.isSet("summary")) return kExitOk;
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
    if (!writeOutput(verb, opts.value("summary"), *summary, chatter)) return kExitError;
    return kExitOk;
}

int mergeVerb(const QStringList &args)
{
    VerbOptions opts(QStringLiteral("merge"), QStringLiteral(
        "Combine the results files of a sharded dataset run (--shard i/N) into one summary, identical to a\n"
        "single-process run's apart from 'timing'; names missing and overlapping examples. --out also writes the\n"
        "combined results file (one header, the examples sorted by index)."));
    opts.positional(QStringLiteral("results"), QStringLiteral("the shards' results files (R-*.jsonl)"), QStringLiteral("R.jsonl..."));
    opts.use({"summary", {"out", QStringLiteral("also write the merged results file (JSONL)")}, "quiet", "progress"});
    if (auto stop = opts.parse(args)) return *stop;
    const QString verb = opts.verb();
    Chatter chatter;
    if (!opts.readChatter(chatter) || !opts.require({"summary"})) return opts.fail();
    std::vector<std::string> files;
    for (const QString &f : opts.positionalArguments()) files.push_back(f.toStdString());
    if (files.empty()) return opts.fail(QStringLiteral("no results files given"));
    const auto merged = attn::mergeResultsFiles(files);
    if (!merged) {
        printError(verb, qs(merged.status().message()));
        return kExitError;
    }
    if (opts.isSet("out")) {
        std::string text = merged->header + "\n";
        for (const attn::ExampleRecord &r : merged->records) text += attn::exampleRecordLine(r) + "\n";
        if (!writeOutput(verb, opts.value("out"), text, chatter)) return kExitError;
    }
    const auto summary = attn::datasetSummaryJson(merged->header, merged->records, {-1.0, static_cast<int>(files.size())});
    if (!summary) {
        printError(verb, qs(summary.status().message()));
        return kExitError;
    }
    if (!writeOutput(verb, opts.value("summary"), *summary, chatter)) return kExitError;
    progress(chatter, verb, QStringLiteral("merged %1 files, %2 examples").arg(files.size()).arg(merged->records.size()));
    return kExitOk;
}

} // namespace attncli
