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

void addFaithfulnessOptions(VerbOptions &opts)
{
    using T = OptionType;
    opts.add({
        {"methods", T::Text, "LIST", "all, or a list of head,head_mean,rollout,flow,loo_deletion,loo_knockout,occlusion",
         "all"},
        {"head", T::Text, "L.H", "the head of the 'head' method, counted from 0 (default: last layer, head 0)", {}},
        {"removal", T::Text, "OP[,OP2]",
         "operator of the ordering metrics: deletion|knockout|mask|unk|pad|zero_embedding, or two (OP,OP2: the "
         "metrics again with OP2, e.g. deletion,mask)", "deletion"},
        {"baseline", T::Text, "OP",
         "occlusion baseline: mask|unk|pad|zero_embedding (default mask when the tokenizer has one)", {}},
        {"tests", T::Text, "LIST", "per-head tests: all | none | a list of permutation,uniform,ablation,random-logit",
         "all"},
        {"metrics", T::Text, "WHICH",
         "all | none: ERASER, curves, flips and the faithfulness correlation (none: importances and agreement only)",
         "all"},
        {"randomization", T::Text, "MODE",
         "model-parameter randomization sanity check: cascade (the output head, then head + the top\n"
         "layers, down to every layer; (layers + 1) x (1 + (n + 1) per LOO method) extra passes) | none", "cascade"},
        {"permutations", T::Integer, "N", "attention permutations per head", "100", 1, 100000},
        {"random-seeds", T::Integer, "N", "random orderings for the baselines", "5", 1, 10000},
    });
}

bool readFaithfulnessOptions(VerbOptions &opts, attn::FaithfulnessSettings &s)
{
    const QString methods = opts.value("methods");
    if (methods != QLatin1String("all")) {
        s.methods.clear();
        for (const QString &m : methods.split(QLatin1Char(','))) {
            const auto kind = attn::parseImportanceKind(m.trimmed().toStdString());
            if (!kind) return opts.reject(QStringLiteral("--methods: %1").arg(QString::fromStdString(kind.status().message())));
            s.methods.push_back(*kind);
        }
    }
    if (opts.isSet("head")) {
        const auto heads = attn::parseHeadList(opts.value("head").toStdString());
        if (!heads || !*heads || (*heads)->size() != 1)
            return opts.reject(QStringLiteral("--head: '%1' is not one head L.H").arg(opts.value("head")));
        s.head = (*heads)->front();
    }
    const QStringList removals = opts.value("removal").split(QLatin1Char(','));
    if (removals.size() > 2) return opts.reject(QStringLiteral("--removal: give one or two operators"));
    for (qsizetype i = 0; i < removals.size(); ++i) {
        const auto removal = attn::parseRemovalOperator(removals[i].trimmed().toStdString());
        if (!removal) return opts.reject(QStringLiteral("--removal: %1").arg(QString::fromStdString(removal.status().message())));
        if (i == 0) s.removal = *removal;
        else s.secondRemoval = *removal;
    }
    if (opts.isSet("baseline")) {
        const auto b = attn::parseRemovalOperator(opts.value("baseline").toStdString());
        if (!b || *b == attn::RemovalOperator::Deletion || *b == attn::RemovalOperator::Knockout)
            return opts.reject(QStringLiteral("--baseline: '%1' is not mask, unk, pad or zero_embedding").arg(opts.value("baseline")));
        s.occlusionBaseline = *b;
    }
    const QString tests = opts.value("tests");
    if (tests != QLatin1String("all")) {
        s.permutationTest = s.uniformTest = s.headAblation = s.randomLogitCheck = false;
        if (tests != QLatin1String("none"))
            for (const QString &t : tests.split(QLatin1Char(','))) {
                if (t == QLatin1String("permutation")) s.permutationTest = true;
                else if (t == QLatin1String("uniform")) s.uniformTest = true;
                else if (t == QLatin1String("ablation")) s.headAblation = true;
                else if (t == QLatin1String("random-logit")) s.randomLogitCheck = true;
                else return opts.reject(QStringLiteral("--tests: '%1' is not permutation, uniform, ablation or random-logit").arg(t));
            }
    }
    const auto randomization = attn::parseRandomizationMode(opts.value("randomization").toStdString());
    if (!randomization) return opts.reject(QStringLiteral("--randomization: '%1' is not cascade or none").arg(opts.value("randomization")));
    s.randomization = *randomization;
    const QString metrics = opts.value("metrics");
    if (metrics != QLatin1String("all") && metrics != QLatin1String("none"))
        return opts.reject(QStringLiteral("--metrics: '%1' is not all or none").arg(metrics));
    s.orderingMetrics = metrics == QLatin1String("all");
    return opts.read("permutations", s.permutations) && opts.read("random-seeds", s.randomSeeds);
}

