// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope-cli map: the exact attention map of one head of a model for inputs far too long to hold its weights
// (attentionmap.h). The model runs up to the head's layer (ForwardOptions::stopAtLayer: O(n·d) memory), then the
// head's overview grid of block masses and block maxima, or the exact weights of one window, goes to .npy files.
#include "common.h"
#include "verbs.h"

#include <system_info.h>

#include <attnscope/attentionmap.h>
#include <attnscope/export.h>
#include <attnscope/fileio.h>
#include <attnscope/limits.h>
#include <attnscope/textmodel.h>

#include <QElapsedTimer>
#include <QRegularExpression>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace attncli {

namespace {

// The seeded ids of --n: SplitMix64 over (seed, position), reduced to the vocabulary. A function of the seed and
// the position only, so the first k ids of --n N are those of --n k.
std::vector<std::int64_t> randomIds(std::int64_t n, std::uint64_t seed, std::int64_t vocab)
{
    std::vector<std::int64_t> ids(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(i + 1);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        ids[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(z % static_cast<std::uint64_t>(vocab));
    }
    return ids;
}

struct Window {
    std::int64_t q0 = 0, q1 = 0, k0 = 0, k1 = 0;
};

// "q0:q1,k0:k1", 0-based and half-open.
std::optional<Window> parseWindow(const QString &text)
{
    static const QRegularExpression form(QStringLiteral("^(\\d+):(\\d+),(\\d+):(\\d+)$"));
    const auto m = form.match(text.trimmed());
    if (!m.hasMatch()) return std::nullopt;
    bool ok[4];
    Window w{m.captured(1).toLongLong(&ok[0]), m.captured(2).toLongLong(&ok[1]), m.captured(3).toLongLong(&ok[2]),
             m.captured(4).toLongLong(&ok[3])};
    if (!(ok[0] && ok[1] && ok[2] && ok[3])) return std::nullopt;
    return w;
}

// "F.npy" → "F.max.npy" beside it; a name without ".npy" gets ".max.npy" appended.
std::string maxFileName(const std::string &out)
{
    const std::string suffix = ".npy";
    if (out.size() > suffix.size() && out.compare(out.size() - suffix.size(), suffix.size(), suffix) == 0)
        return out.substr(0, out.size() - suffix.size()) + ".max.npy";
    return out + ".max.npy";
}

} // namespace

int mapVerb(const QStringList &args)
{
    QElapsedTimer clock;
    clock.start();
    VerbOptions opts(QStringLiteral("map"), QStringLiteral(
        "The exact attention map of one head for long inputs, never holding n x n: the model runs up to the head's\n"
        "layer, then a G x G grid of block masses (the sum of the weights over each block's queries and keys; block\n"
        "b spans [floor(b*n/G), floor((b+1)*n/G)), G = min(G, n), rows are query blocks) goes to --out and the block\n"
        "maxima to F.max.npy beside it (both float32). With --window, the exact weights of that window instead.\n"
        "Exactly one of --text, --ids and --n. Nothing on stdout unless --json."));
    using T = OptionType;
    opts.use({"model", "text", "ids"});
    opts.add({
        {"n", T::Integer, "N", "N seeded random token ids instead of a text (see --seed)", {}, 1, 1 << 24},
        {"seed", T::Integer, "S", "the seed of --n's ids", "0", 0, kNoLimit},
        {"head", T::Text, "L.H", "the head to map, layer and head counted from 0", {}},
    });
    opts.use({"mask"});
    opts.add({
        {"grid", T::Integer, "G", "overview cells per axis (at most n)", "1024", 1, 8192},
        {"window", T::Text, "q0:q1,k0:k1", "the exact weights of queries [q0, q1) x keys [k0, k1) (0-based, half-open) "
                                           "instead of the overview", {}},
    });
    opts.use({"threads", {"out", QStringLiteral("the .npy file to write (float32 [G, G], or the window's [q1-q0, k1-k0])")}});
    opts.add({{"json", T::Flag, {}, "print one JSON line on stdout: n, grid, ms_first_view, peak_rss_mib, threads, ...",
               {}}});
    opts.use({"quiet", "progress"});
    if (auto stop = opts.parse(args)) return *stop;

    const QString verb = opts.verb();
    Chatter chatter;
    if (!opts.readChatter(chatter) || !opts.require({"model", "head", "out"})) return opts.fail();
    const int inputs = int(opts.isSet("text")) + int(opts.isSet("ids")) + int(opts.isSet("n"));
    if (inputs != 1) return opts.fail(QStringLiteral("give exactly one of --text, --ids and --n"));
    std::int64_t n = 0, grid = 1024;
    std::uint64_t seed = 0;
    int threads = 0;
    std::vector<std::int64_t> ids;
    attn::MaskChoice mask;
    if (!opts.read("n", n) || !opts.read("seed", seed) || !opts.read("grid", grid) || !opts.read("threads", threads) ||
        !opts.readIds(ids) || !opts.readMask(mask))
        return opts.fail();
    if (opts.isSet("seed") && !opts.isSet("n")) return opts.fail(QStringLiteral("--seed: applies to --n only"));
    const auto heads = attn::parseHeadList(opts.value("head").toStdString());
    if (!heads || !*heads || (*heads)->size() != 1)
        return opts.fail(QStringLiteral("--head: '%1' is not one head L.H (layer and head counted from 0)").arg(opts.value("head")));
    const attn::HeadRef head = (**heads)[0];
    std::optional<Window> window;
    if (opts.isSet("window")) {
        window = parseWindow(opts.value("window"));
        if (!window) return opts.fail(QStringLiteral("--window: '%1' is not q0:q1,k0:k1 (0-based, half-open)").arg(opts.value("window")));
        if (window->q0 >= window->q1 || window->k0 >= window->k1)
            return opts.fail(QStringLiteral("--window: '%1' is empty (q0 < q1 and k0 < k1)").arg(opts.value("window")));
    }
    const QString out = opts.value("out");
    if (out == QLatin1String("-")) return opts.fail(QStringLiteral("--out: a .npy file, not stdout"));

    progress(chatter, verb, QStringLiteral("opening %1").arg(opts.value("model")));
    const auto opened = openModelOrReport(verb, opts.value("model"), opts.isSet("text"));
    if (!opened) return kExitError;
    const attn::ModelConfig &config = opened->model.config();
    if (attn::Status s = attn::checkHeadList({head}, config); !s)
        return opts.fail(QStringLiteral("--head: %1").arg(QString::fromStdString(s.message())));

    attn::ForwardInput input;
    if (opts.isSet("text")) {
        auto tokens = tokenizeOrReport(verb, *opened->textModel, opts.value("text"));
        if (!tokens) return kExitError;
        input.tokenIds = std::move(tokens->ids);
    } else if (opts.isSet("n")) {
        input.tokenIds = randomIds(n, seed, config.vocabSize);
    } else {
        input.tokenIds = ids;
    }
    n = static_cast<std::int64_t>(input.tokenIds.size());
    if (window && (window->q1 > n || window->k1 > n))
        return opts.fail(QStringLiteral("--window: '%1' reaches past the %2 tokens").arg(opts.value("window")).arg(n));
    // What the map holds besides the model: Q, K, V and the layer's activations (O(n·d)), the grid, or the window.
    const std::uint64_t un = static_cast<std::uint64_t>(n);
    std::uint64_t need = attn::estimateWeightBytes(config) +
                         4 * un * static_cast<std::uint64_t>(8 * config.dModel + config.intermediate);
    need += window ? 4 * static_cast<std::uint64_t>(window->q1 - window->q0) * static_cast<std::uint64_t>(window->k1 - window->k0)
                   : 8 * static_cast<std::uint64_t>(std::min(grid, n)) * static_cast<std::uint64_t>(std::min(grid, n));
    if (const auto budget = attn::memoryBudget(); budget && need > *budget)
        return opts.fail(QStringLiteral("%1 need %2, %3 %4 (--max-memory GIB sets another budget)")
                             .arg(window ? QStringLiteral("the window and the model's activations")
                                         : QStringLiteral("the model's activations and the grid"),
                                  QString::fromStdString(attn::formatGib(need)), QString::fromStdString(attn::formatGib(*budget)),
                                  opts.isSet("max-memory") ? QStringLiteral("allowed") : QStringLiteral("available")));

    attn::ForwardOptions fo;
    fo.threads = threads;
    fo.maskOverride = mask.override();
    fo.stopAtLayer = head.layer;
    fo.computeLogits = false;
    progress(chatter, verb, QStringLiteral("running the model up to layer %1 (%2 tokens)").arg(head.layer).arg(n));
    auto forward = opened->model.forward(input, fo);
    if (!forward) {
        printError(verb, QString::fromStdString(forward.status().message()));
        return kExitError;
    }
    const double msForward = clock.nsecsElapsed() / 1e6;
    const attn::AttentionInputs &operands = forward->attentionInputs;

    attn::AttentionMapOptions mo;
    mo.head = head.head;
    mo.grid = grid;
    mo.scale = operands.scale;
    mo.softcap = operands.softcap;
    mo.threads = threads;
    int lastPercent = -1;
    if (chatter.progress)
        mo.progress = [&](double f) {
            const int percent = static_cast<int>(f * 100.0);
            if (percent / 10 == lastPercent / 10) return;
            lastPercent = percent;
            progress(chatter, verb, QStringLiteral("map %1 %").arg(percent));
        };

    attn::FileTransaction files;
    const std::string outPath = out.toStdString();
    std::string maxPath;
    nlohmann::ordered_json line;
    line["n"] = n;
    line["layer"] = head.layer;
    line["head"] = head.head;
    line["mask"] = mask.kindName();
    if (window) {
        auto w = attn::attentionMapWindow(operands.queries(), operands.keys(), operands.mask, nullptr, window->q0,
                                          window->q1, window->k0, window->k1, mo);
        if (!w) {
            printError(verb, QString::fromStdString(w.status().message()));
            return kExitError;
        }
        files.add(outPath, attn::npyFloat32({window->q1 - window->q0, window->k1 - window->k0}, {w->P.data()}, w->P.size()));
        line["grid"] = nullptr;
        line["window"] = {window->q0, window->q1, window->k0, window->k1};
    } else {
        auto overview = attn::attentionMapOverview(operands.queries(), operands.keys(), operands.mask, mo);
        if (!overview) {
            printError(verb, QString::fromStdString(overview.status().message()));
            return kExitError;
        }
        const std::vector<std::int64_t> shape{overview->gridRows, overview->gridCols};
        maxPath = maxFileName(outPath);
        files.add(outPath, attn::npyFloat32(shape, {overview->mass.data()}, overview->mass.size()));
        files.add(maxPath, attn::npyFloat32(shape, {overview->max.data()}, overview->max.size()));
        line["grid"] = overview->gridRows;
        std::int64_t masked = 0;
        for (float l : overview->rows.l) masked += l == 0.0f;
        line["rows_without_keys"] = masked;
    }
    if (attn::Status s = files.commit(); !s) {
        printError(verb, QString::fromStdString(s.message()));
        return kExitError;
    }
    const double msFirstView = clock.nsecsElapsed() / 1e6;
    progress(chatter, verb, maxPath.empty() ? QStringLiteral("wrote %1").arg(out)
                                            : QStringLiteral("wrote %1 and %2").arg(out, QString::fromStdString(maxPath)));
    if (!opts.isSet("json")) return kExitOk;
    const auto r1 = [](double x) { return std::round(x * 10.0) / 10.0; };
    line["ms_forward"] = r1(msForward);
    line["ms_first_view"] = r1(msFirstView);
    line["peak_rss_mib"] = r1(attn::bench::peakRssMib());
    line["threads"] = threads > 0 ? threads : attn::hardwareThreads();
    line["out"] = outPath;
    line["max_out"] = maxPath.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(maxPath);
    if (attn::Status s = attn::writeStdout(line.dump() + "\n"); !s) {
        printError(verb, QString::fromStdString(s.message()));
        return kExitError;
    }
    return kExitOk;
}

} // namespace attncli
