// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope-cli faithfulness: the perturbation-based faithfulness suite on one text
// (engine/include/attnscope/faithfulness.h); the document is docs/json-format.md's faithfulness export.
#include "common.h"
#include "verbs.h"

#include <attnscope/faithfulness.h>

#include <cstdio>

namespace attncli {

namespace {

// "predicted", "class:N" or "position:P".
bool parseTarget(const QString &text, attn::FaithfulnessSettings &s)
{
    if (text == QLatin1String("predicted")) return true;
    bool ok = false;
    if (text.startsWith(QLatin1String("class:"))) {
        const qlonglong v = text.mid(6).toLongLong(&ok);
        if (!ok || v < 0) return false;
        s.targetClass = v;
        return true;
    }
    if (text.startsWith(QLatin1String("position:"))) {
        const qlonglong v = text.mid(9).toLongLong(&ok);
        if (!ok || v < 0) return false;
        s.targetPosition = v;
        return true;
    }
    return false;
}

} // namespace

int faithfulnessVerb(const QStringList &args)
{
    const QString verb = QStringLiteral("faithfulness");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Compare attention-based importance (a head, the last layer's head mean, rollout, flow) with perturbation\n"
        "importance (leave-one-out by deletion and by key knockout, occlusion), and score every importance with\n"
        "ERASER comprehensiveness/sufficiency/AOPC, deletion/insertion curves, erasure to a decision flip and the\n"
        "faithfulness correlation, each beside random orderings; plus per-head permutation, uniform-attention and\n"
        "ablation tests and the sanity checks (RandomLogit, cascading parameter randomization). Definitions:\n"
        "reference/faithfulness.md; the target is fixed on the unperturbed pass."));
    parser.addOptions({
        {QStringLiteral("model"), kModelHelp, QStringLiteral("M")},
        {QStringLiteral("text"), QStringLiteral("the input text (UTF-8)"), QStringLiteral("T")},
        {QStringLiteral("target"),
         QStringLiteral("predicted | class:N (classifiers) | position:P (language models: predict after P); "
                        "default predicted"),
         QStringLiteral("TARGET"), QStringLiteral("predicted")},
        {QStringLiteral("methods"),
         QStringLiteral("all, or a list of head,head_mean,rollout,flow,loo_deletion,loo_knockout,occlusion"),
         QStringLiteral("LIST"), QStringLiteral("all")},
        {QStringLiteral("head"), QStringLiteral("the head of the 'head' method, L.H (default: last layer, head 0)"),
         QStringLiteral("L.H")},
        {QStringLiteral("removal"),
         QStringLiteral("operator of the ordering metrics: deletion|knockout|mask|unk|pad|zero_embedding, or two "
                        "(OP,OP2: the metrics again with OP2, e.g. deletion,mask); default deletion"),
         QStringLiteral("OP[,OP2]"), QStringLiteral("deletion")},
        {QStringLiteral("baseline"),
         QStringLiteral("occlusion baseline: mask|unk|pad|zero_embedding (default mask when the tokenizer has one)"),
         QStringLiteral("OP")},
        {QStringLiteral("tests"),
         QStringLiteral("per-head tests: all | none | a list of permutation,uniform,ablation,random-logit (default all)"),
         QStringLiteral("LIST"), QStringLiteral("all")},
        {QStringLiteral("metrics"),
         QStringLiteral("all | none: ERASER, curves, flips and the faithfulness correlation (none: importances and "
                        "agreement only; default all)"),
         QStringLiteral("WHICH"), QStringLiteral("all")},
        {QStringLiteral("randomization"),
         QStringLiteral("model-parameter randomization sanity check: cascade (the output head, then head + the top\n"
                        "layers, down to every layer; (layers + 1) x (1 + (n + 1) per LOO method) extra passes) | none;\n"
                        "default cascade"),
         QStringLiteral("MODE"), QStringLiteral("cascade")},
        {QStringLiteral("permutations"), QStringLiteral("attention permutations per head (default 100)"),
         QStringLiteral("N"), QStringLiteral("100")},
        {QStringLiteral("random-seeds"), QStringLiteral("random orderings for the baselines (default 5)"),
         QStringLiteral("N"), QStringLiteral("5")},
        {QStringLiteral("seed"), QStringLiteral("base seed (default 42)"), QStringLiteral("S"), QStringLiteral("42")},
        {QStringLiteral("backend"), QStringLiteral("reference|tiled|unfused|cuda|auto (default auto)"), QStringLiteral("B"),
         QStringLiteral("auto")},
        {QStringLiteral("threads"), QStringLiteral("threads, 0 = all hardware threads (default 0)"), QStringLiteral("N"),
         QStringLiteral("0")},
        {QStringLiteral("timing"), QStringLiteral("print the forward passes and the wall time to stderr (even with --quiet: it was asked for)")},
        {QStringLiteral("out"), QStringLiteral("the JSON file to write, or - for stdout"), QStringLiteral("F.json")},
    });
    addChatterOptions(parser);
    if (auto stop = parseVerbArguments(parser, verb, args)) return *stop;

    const auto bad = [&](const QString &message) {
        printError(verb, message);
        return kExitBadArguments;
    };
    Chatter chatter;
    if (QString error; !readChatter(parser, chatter, error)) return bad(error);
    if (QString error; !requireOptions(parser, {"model", "text", "out"}, error)) return bad(error);

