// SPDX-License-Identifier: GPL-3.0-or-later
// attnscope-cli equivariance: the model on a text and on a permutation of it, compared under the permutation
// (engine/include/attnscope/equivariance.h); the document is docs/json-format.md's equivariance export.
#include "common.h"
#include "verbs.h"

#include <attnscope/equivariance.h>

#include <cstdio>

namespace attncli {

int equivarianceVerb(const QStringList &args)
{
    VerbOptions opts(QStringLiteral("equivariance"), QStringLiteral(
        "Run the model on a text X and on a permutation PX of its tokens, and compare A(PX) with P·A(X)·Pᵀ and\n"
        "Y(PX) with P·Y(X) (Y: the final hidden state). Without positional information and with a bidirectional\n"
        "mask the errors are float noise; positions or a causal mask break equivariance and the errors say how much.\n"
        "Special tokens ([CLS], [SEP]) keep their places under reverse and random permutations."));
    using T = OptionType;
    opts.use({"model", "text", "truncate"});
    opts.add({
        {"perm", T::Text, "PERM", "reverse | random:SEED | swap:I,J | i,j,k,... (a full permutation)", "reverse"},
        {"pe", T::Text, "PE", "model | none | sinusoidal | rope (the last two: random: models only)", "model"},
    });
    opts.use({"mask"});
    opts.add({{"scope", T::Text, "SCOPE", "head:L.H | layer:L | model (model: every head)", "model"}});
    opts.use({"backend", "threads", "out", "quiet", "progress"});
    if (auto stop = opts.parse(args)) return *stop;

    const QString verb = opts.verb();
    Chatter chatter;
    attn::EquivarianceSettings settings;
    if (!opts.readChatter(chatter) || !opts.require({"model", "text", "out"}) || !opts.readMask(settings.mask) ||
        !opts.readBackend(settings.backend) || !opts.read("threads", settings.threads))
        return opts.fail();
    const auto fail = [&](const char *option, const attn::Status &s) {
        return opts.fail(QStringLiteral("--%1: %2").arg(QLatin1String(option), QString::fromStdString(s.message())));
    };
    const auto perm = attn::parsePermutationSpec(opts.value("perm").toStdString());
    if (!perm) return fail("perm", perm.status());
    settings.permutation = *perm;
    const auto pe = attn::parsePositionalChoice(opts.value("pe").toStdString());
    if (!pe) return fail("pe", pe.status());
    settings.positional = *pe;
    const auto scope = attn::parseEquivarianceScope(opts.value("scope").toStdString());
    if (!scope) return fail("scope", scope.status());
    settings.scope = *scope;

    progress(chatter, verb, QStringLiteral("opening %1").arg(opts.value("model")));
    const auto opened = openModelOrReport(verb, opts.value("model"), true);
    if (!opened) return kExitError;
    const attn::ModelConfig &c = opened->model.config();
    // Scope and --pe are arguments, but only the model knows its size and kind.
    if (scope->kind == attn::EquivarianceScope::Kind::Layer && scope->layer >= c.layers)
        return opts.fail(QStringLiteral("--scope: layer %1 is outside the model's %2 layers").arg(scope->layer).arg(c.layers));
    if (scope->kind == attn::EquivarianceScope::Kind::Head && (scope->head.layer >= c.layers || scope->head.head >= c.heads))
        return opts.fail(QStringLiteral("--scope: head %1.%2 is outside the model's %3 layers × %4 heads")
                             .arg(scope->head.layer).arg(scope->head.head).arg(c.layers).arg(c.heads));
    if ((*pe == attn::PositionalChoice::Sinusoidal || *pe == attn::PositionalChoice::Rope) &&
        c.architecture != attn::Architecture::Synthetic)
        return opts.fail(QStringLiteral("--pe: %1 is only available for random: models; use model or none")
                             .arg(QString::fromStdString(attn::positionalChoiceName(*pe))));

    attn::TokenizeOptions tokenize;
    tokenize.truncate = opts.isSet("truncate");
    const auto tokens = tokenizeOrReport(verb, *opened->textModel, opts.value("text"), tokenize);
    if (!tokens) return kExitError;
    progress(chatter, verb, QStringLiteral("comparing the permuted and the original run (%1 tokens)").arg(tokens->ids.size()));
    const auto result = attn::runEquivariance(*opened->textModel, *tokens, settings);
    if (!result) {
        // A permutation that does not fit the text's tokens is a bad argument; anything else is an error.
        const bool argument = result.status().message().rfind("permutation", 0) == 0;
        printError(verb, (argument ? QStringLiteral("--perm: %1") : QStringLiteral("%1"))
                             .arg(QString::fromStdString(result.status().message())));
        return argument ? kExitBadArguments : kExitError;
    }
    const std::string json = attn::equivarianceExportJson(*opened->textModel, settings, *result);
    return writeOutput(verb, opts.value("out"), json, chatter) ? kExitOk : kExitError;
}

} // namespace attncli
