// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope-cli: argument parsing and dispatch only. Each verb turns its options into a config struct and hands
// it to a library (bench/ for `bench`, the engine's export.h for `info` and `run`); exit codes: 0 success,
// 2 bad arguments, 1 any other error.

#include "common.h"
#include "verbs.h"

#include <bench.h>
#include <model_bench.h>

#include <attnscope/attention.h>
#include <attnscope/export.h>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>

namespace {

constexpr const char *kVersion = ATTNSCOPE_VERSION;

using namespace attncli;

int benchVerb(const QStringList &args)
{
    const QString verb = QStringLiteral("bench");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Validate each attention backend against the fp64 reference, then time it beside the best GEMM of this\n"
        "build (same process, same threads). One line per backend; --json for JSON lines."));
    attn::bench::BenchConfig config;
    auto number = [](const char *name, const QString &what, auto fallback) {
        return QCommandLineOption(QString::fromLatin1(name),
                                  what + QStringLiteral(" (default %1)").arg(fallback), QStringLiteral("N"));
    };
    parser.addOptions({
        number("n", QStringLiteral("sequence length, Lq = Lk"), config.n),
        number("d", QStringLiteral("head dimension"), config.d),
        number("heads", QStringLiteral("heads"), config.heads),
        number("batch", QStringLiteral("batch size"), config.batch),
        {QStringLiteral("causal"), QStringLiteral("causal mask (default bidirectional)")},
        {QStringLiteral("backend"),
         QStringLiteral("reference|tiled|unfused|cuda|auto|all (default all: tiled, unfused, and cuda if present)"),
         QStringLiteral("B"), QStringLiteral("all")},
        number("threads", QStringLiteral("threads, 0 = all hardware threads"), config.threads),
        number("reps", QStringLiteral("timed repetitions, fewer when a call is slow (see --max-seconds)"),
               config.reps),
        number("warmups", QStringLiteral("untimed calls after validation, at least 1 (it reads the peak RSS)"),
               config.warmups),
        {QStringLiteral("weights"), QStringLiteral("also return weights: none|one|all heads (default none)"),
         QStringLiteral("W"), QStringLiteral("none")},
        {QStringLiteral("json"), QStringLiteral("print one JSON object per line")},
        {QStringLiteral("dtype"),
         QStringLiteral("compute type f32|f16|bf16; f16/bf16 run on the CUDA backend only (default f32; "
                        "with f16/bf16 the default backend is cuda)"),
         QStringLiteral("T"), QStringLiteral("f32")},
        {QStringLiteral("memory"),
         QStringLiteral("peak-RSS mode: nothing O(n^2), sampled validation, GEMM ceiling after the peak is read")},
        number("gemm-size", QStringLiteral("N of the N^3 sgemm ceiling"), qlonglong(config.gemmSize)),
        number("max-seconds", QStringLiteral("timing budget per backend"), config.maxSeconds),
        number("unfused-limit-gib", QStringLiteral("skip unfused above this much score memory"),
               config.unfusedLimitGib),
        number("validate-rows", QStringLiteral("sampled fp64 rows at large n"), config.validateRows),
        number("seed", QStringLiteral("input seed"), qulonglong(config.seed)),
        number("amp", QStringLiteral("Q, K ~ N(0, amp^2)"), config.amplitude),
        {QStringLiteral("model"),
         QStringLiteral("time a whole forward pass of this model (folder, sample:NAME or random:...) on --n seeded "
                        "random token ids instead of one attention call; --weights none|all"),
         QStringLiteral("M")},
        {QStringLiteral("no-validate"), QStringLiteral("with --model: skip the check against the fp64 reference")},
    });
    addChatterOptions(parser);
    if (auto stop = parseVerbArguments(parser, verb, args)) return *stop;

    QString error;
    Chatter chatter;
    if (!readChatter(parser, chatter, error)) {
        printError(verb, error);
        return kExitBadArguments;
    }
    const bool numbersOk = readInteger(parser, QStringLiteral("n"), config.n, error, std::int64_t(1)) &&
                           readInteger(parser, QStringLiteral("d"), config.d, error, std::int64_t(1)) &&
                           readInteger(parser, QStringLiteral("heads"), config.heads, error, std::int64_t(1)) &&
                           readInteger(parser, QStringLiteral("batch"), config.batch, error, std::int64_t(1)) &&
                           readInteger(parser, QStringLiteral("threads"), config.threads, error, 0) &&
                           readInteger(parser, QStringLiteral("reps"), config.reps, error, 1) &&
                           readInteger(parser, QStringLiteral("warmups"), config.warmups, error, 0) &&
                           readInteger(parser, QStringLiteral("gemm-size"), config.gemmSize, error, 16L) &&
                           readInteger(parser, QStringLiteral("validate-rows"), config.validateRows, error, 2) &&
                           readInteger(parser, QStringLiteral("seed"), config.seed, error, std::uint64_t(0)) &&
                           readDouble(parser, QStringLiteral("max-seconds"), config.maxSeconds, error, 0.0) &&
                           readDouble(parser, QStringLiteral("unfused-limit-gib"), config.unfusedLimitGib, error,
                                      0.0) &&
                           readDouble(parser, QStringLiteral("amp"), config.amplitude, error, 0.0);
    if (!numbersOk) {
        printError(verb, error);
        return kExitBadArguments;
    }
    const QString backend = parser.value(QStringLiteral("backend"));
    const auto backends = attn::bench::parseBenchBackends(backend.toStdString());
    if (!backends) {
        printError(verb, QStringLiteral("--backend: unknown backend '%1' (reference|tiled|unfused|cuda|auto|all)")
                             .arg(backend));
        return kExitBadArguments;
    }
    config.backends = *backends;
    const QString dtype = parser.value(QStringLiteral("dtype"));
    const auto computeDtype = attn::parseComputeDtype(dtype.toStdString());
    if (!computeDtype) {
        printError(verb, QStringLiteral("--dtype: unknown compute type '%1' (f32|f16|bf16)").arg(dtype));
        return kExitBadArguments;
    }
    config.dtype = *computeDtype;
    if (config.dtype != attn::ComputeDtype::F32 && !parser.isSet(QStringLiteral("backend")))
        config.backends = {attn::Backend::Cuda};
    const QString weights = parser.value(QStringLiteral("weights"));
    const auto weightsChoice = attn::bench::parseWeightsChoice(weights.toStdString());
    if (!weightsChoice) {
        printError(verb, QStringLiteral("--weights: unknown value '%1' (none|one|all)").arg(weights));
        return kExitBadArguments;
    }
    config.weights = *weightsChoice;
    config.causal = parser.isSet(QStringLiteral("causal"));
    config.json = parser.isSet(QStringLiteral("json"));
    config.memoryMode = parser.isSet(QStringLiteral("memory"));
    if (parser.isSet(QStringLiteral("model"))) {
        attn::bench::ModelBenchConfig mc;
        mc.model = parser.value(QStringLiteral("model")).toStdString();
        mc.n = parser.isSet(QStringLiteral("n")) ? config.n : 256;
        if (config.weights == attn::bench::WeightsChoice::One) {
            printError(verb, QStringLiteral("--weights: with --model use none or all"));
            return kExitBadArguments;
        }
        mc.allWeights = config.weights == attn::bench::WeightsChoice::All;
        if (config.backends.size() != 1) config.backends = {attn::Backend::Auto};
        mc.backend = config.backends.front();
        mc.threads = config.threads;
        mc.reps = config.reps;
        mc.warmups = std::max(1, config.warmups);
        mc.validate = !parser.isSet(QStringLiteral("no-validate"));
        mc.json = config.json;
        mc.seed = config.seed;
        progress(chatter, verb, QStringLiteral("timing a forward pass of %1 at n = %2").arg(QString::fromStdString(mc.model)).arg(mc.n));
        return attn::bench::runModelBench(mc, std::cout, std::cerr);
    }
    if (const std::string problem = attn::bench::checkBenchConfig(config); !problem.empty()) {
        printError(verb, QString::fromStdString(problem));
        return kExitBadArguments;
    }
    progress(chatter, verb, QStringLiteral("validating, then timing %1 backend(s) at n = %2").arg(config.backends.size()).arg(config.n));
    return attn::bench::runBench(config, std::cout, std::cerr);
}

