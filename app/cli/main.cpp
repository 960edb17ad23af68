// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope-cli: argument parsing and dispatch only. Each verb turns its options into a config struct and hands
// it to a library (bench/ for `bench`, the engine's export.h for `info` and `run`); exit codes: 0 success,
// 2 bad arguments, 1 any other error.

#include "common.h"
#include "verbs.h"

#include <bench.h>
#include <model_bench.h>

#include <attnscope/attention.h>
#include <attnscope/dataset.h>
#include <attnscope/export.h>
#include <attnscope/limits.h>
#include <attnscope/textmodel.h>
#include <attnscope/utf8.h>
#include <attnscope/vit.h>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QStringList>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <string_view>

namespace {

constexpr const char *kVersion = ATTNSCOPE_VERSION;

using namespace attncli;

// Saturating products for the sizes bench options imply (each factor is range-checked, their product is not).
std::uint64_t times(std::initializer_list<std::uint64_t> factors)
{
    std::uint64_t p = 1;
    for (const std::uint64_t f : factors) {
        if (f != 0 && p > std::numeric_limits<std::uint64_t>::max() / f) return std::numeric_limits<std::uint64_t>::max();
        p *= f;
    }
    return p;
}

std::uint64_t plus(std::uint64_t a, std::uint64_t b)
{
    return b > std::numeric_limits<std::uint64_t>::max() - a ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

// The largest buffers of an attention bench: Q, K, V and the output in float32, the returned weights, and the
// three N x N matrices of the GEMM ceiling.
std::uint64_t attentionBenchBytes(const attn::bench::BenchConfig &c)
{
    const auto u = [](auto v) { return static_cast<std::uint64_t>(v > 0 ? v : 0); };
    std::uint64_t bytes = times({16, u(c.batch), u(c.heads), u(c.n), u(c.d)});
    if (c.weights == attn::bench::WeightsChoice::All) bytes = plus(bytes, times({4, u(c.batch), u(c.heads), u(c.n), u(c.n)}));
    if (c.weights == attn::bench::WeightsChoice::One) bytes = plus(bytes, times({4, u(c.n), u(c.n)}));
    return plus(bytes, times({12, u(c.gemmSize), u(c.gemmSize)}));
}

// The largest buffers of a model bench: the weights, per-token activations (logits, Q/K/V/output, MLP), the
// captured weights of every head, and the fp64 reference's scores of one head.
std::optional<std::uint64_t> modelBenchBytes(const attn::bench::ModelBenchConfig &c)
{
    std::optional<attn::ModelConfig> config;
    if (c.model.rfind("random:", 0) == 0) {
        if (auto parsed = attn::parseSyntheticSpec(c.model)) config = *parsed;
    } else if (auto folder = attn::resolveModelSpec(c.model)) {
        QFile file(QString::fromStdString(*folder + "/config.json"));
        if (file.open(QIODevice::ReadOnly))
            if (auto parsed = attn::parseModelConfig(file.readAll().toStdString(), "config.json")) config = *parsed;
    }
    if (!config) return std::nullopt;   // the bench itself reports why the model does not open
    const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v > 0 ? v : 0); };
    const std::uint64_t n = u(c.n);
    std::uint64_t bytes = attn::estimateWeightBytes(*config);
    bytes = plus(bytes, times({4, n, plus(u(config->vocabSize), plus(times({8, u(config->dModel)}), u(config->intermediate)))}));
    if (c.allWeights) bytes = plus(bytes, times({4, u(config->layers), u(config->heads), n, n}));
    if (c.validate) bytes = plus(bytes, times({8, n, n}));
    return bytes;
}

// Over the memory budget (limits.h, --max-memory): a bad combination of options, refused before any allocation.
bool fitsBudget(VerbOptions &opts, std::uint64_t need, const QString &what)
{
    const auto budget = attn::memoryBudget();
    if (!budget || need <= *budget) return true;
    return opts.reject(QStringLiteral("%1 need %2, %3 %4 (--max-memory GIB sets another budget)")
                           .arg(what, QString::fromStdString(attn::formatGib(need)),
                                QString::fromStdString(attn::formatGib(*budget)),
                                opts.isSet("max-memory") ? QStringLiteral("allowed") : QStringLiteral("available")));
}