int faithfulnessVerb(const QStringList &args)
{
    VerbOptions opts(QStringLiteral("faithfulness"), QStringLiteral(
        "Compare attention-based importance (a head, the last layer's head mean, rollout, flow) with perturbation\n"
        "importance (leave-one-out by deletion and by key knockout, occlusion), and score every importance with\n"
        "ERASER comprehensiveness/sufficiency/AOPC, deletion/insertion curves, erasure to a decision flip and the\n"
        "faithfulness correlation, each beside random orderings; plus per-head permutation, uniform-attention and\n"
        "ablation tests and the sanity checks (RandomLogit, cascading parameter randomization). Definitions:\n"
        "reference/faithfulness.md; the target is fixed on the unperturbed pass."));
    using T = OptionType;
    opts.use({"model", "text", "truncate"});
    opts.add({
        {"target", T::Text, "TARGET",
         "predicted | class:N (classifiers) | position:P (language models: predict after P)", "predicted"},
    });
    addFaithfulnessOptions(opts);
    opts.add({{"seed", T::Integer, "S", "base seed", "42", 0, kNoLimit}});
    opts.use({"backend", "threads"});
    opts.add({{"timing", T::Flag, {},
               "print the forward passes and the wall time to stderr (even with --quiet: it was asked for)", {}}});
    opts.use({"out", "quiet", "progress"});
    if (auto stop = opts.parse(args)) return *stop;

    const QString verb = opts.verb();
    Chatter chatter;
    attn::FaithfulnessSettings s;
    if (!opts.readChatter(chatter) || !opts.require({"model", "text", "out"})) return opts.fail();
    const QString target = opts.value("target");
    if (!parseTarget(target, s))
        return opts.fail(QStringLiteral("--target: '%1' is not predicted, class:N or position:P").arg(target));
    if (!readFaithfulnessOptions(opts, s)) return opts.fail();
    if (!opts.read("seed", s.seed) || !opts.read("threads", s.threads) || !opts.readBackend(s.backend))
        return opts.fail();

    progress(chatter, verb, QStringLiteral("opening %1").arg(opts.value("model")));
    const auto opened = openModelOrReport(verb, opts.value("model"), true);
    if (!opened) return kExitError;
    if (s.head)
        if (attn::Status st = attn::checkHeadList({*s.head}, opened->model.config()); !st)
            return opts.fail(QStringLiteral("--head: %1").arg(QString::fromStdString(st.message())));
    attn::TokenizeOptions tokenize;
    tokenize.truncate = opts.isSet("truncate");
    const auto tokens = tokenizeOrReport(verb, *opened->textModel, opts.value("text"), tokenize);
    if (!tokens) return kExitError;
    progress(chatter, verb, QStringLiteral("scoring %1 tokens (many forward passes)").arg(tokens->ids.size()));
    const auto result = attn::runFaithfulness(*opened->textModel, *tokens, s);
    if (!result) {
        printError(verb, QString::fromStdString(result.status().message()));
        return kExitError;
    }
    if (opts.isSet("timing"))
        std::fprintf(stderr, "faithfulness: %d scored tokens of %zu, %lld forward passes, %.3f s\n", result->scoredTokens,
                     tokens->ids.size(), static_cast<long long>(result->forwardPasses), result->seconds);
    const std::string json = attn::faithfulnessExportJson(*opened->textModel, s, *result);
    return writeOutput(verb, opts.value("out"), json, chatter) ? kExitOk : kExitError;
}

} // namespace attncli
