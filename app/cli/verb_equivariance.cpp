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
    const QString verb = QStringLiteral("equivariance");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Run the model on a text X and on a permutation PX of its tokens, and compare A(PX) with P·A(X)·Pᵀ and\n"
        "Y(PX) with P·Y(X) (Y: the final hidden state). Without positional information and with a bidirectional\n"
        "mask the errors are float noise; positions or a causal mask break equivariance and the errors say how much.\n"
        "Special tokens ([CLS], [SEP]) keep their places under reverse and random permutations."));
    parser.addOptions({
        {QStringLiteral("model"), kModelHelp, QStringLiteral("M")},
        {QStringLiteral("text"), QStringLiteral("the input text (UTF-8)"), QStringLiteral("T")},
        {QStringLiteral("perm"),
         QStringLiteral("reverse | random:SEED | swap:I,J | i,j,k,... (a full permutation; default reverse)"),
         QStringLiteral("PERM"), QStringLiteral("reverse")},
        {QStringLiteral("pe"),
         QStringLiteral("model | none | sinusoidal | rope (the last two: random: models only; default model)"),
         QStringLiteral("PE"), QStringLiteral("model")},
        {QStringLiteral("mask"),
         QStringLiteral("model|bidirectional|causal|window:W|causal-window:W (default model: the model's own)"),
         QStringLiteral("MASK"), QStringLiteral("model")},
        {QStringLiteral("scope"), QStringLiteral("head:L.H | layer:L | model (default model: every head)"),
         QStringLiteral("SCOPE"), QStringLiteral("model")},
        {QStringLiteral("backend"), QStringLiteral("reference|tiled|unfused|cuda|auto (default auto)"), QStringLiteral("B"),
         QStringLiteral("auto")},
        {QStringLiteral("threads"), QStringLiteral("threads, 0 = all hardware threads (default 0)"), QStringLiteral("N"),
         QStringLiteral("0")},
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
    const auto fail = [&](const char *option, const attn::Status &s) {
        return bad(QStringLiteral("--%1: %2").arg(QLatin1String(option), QString::fromStdString(s.message())));
    };

    attn::EquivarianceSettings settings;
    const auto perm = attn::parsePermutationSpec(parser.value(QStringLiteral("perm")).toStdString());
    if (!perm) return fail("perm", perm.status());
    settings.permutation = *perm;
    const auto pe = attn::parsePositionalChoice(parser.value(QStringLiteral("pe")).toStdString());
    if (!pe) return fail("pe", pe.status());
    settings.positional = *pe;
    const auto mask = attn::parseMaskChoice(parser.value(QStringLiteral("mask")).toStdString());
    if (!mask) return fail("mask", mask.status());
    settings.mask = *mask;
    const auto scope = attn::parseEquivarianceScope(parser.value(QStringLiteral("scope")).toStdString());
    if (!scope) return fail("scope", scope.status());
    settings.scope = *scope;
    const QString backend = parser.value(QStringLiteral("backend"));
    const auto parsedBackend = attn::parseBackend(backend.toStdString());
    if (!parsedBackend)
        return bad(QStringLiteral("--backend: unknown backend '%1' (reference|tiled|unfused|cuda|auto)").arg(backend));
    settings.backend = *parsedBackend;
    QString error;
    if (!readInteger(parser, QStringLiteral("threads"), settings.threads, error, 0)) return bad(error);

    progress(chatter, verb, QStringLiteral("opening %1").arg(parser.value(QStringLiteral("model"))));
    const auto opened = openModelOrReport(verb, parser.value(QStringLiteral("model")), true);
    if (!opened) return kExitError;
    const attn::ModelConfig &c = opened->model.config();
    // Scope and --pe are arguments, but only the model knows its size and kind.
    if (scope->kind == attn::EquivarianceScope::Kind::Layer && scope->layer >= c.layers)
        return bad(QStringLiteral("--scope: layer %1 is outside the model's %2 layers").arg(scope->layer).arg(c.layers));
    if (scope->kind == attn::EquivarianceScope::Kind::Head && (scope->head.layer >= c.layers || scope->head.head >= c.heads))
        return bad(QStringLiteral("--scope: head %1.%2 is outside the model's %3 layers × %4 heads")
                       .arg(scope->head.layer).arg(scope->head.head).arg(c.layers).arg(c.heads));
    if ((*pe == attn::PositionalChoice::Sinusoidal || *pe == attn::PositionalChoice::Rope) &&
        c.architecture != attn::Architecture::Synthetic)
        return bad(QStringLiteral("--pe: %1 is only available for random: models; use model or none")
                       .arg(QString::fromStdString(attn::positionalChoiceName(*pe))));

    const std::string text = parser.value(QStringLiteral("text")).toStdString();
    const auto tokens = opened->textModel->tokenize(text);
    if (!tokens) {
        printError(verb, QStringLiteral("--text: %1").arg(QString::fromStdString(tokens.status().message())));
        return kExitError;
    }
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
    if (!writeOutput(verb, parser.value(QStringLiteral("out")), json)) return kExitError;
    if (parser.value(QStringLiteral("out")) != QLatin1String("-"))
        progress(chatter, verb, QStringLiteral("wrote %1").arg(parser.value(QStringLiteral("out"))));
    return kExitOk;
}

} // namespace attncli