int benchVerb(const QStringList &args)
{
    VerbOptions opts(QStringLiteral("bench"), QStringLiteral(
        "Validate each attention backend against the fp64 reference, then time it beside the best GEMM of this\n"
        "build (same process, same threads). One line per backend; --json for JSON lines."));
    attn::bench::BenchConfig config;
    const auto n = [](auto v) { return QString::number(v); };
    using T = OptionType;
    opts.add({
        {"n", T::Integer, "N", "sequence length, Lq = Lk", n(config.n), 1, 1 << 24},
        {"d", T::Integer, "D", "head dimension", n(config.d), 1, 65536},
        {"heads", T::Integer, "H", "heads", n(config.heads), 1, 4096},
        {"batch", T::Integer, "B", "batch size", n(config.batch), 1, 4096},
        {"causal", T::Flag, {}, "causal mask (default bidirectional)", {}},
        {"backend", T::Text, "B", "reference|tiled|unfused|cuda|auto|all (all: tiled, unfused, and cuda if present)",
         "all"},
    });
    opts.use({"threads"});
    opts.add({
        {"reps", T::Integer, "N", "timed repetitions, fewer when a call is slow (see --max-seconds)", n(config.reps), 1,
         1000000},
        {"warmups", T::Integer, "N", "untimed calls after validation, at least 1 (it reads the peak RSS)",
         n(config.warmups), 0, 1000000},
        {"weights", T::Text, "W", "also return weights: none|one|all heads", "none"},
        {"json", T::Flag, {}, "print one JSON object per line", {}},
        {"dtype", T::Text, "T",
         "compute type f32|f16|bf16: inputs rounded to it, fp32 accumulation, every backend",
         "f32"},
        {"memory", T::Flag, {}, "peak-RSS mode: nothing O(n^2), sampled validation, GEMM ceiling after the peak is read",
         {}},
        {"gemm-size", T::Integer, "N", "N of the N^3 sgemm ceiling", n(config.gemmSize), 16, 65536},
        {"max-seconds", T::Number, "S", "timing budget per backend", n(config.maxSeconds), 0, 1e6},
        {"unfused-limit-gib", T::Number, "G", "skip unfused above this much score memory", n(config.unfusedLimitGib),
         0, 1e6},
        {"validate-rows", T::Integer, "N", "sampled fp64 rows at large n", n(config.validateRows), 2, 1 << 24},
        {"seed", T::Integer, "S", "input seed", n(config.seed), 0, kNoLimit},
        {"amp", T::Number, "A", "Q, K ~ N(0, amp^2)", n(config.amplitude), 0, 1e6},
        {"model", T::Text, "M",
         "time a whole forward pass of this model (folder, sample:NAME or random:...) on --n seeded random token ids "
         "instead of one attention call; --weights none|all", {}},
        {"no-validate", T::Flag, {}, "with --model: skip the check against the fp64 reference", {}},
    });
    opts.use({"max-memory", "quiet", "progress"});
    if (auto stop = opts.parse(args)) return *stop;

    const QString verb = opts.verb();
    Chatter chatter;
    const bool ok = opts.readChatter(chatter) && opts.read("n", config.n) && opts.read("d", config.d) &&
                    opts.read("heads", config.heads) && opts.read("batch", config.batch) &&
                    opts.read("threads", config.threads) && opts.read("reps", config.reps) &&
                    opts.read("warmups", config.warmups) && opts.read("validate-rows", config.validateRows) &&
                    opts.read("seed", config.seed) && opts.read("max-seconds", config.maxSeconds) &&
                    opts.read("unfused-limit-gib", config.unfusedLimitGib) && opts.read("amp", config.amplitude);
    std::int64_t gemmSize = config.gemmSize;
    if (!ok || !opts.read("gemm-size", gemmSize)) return opts.fail();
    config.gemmSize = long(gemmSize);
    const QString backend = opts.value("backend");
    const auto backends = attn::bench::parseBenchBackends(backend.toStdString());
    if (!backends)
        return opts.fail(QStringLiteral("--backend: unknown backend '%1' (reference|tiled|unfused|cuda|auto|all)").arg(backend));
    config.backends = *backends;
    const QString dtype = opts.value("dtype");
    const auto computeDtype = attn::parseComputeDtype(dtype.toStdString());
    if (!computeDtype) return opts.fail(QStringLiteral("--dtype: unknown compute type '%1' (f32|f16|bf16)").arg(dtype));
    config.dtype = *computeDtype;
    const QString weights = opts.value("weights");
    const auto weightsChoice = attn::bench::parseWeightsChoice(weights.toStdString());
    if (!weightsChoice) return opts.fail(QStringLiteral("--weights: unknown value '%1' (none|one|all)").arg(weights));
    config.weights = *weightsChoice;
    config.causal = opts.isSet("causal");
    config.json = opts.isSet("json");
    config.memoryMode = opts.isSet("memory");
    if (opts.isSet("model")) {
        attn::bench::ModelBenchConfig mc;
        mc.model = opts.value("model").toStdString();
        mc.n = opts.isSet("n") ? config.n : 256;
        if (config.weights == attn::bench::WeightsChoice::One)
            return opts.fail(QStringLiteral("--weights: with --model use none or all"));
        mc.allWeights = config.weights == attn::bench::WeightsChoice::All;
        if (config.backends.size() != 1) config.backends = {attn::Backend::Auto};
        mc.backend = config.backends.front();
        mc.threads = config.threads;
        mc.reps = config.reps;
        mc.warmups = std::max(1, config.warmups);
        mc.validate = !opts.isSet("no-validate");
        mc.json = config.json;
        mc.seed = config.seed;
        if (const auto need = modelBenchBytes(mc);
            need && !fitsBudget(opts, *need, QStringLiteral("--model with --n %1: the weights and activations").arg(mc.n)))
            return opts.fail();
        progress(chatter, verb, QStringLiteral("timing a forward pass of %1 at n = %2").arg(QString::fromStdString(mc.model)).arg(mc.n));
        return attn::bench::runModelBench(mc, std::cout, std::cerr);
    }
    if (const std::string problem = attn::bench::checkBenchConfig(config); !problem.empty())
        return opts.fail(QString::fromStdString(problem));
    if (!fitsBudget(opts, attentionBenchBytes(config),
                    QStringLiteral("--n %1 --d %2 --heads %3 --batch %4 --gemm-size %5: the inputs, outputs and GEMM")
                        .arg(config.n).arg(config.d).arg(config.heads).arg(config.batch).arg(config.gemmSize)))
        return opts.fail();
    progress(chatter, verb, QStringLiteral("validating, then timing %1 backend(s) at n = %2").arg(config.backends.size()).arg(config.n));
    return attn::bench::runBench(config, std::cout, std::cerr);
}

