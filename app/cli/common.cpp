// SPDX-License-Identifier: GPL-3.0-or-later
#include "common.h"

#include <attnscope/textmodel.h>

#include <cstdio>

namespace attncli {

const QString kModelHelp = QStringLiteral("a model folder, sample:NAME, or random:layers=L,heads=H,d_model=D,seed=S");

void printError(const QString &verb, const QString &message)
{
    std::fprintf(stderr, "attnscope-cli %s: %s\n", qPrintable(verb), qPrintable(message));
}

std::optional<attn::OpenedModel> openModelOrReport(const QString &verb, const QString &spec, bool requireTokenizer)
{
    auto opened = attn::openModel(spec.toStdString(), requireTokenizer);
    if (!opened) {
        printError(verb, QStringLiteral("--model %1: %2").arg(spec, QString::fromStdString(opened.status().message())));
        return std::nullopt;
    }
    return std::move(opened).value();
}

std::optional<attn::TokenizedText> tokenizeOrReport(const QString &verb, const attn::TextModel &model, const QString &text,
                                                    const attn::TokenizeOptions &options)
{
    auto tokens = model.tokenize(text.toStdString(), options);
    if (!tokens) {
        printError(verb, QStringLiteral("--text: %1").arg(QString::fromStdString(tokens.status().message())));
        return std::nullopt;
    }
    return std::move(tokens).value();
}

void progress(const Chatter &chatter, const QString &verb, const QString &message)
{
    if (!chatter.progress) return;
    std::fprintf(stderr, "attnscope-cli %s: %s\n", qPrintable(verb), qPrintable(message));
    std::fflush(stderr);
}

bool writeOutput(const QString &verb, const QString &out, const std::string &text, const Chatter &chatter)
{
    if (out == QLatin1String("-")) {
        if (attn::Status s = attn::writeStdout(text); !s) {
            printError(verb, QString::fromStdString(s.message()));
            return false;
        }
        return true;
    }
    if (attn::Status s = attn::writeFileAtomically(out.toStdString(), text); !s) {
        printError(verb, QString::fromStdString(s.message()));
        return false;
    }
    progress(chatter, verb, QStringLiteral("wrote %1").arg(out));
    return true;
}

} // namespace attncli