int infoVerb(const QStringList &args)
{
    const QString verb = QStringLiteral("info");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Print a model's summary as JSON: architecture, sizes, head kind, positions, tokenizer, special tokens,\n"
        "parameter count. A folder without tokenizer files still opens (\"tokenizer\": null, with the reason)."));
    parser.addOption({QStringLiteral("model"), kModelHelp, QStringLiteral("M")});
    if (auto stop = parseVerbArguments(parser, verb, args)) return *stop;
    if (!parser.isSet(QStringLiteral("model"))) {
        printError(verb, QStringLiteral("--model is required"));
        return kExitBadArguments;
    }
    const auto opened = openModelOrReport(verb, parser.value(QStringLiteral("model")), false);
    if (!opened) return kExitError;
    std::fputs(attn::modelInfoJson(*opened).c_str(), stdout);
    return kExitOk;
}

// "5,17,3" → ids; false on anything else.
bool parseIds(const QString &text, std::vector<std::int64_t> &ids)
{
    for (const QString &item : text.split(QLatin1Char(','))) {
        bool ok = false;
        const qlonglong id = item.trimmed().toLongLong(&ok);
        if (!ok || id < 0) return false;
        ids.push_back(id);
    }
    return !ids.empty();
}

int runVerb(const QStringList &args)
{
    const QString verb = QStringLiteral("run");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Tokenize a text, run the model once, and write the attention weights, the model's outputs and the settings\n"
        "as JSON (docs/json-format.md). Exactly one of --text and --ids."));
    parser.addOptions({
        {QStringLiteral("model"), kModelHelp, QStringLiteral("M")},
        {QStringLiteral("text"), QStringLiteral("the input text (UTF-8)"), QStringLiteral("T")},
        {QStringLiteral("ids"), QStringLiteral("token ids instead of text, comma-separated (folders without a tokenizer)"),
         QStringLiteral("I,I,...")},
        {QStringLiteral("mask"),
         QStringLiteral("model|bidirectional|causal|window:W|causal-window:W (default model: the model's own)"),
         QStringLiteral("MASK"), QStringLiteral("model")},
        {QStringLiteral("pad"), QStringLiteral("append K padding tokens, masked as keys (default 0)"), QStringLiteral("K"),
         QStringLiteral("0")},
        {QStringLiteral("backend"), QStringLiteral("reference|tiled|unfused|cuda|auto (default auto)"), QStringLiteral("B"),
         QStringLiteral("auto")},
        {QStringLiteral("heads"), QStringLiteral("heads whose weights are exported: all, or L.H,L.H,... (default all)"),
         QStringLiteral("HEADS"), QStringLiteral("all")},
        {QStringLiteral("threads"), QStringLiteral("threads, 0 = all hardware threads (default 0)"), QStringLiteral("N"),
         QStringLiteral("0")},
        {QStringLiteral("top-k"), QStringLiteral("predictions listed per position (default 5)"), QStringLiteral("K"),
         QStringLiteral("5")},
        {QStringLiteral("out"), QStringLiteral("the JSON file to write, or - for stdout"), QStringLiteral("F.json")},
        {QStringLiteral("tensors"),
         QStringLiteral("json: attention as nested arrays in the JSON (default); npy: in F.attention.npy beside it "
                        "(float32 [layers, heads, n, n], NaN for heads not exported), the JSON refers to it"),
         QStringLiteral("FORMAT"), QStringLiteral("json")},
        {QStringLiteral("npy"), QStringLiteral("the same as --tensors npy")},
    });
    addChatterOptions(parser);
    if (auto stop = parseVerbArguments(parser, verb, args)) return *stop;

    const auto bad = [&](const QString &message) {
        printError(verb, message);
        return kExitBadArguments;
    };
    Chatter chatter;
    if (QString error; !readChatter(parser, chatter, error)) return bad(error);
    if (QString error; !requireOptions(parser, {"model", "out"}, error)) return bad(error);
    const bool haveText = parser.isSet(QStringLiteral("text")), haveIds = parser.isSet(QStringLiteral("ids"));
    if (haveText == haveIds) return bad(QStringLiteral("give exactly one of --text and --ids"));

    attn::RunRequest request;
    if (haveText) request.text = parser.value(QStringLiteral("text")).toStdString();
    if (haveIds && !parseIds(parser.value(QStringLiteral("ids")), request.ids))
        return bad(QStringLiteral("--ids: '%1' is not a comma-separated list of token ids >= 0")
                       .arg(parser.value(QStringLiteral("ids"))));
    QString error;
    if (!readInteger(parser, QStringLiteral("pad"), request.padding, error, std::int64_t(0)) ||
        !readInteger(parser, QStringLiteral("threads"), request.threads, error, 0) ||
        !readInteger(parser, QStringLiteral("top-k"), request.topK, error, 1))
        return bad(error);
    const QString mask = parser.value(QStringLiteral("mask"));
    const auto maskChoice = attn::parseMaskChoice(mask.toStdString());
    if (!maskChoice) return bad(QStringLiteral("--mask: %1").arg(QString::fromStdString(maskChoice.status().message())));
    request.mask = *maskChoice;
    const QString backend = parser.value(QStringLiteral("backend"));
    const auto parsedBackend = attn::parseBackend(backend.toStdString());
    if (!parsedBackend)
        return bad(QStringLiteral("--backend: unknown backend '%1' (reference|tiled|unfused|cuda|auto)").arg(backend));
    request.backend = *parsedBackend;
    const auto heads = attn::parseHeadList(parser.value(QStringLiteral("heads")).toStdString());
    if (!heads) return bad(QStringLiteral("--heads: %1").arg(QString::fromStdString(heads.status().message())));
    request.heads = *heads;
    const QString out = parser.value(QStringLiteral("out"));
    const QString tensors = parser.value(QStringLiteral("tensors"));
    if (tensors != QLatin1String("json") && tensors != QLatin1String("npy"))
        return bad(QStringLiteral("--tensors: '%1' is not json or npy").arg(tensors));
    const bool npy = tensors == QLatin1String("npy") || parser.isSet(QStringLiteral("npy"));
    if (npy && parser.isSet(QStringLiteral("npy")) && parser.isSet(QStringLiteral("tensors")) && tensors != QLatin1String("npy"))
        return bad(QStringLiteral("--npy and --tensors %1 contradict each other").arg(tensors));
    if (npy && out == QLatin1String("-"))
        return bad(QStringLiteral("--tensors npy: the .npy file goes beside --out, which must be a file, not -"));

    progress(chatter, verb, QStringLiteral("opening %1").arg(parser.value(QStringLiteral("model"))));
    const auto opened = openModelOrReport(verb, parser.value(QStringLiteral("model")), haveText);
    if (!opened) return kExitError;
    // Head numbers are arguments too, but only the model knows its size.
    if (request.heads)
        if (attn::Status s = attn::checkHeadList(*request.heads, opened->model.config()); !s)
            return bad(QStringLiteral("--heads: %1").arg(QString::fromStdString(s.message())));
    progress(chatter, verb, QStringLiteral("running the forward pass"));
    const auto data = attn::runModel(*opened, request);
    if (!data) {
        printError(verb, QString::fromStdString(data.status().message()));
        return kExitError;
    }
    if (!npy) {
        const std::string json = attn::runExportJson(*opened, request, *data);
        if (!writeOutput(verb, out, json)) return kExitError;
        if (out != QLatin1String("-")) progress(chatter, verb, QStringLiteral("wrote %1").arg(out));
        return kExitOk;
    }
    // The .npy and the JSON that refers to it are committed together: both are new, or (on any failure) both
    // previous files are as they were.
    const std::string npyName = attn::npySideFileName(out.toStdString());
    const std::string npyPath = (std::filesystem::path(out.toStdString()).parent_path() / npyName).string();
    attn::FileTransaction files;
    files.add(npyPath, attn::attentionNpy(opened->model.config(), data->result));
    files.add(out.toStdString(), attn::runExportJson(*opened, request, *data, npyName));
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
    {"run", "one forward pass: attention weights, outputs and settings as JSON", runVerb},
};

void printUsage(std::FILE *to)
{
    std::fprintf(to, "Usage: attnscope-cli VERB [options]    (attnscope-cli VERB --help for a verb's options)\n\n"
                     "Verbs:\n");
    for (const Verb &verb : kVerbs) std::fprintf(to, "  %-14s %s\n", verb.name, verb.summary);
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
        return kExitOk;
    }
    if (first == QLatin1String("--version") || first == QLatin1String("-v")) {
        printVersion();
        return kExitOk;
    }
    for (const Verb &verb : kVerbs) {
        if (first != QLatin1String(verb.name)) continue;
        QStringList verbArgs = args.mid(2);
        verbArgs.prepend(QStringLiteral("attnscope-cli %1").arg(first));
        return verb.run(verbArgs);
    }
    std::fprintf(stderr, "attnscope-cli: unknown verb '%s' (try --help)\n", qPrintable(first));
    return kExitBadArguments;
}