int infoVerb(const QStringList &args)
{
    VerbOptions opts(QStringLiteral("info"), QStringLiteral(
        "Print a model's summary as JSON: architecture, sizes, head kind, positions, tokenizer, special tokens,\n"
        "parameter count. A folder without tokenizer files still opens (\"tokenizer\": null, with the reason)."));
    opts.use({"model"});
    if (auto stop = opts.parse(args)) return *stop;
    if (!opts.require({"model"})) return opts.fail();
    std::string json;
    if (attn::isVitFolder(opts.value("model").toStdString())) {
        auto info = visionInfo(opts.value("model"));
        if (!info) return kExitError;
        json = std::move(*info);
    } else if (isSeq2SeqModel(opts.value("model"))) {
        auto info = seq2seqInfo(opts.value("model"));
        if (!info) return kExitError;
        json = std::move(*info);
    } else {
        const auto opened = openModelOrReport(opts.verb(), opts.value("model"), false);
        if (!opened) return kExitError;
        json = attn::modelInfoJson(*opened);
    }
    if (attn::Status s = attn::writeStdout(json); !s) {
        printError(opts.verb(), QString::fromStdString(s.message()));
        return kExitError;
    }
    return kExitOk;
}

int runVerb(const QStringList &args)
{
    VerbOptions opts(QStringLiteral("run"), QStringLiteral(
        "Tokenize a text, run the model once, and write the attention weights, the model's outputs and the settings\n"
        "as JSON (docs/json-format.md). Exactly one of --text and --ids. A ViT folder takes --image or --pixel-values\n"
        "instead (attnscope-cli run --image F --help); an encoder-decoder folder a source and --target-text, --target-ids or\n"
        "--max-new-tokens (attnscope-cli run --model SEQ2SEQ --help)."));
    opts.use({"model", "text", "text-pair", "truncate", "ids", "mask", "pad", "backend", "heads", "threads"});
    using T = OptionType;
    opts.add({{"top-k", T::Integer, "K", "predictions listed per position", "5", 1, 100000}});
    opts.use({"out", "tensors", "npy"});
    opts.add({
        {"analyses", T::Text, "LIST",
         "what the document's analyses section holds: none, or any of stats (head statistics of the captured "
         "heads), rollout, flow (every head; flow up to 64 tokens), comma-separated, or all", "none"},
    });
    opts.use({"quiet", "progress"});
    if (auto stop = opts.parse(args)) return *stop;

    const QString verb = opts.verb();
    Chatter chatter;
    if (!opts.readChatter(chatter) || !opts.require({"model", "out"})) return opts.fail();
    const bool haveText = opts.isSet("text"), haveIds = opts.isSet("ids");
    if (haveText == haveIds) return opts.fail(QStringLiteral("give exactly one of --text and --ids"));

    attn::RunRequest request;
    if (haveText) request.text = opts.value("text").toStdString();
    if (!haveText && (opts.isSet("text-pair") || opts.isSet("truncate")))
        return opts.fail(QStringLiteral("--%1: applies to --text, not to --ids").arg(opts.isSet("text-pair") ? "text-pair" : "truncate"));
    if (opts.isSet("text-pair")) request.textPair = opts.value("text-pair").toStdString();
    request.truncate = opts.isSet("truncate");
    if (!opts.readIds(request.ids) || !opts.read("pad", request.padding) || !opts.read("threads", request.threads) ||
        !opts.read("top-k", request.topK) || !opts.readMask(request.mask) || !opts.readBackend(request.backend) ||
        !opts.readHeads(request.heads))
        return opts.fail();
    auto analyses = attn::parseRunAnalyses(opts.value("analyses").toStdString());
    if (!analyses) return opts.fail(QStringLiteral("--%1").arg(QString::fromStdString(analyses.status().message())));
    request.analyses = *analyses;
    const QString out = opts.value("out");
    bool npy = false;
    if (!opts.readTensors(npy)) return opts.fail();

    progress(chatter, verb, QStringLiteral("opening %1").arg(opts.value("model")));
    const auto opened = openModelOrReport(verb, opts.value("model"), haveText);
    if (!opened) return kExitError;
    // Head numbers are arguments too, but only the model knows its size.
    if (request.heads)
        if (attn::Status s = attn::checkHeadList(*request.heads, opened->model.config()); !s)
            return opts.fail(QStringLiteral("--heads: %1").arg(QString::fromStdString(s.message())));
    progress(chatter, verb, QStringLiteral("running the forward pass"));
    const auto data = attn::runModel(*opened, request);
    if (!data) {
        printError(verb, QString::fromStdString(data.status().message()));
        return kExitError;
    }
    if (!npy) return writeOutput(verb, out, attn::runExportJson(*opened, request, *data), chatter) ? kExitOk : kExitError;
    // The .npy and the JSON that refers to it are committed together: both are new, or (on any failure) both
    // previous files are as they were.
    const std::string npyName = attn::npySideFileName(out.toStdString());
    const std::string npyPath = (std::filesystem::path(out.toStdString()).parent_path() / npyName).string();
    attn::FileTransaction files;
    const std::string npyBytes = attn::attentionNpy(opened->model.config(), data->result);
    const std::string npySha = attn::sha256Hex(npyBytes);
    files.add(npyPath, npyBytes);
    files.add(out.toStdString(), attn::runExportJson(*opened, request, *data, npyName, npySha));
    if (attn::Status s = files.commit(); !s) {
        printError(verb, QString::fromStdString(s.message()));
        return kExitError;
    }
    progress(chatter, verb, QStringLiteral("wrote %1 and %2").arg(out, QString::fromStdString(npyPath)));
    return kExitOk;
}