    attn::FaithfulnessSettings s;
    const QString target = parser.value(QStringLiteral("target"));
    if (!parseTarget(target, s))
        return bad(QStringLiteral("--target: '%1' is not predicted, class:N or position:P").arg(target));
    const QString methods = parser.value(QStringLiteral("methods"));
    if (methods != QLatin1String("all")) {
        s.methods.clear();
        for (const QString &m : methods.split(QLatin1Char(','))) {
            const auto kind = attn::parseImportanceKind(m.trimmed().toStdString());
            if (!kind) return bad(QStringLiteral("--methods: %1").arg(QString::fromStdString(kind.status().message())));
            s.methods.push_back(*kind);
        }
    }
    if (parser.isSet(QStringLiteral("head"))) {
        const auto heads = attn::parseHeadList(parser.value(QStringLiteral("head")).toStdString());
        if (!heads || !*heads || (*heads)->size() != 1)
            return bad(QStringLiteral("--head: '%1' is not one head L.H").arg(parser.value(QStringLiteral("head"))));
        s.head = (*heads)->front();
    }
    const QStringList removals = parser.value(QStringLiteral("removal")).split(QLatin1Char(','));
    if (removals.size() > 2) return bad(QStringLiteral("--removal: give one or two operators"));
    for (qsizetype i = 0; i < removals.size(); ++i) {
        const auto removal = attn::parseRemovalOperator(removals[i].trimmed().toStdString());
        if (!removal) return bad(QStringLiteral("--removal: %1").arg(QString::fromStdString(removal.status().message())));
        if (i == 0) s.removal = *removal;
        else s.secondRemoval = *removal;
    }
    if (parser.isSet(QStringLiteral("baseline"))) {
        const auto b = attn::parseRemovalOperator(parser.value(QStringLiteral("baseline")).toStdString());
        if (!b || *b == attn::RemovalOperator::Deletion || *b == attn::RemovalOperator::Knockout)
            return bad(QStringLiteral("--baseline: '%1' is not mask, unk, pad or zero_embedding")
                           .arg(parser.value(QStringLiteral("baseline"))));
        s.occlusionBaseline = *b;
    }
    const QString tests = parser.value(QStringLiteral("tests"));
    if (tests != QLatin1String("all")) {
        s.permutationTest = s.uniformTest = s.headAblation = s.randomLogitCheck = false;
        if (tests != QLatin1String("none"))
            for (const QString &t : tests.split(QLatin1Char(','))) {
                if (t == QLatin1String("permutation")) s.permutationTest = true;
                else if (t == QLatin1String("uniform")) s.uniformTest = true;
                else if (t == QLatin1String("ablation")) s.headAblation = true;
                else if (t == QLatin1String("random-logit")) s.randomLogitCheck = true;
                else return bad(QStringLiteral("--tests: '%1' is not permutation, uniform, ablation or random-logit").arg(t));
            }
    }
    const auto randomization = attn::parseRandomizationMode(parser.value(QStringLiteral("randomization")).toStdString());
    if (!randomization) return bad(QStringLiteral("--randomization: '%1' is not cascade or none").arg(parser.value(QStringLiteral("randomization"))));
    s.randomization = *randomization;
    const QString metrics = parser.value(QStringLiteral("metrics"));
    if (metrics != QLatin1String("all") && metrics != QLatin1String("none"))
        return bad(QStringLiteral("--metrics: '%1' is not all or none").arg(metrics));
    s.orderingMetrics = metrics == QLatin1String("all");
    QString error;
    if (!readInteger(parser, QStringLiteral("permutations"), s.permutations, error, 1) ||
        !readInteger(parser, QStringLiteral("random-seeds"), s.randomSeeds, error, 1) ||
        !readInteger(parser, QStringLiteral("seed"), s.seed, error, std::uint64_t(0)) ||
        !readInteger(parser, QStringLiteral("threads"), s.threads, error, 0))
        return bad(error);
    const QString backend = parser.value(QStringLiteral("backend"));
    const auto parsedBackend = attn::parseBackend(backend.toStdString());
    if (!parsedBackend)
        return bad(QStringLiteral("--backend: unknown backend '%1' (reference|tiled|unfused|cuda|auto)").arg(backend));
    s.backend = *parsedBackend;

    progress(chatter, verb, QStringLiteral("opening %1").arg(parser.value(QStringLiteral("model"))));
    const auto opened = openModelOrReport(verb, parser.value(QStringLiteral("model")), true);
    if (!opened) return kExitError;
    if (s.head)
        if (attn::Status st = attn::checkHeadList({*s.head}, opened->model.config()); !st)
            return bad(QStringLiteral("--head: %1").arg(QString::fromStdString(st.message())));
    const auto tokens = opened->textModel->tokenize(parser.value(QStringLiteral("text")).toStdString());
    if (!tokens) {
        printError(verb, QStringLiteral("--text: %1").arg(QString::fromStdString(tokens.status().message())));
        return kExitError;
    }
    progress(chatter, verb, QStringLiteral("scoring %1 tokens (many forward passes)").arg(tokens->ids.size()));
    const auto result = attn::runFaithfulness(*opened->textModel, *tokens, s);
    if (!result) {
        printError(verb, QString::fromStdString(result.status().message()));
        return kExitError;
    }
    if (parser.isSet(QStringLiteral("timing")))
        std::fprintf(stderr, "faithfulness: %d scored tokens of %zu, %lld forward passes, %.3f s\n", result->scoredTokens,
                     tokens->ids.size(), static_cast<long long>(result->forwardPasses), result->seconds);
    const std::string json = attn::faithfulnessExportJson(*opened->textModel, s, *result);
    if (!writeOutput(verb, parser.value(QStringLiteral("out")), json)) return kExitError;
    if (parser.value(QStringLiteral("out")) != QLatin1String("-"))
        progress(chatter, verb, QStringLiteral("wrote %1").arg(parser.value(QStringLiteral("out"))));
    return kExitOk;
}

} // namespace attncli