struct Verb {
    const char *name;
    const char *summary;
    int (*run)(const QStringList &args);
};

// Every verb registers here; verbs.h declares the ones that live in their own files.
constexpr Verb kVerbs[] = {
    {"bench", "validate, then time the attention backends beside a same-process GEMM ceiling", benchVerb},
    {"equivariance", "A(PX) vs P·A(X)·Pᵀ and Y(PX) vs P·Y(X) under a token permutation, as JSON", equivarianceVerb},
    {"faithfulness", "attention vs perturbation importance: ERASER, curves, flips, head tests, as JSON", faithfulnessVerb},
    {"figure", "a workspace's figure as PNG, SVG or PDF, drawn headless as the GUI draws it", figureVerb},
    {"info", "a model's summary as JSON on stdout", infoVerb},
    {"map", "one head's exact attention map for long inputs: block-mass grid or a window, as .npy", mapVerb},
    {"merge", "combine the results files of a sharded --dataset run into one summary", mergeVerb},
    {"run", "one forward pass: attention weights, outputs and settings as JSON", runVerb},
};

void printUsage(std::FILE *to)
{
    std::fprintf(to, "Usage: attnscope-cli VERB [options]    (attnscope-cli VERB --help for a verb's options)\n\n"
                     "Verbs:\n");
    for (const Verb &verb : kVerbs) std::fprintf(to, "  %-14s %s\n", verb.name, verb.summary);
    std::fprintf(to, "\nfaithfulness, run and equivariance also take --dataset F instead of --text: one analysis per example,\n"
                     "resumable and shardable (attnscope-cli VERB --dataset F --help; docs/datasets.md).\n");
    std::fprintf(to, "\nOptions:\n  -h, --help     this text\n  -v, --version  version and backends\n\n"
                     "Exit status: 0 success, 2 bad arguments, 1 other errors.\n");
}

void printVersion()
{
    std::printf("attnscope-cli %s\n", kVersion);
    std::printf("cpu kernels: %s, %d hardware threads\n", attn::cpuSimdLevel().c_str(), attn::hardwareThreads());
    if (attn::cudaAvailable()) std::printf("cuda: available\n");
    else std::printf("cuda: unavailable (%s)\n", attn::cudaUnavailableReason().c_str());
}

// Qt decodes argv as UTF-8 and puts U+FFFD in place of invalid bytes, so --text is checked on the raw bytes first:
// a text is refused, never silently changed (exit 2, naming the byte offset).
std::optional<int> checkTextArguments(int argc, char **argv)
{
    for (int i = 2; i < argc; ++i) {
        const std::string_view arg(argv[i]);
        std::optional<std::string_view> value;
        std::string_view name;
        for (const std::string_view flag : {std::string_view("--text"), std::string_view("-text"),
                                            std::string_view("--text-pair"), std::string_view("-text-pair")}) {
            if (arg == flag && i + 1 < argc) value = std::string_view(argv[i + 1]), name = flag;
            else if (arg.size() > flag.size() && arg.substr(0, flag.size()) == flag && arg[flag.size()] == '=')
                value = arg.substr(flag.size() + 1), name = flag;
        }
        if (!value) continue;
        if (const std::size_t bad = attn::firstInvalidUtf8(*value); bad != std::string_view::npos) {
            const std::string_view option = name.substr(name.find_first_not_of('-'));
            std::fprintf(stderr, "attnscope-cli %s: --%.*s: not valid UTF-8 (byte %zu)\n", argv[1], int(option.size()),
                         option.data(), bad);
            return kExitBadArguments;
        }
    }
    return std::nullopt;
}

// A verb that succeeded but whose standard output could not be written (a full disk, /dev/full, a closed pipe)
// failed: scripts must not take a cut-off document for a whole one.
int finish(int code)
{
    if (attn::Status s = attn::finishStdout(); !s) {
        std::fprintf(stderr, "attnscope-cli: %s\n", s.message().c_str());
        return code == kExitOk ? kExitError : code;
    }
    return code;
}

} // namespace

int main(int argc, char **argv)
{
    const std::unique_ptr<QCoreApplication> app = createApplication(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("attnscope-cli"));
    QCoreApplication::setApplicationVersion(QString::fromLatin1(kVersion));

    const QStringList args = QCoreApplication::arguments();
    if (args.size() < 2) {
        printUsage(stderr);
        return kExitBadArguments;
    }
    const QString first = args.at(1);
    if (first == QLatin1String("--help") || first == QLatin1String("-h") || first == QLatin1String("help")) {
        printUsage(stdout);
        return finish(kExitOk);
    }
    if (first == QLatin1String("--version") || first == QLatin1String("-v")) {
        printVersion();
        return finish(kExitOk);
    }
    if (auto stop = checkTextArguments(argc, argv)) return *stop;
    for (const Verb &verb : kVerbs) {
        if (first != QLatin1String(verb.name)) continue;
        QStringList verbArgs = args.mid(2);
        verbArgs.prepend(QStringLiteral("attnscope-cli %1").arg(first));
        // With --dataset, faithfulness, run and equivariance run over a whole dataset (verb_dataset.cpp).
        const bool dataset = std::any_of(verbArgs.begin(), verbArgs.end(), [](const QString &a) {
            return a == QLatin1String("--dataset") || a.startsWith(QLatin1String("--dataset="));
        });
        if (dataset && first == QLatin1String("faithfulness"))
            return finish(datasetVerb(verbArgs, attn::DatasetAnalysis::Faithfulness));
        if (dataset && first == QLatin1String("run")) return finish(datasetVerb(verbArgs, attn::DatasetAnalysis::Run));
        if (dataset && first == QLatin1String("equivariance"))
            return finish(datasetVerb(verbArgs, attn::DatasetAnalysis::Equivariance));
        if (first == QLatin1String("run") && isVisionRun(verbArgs)) return finish(visionRunVerb(verbArgs));
        if (first == QLatin1String("run") && isSeq2SeqRun(verbArgs)) return finish(seq2seqRunVerb(verbArgs));
        return finish(verb.run(verbArgs));
    }
    std::fprintf(stderr, "attnscope-cli: unknown verb '%s' (try --help)\n", qPrintable(first));
    return kExitBadArguments;
}
