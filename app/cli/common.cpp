// SPDX-License-Identifier: GPL-3.0-or-later
#include "common.h"

#include <cstdio>

#include <unistd.h>

namespace attncli {

const QString kModelHelp = QStringLiteral("a model folder, sample:NAME, or random:layers=L,heads=H,d_model=D,seed=S");

void printError(const QString &verb, const QString &message)
{
    std::fprintf(stderr, "attnscope-cli %s: %s\n", qPrintable(verb), qPrintable(message));
}

bool readDouble(const QCommandLineParser &parser, const QString &name, double &value, QString &error, double minimum)
{
    if (!parser.isSet(name)) return true;
    const QString text = parser.value(name);
    bool ok = false;
    const double parsed = text.toDouble(&ok);
    if (!ok || !(parsed >= minimum)) {
        error = QStringLiteral("--%1: '%2' is not a number >= %3").arg(name, text).arg(minimum);
        return false;
    }
    value = parsed;
    return true;
}

// Parses `args` (args[0] is "attnscope-cli VERB"); returns an exit code when the verb should stop now
// (help printed, or bad arguments reported), nothing when it should go on.
std::optional<int> parseVerbArguments(QCommandLineParser &parser, const QString &verb, const QStringList &args)
{
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help = parser.addHelpOption();
    if (!parser.parse(args)) {
        printError(verb, parser.errorText());
        return kExitBadArguments;
    }
    if (parser.isSet(help)) {
        // Qt's usage line names the executable's path only; scripts copy the verb too.
        QString text = parser.helpText();
        const qsizetype firstLineEnd = text.indexOf(QLatin1Char('\n'));
        text.replace(0, firstLineEnd, QStringLiteral("Usage: attnscope-cli %1 [options]").arg(verb));
        std::fputs(qPrintable(text), stdout);
        return kExitOk;
    }
    if (!parser.positionalArguments().isEmpty()) {
        printError(verb, QStringLiteral("unexpected argument '%1'").arg(parser.positionalArguments().first()));
        return kExitBadArguments;
    }
    return std::nullopt;
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

void addChatterOptions(QCommandLineParser &parser)
{
    parser.addOptions({
        {QStringLiteral("quiet"), QStringLiteral("print nothing on stderr but errors")},
        {QStringLiteral("progress"),
         QStringLiteral("print progress on stderr even when it is not a terminal (default: only on a terminal)")},
    });
}

bool requireOptions(const QCommandLineParser &parser, std::initializer_list<const char *> names, QString &error)
{
    for (const char *name : names)
        if (!parser.isSet(QString::fromLatin1(name))) {
            error = QStringLiteral("--%1 is required").arg(QLatin1String(name));
            return false;
        }
    return true;
}

bool readChatter(const QCommandLineParser &parser, Chatter &chatter, QString &error)
{
    chatter.quiet = parser.isSet(QStringLiteral("quiet"));
    const bool forced = parser.isSet(QStringLiteral("progress"));
    if (chatter.quiet && forced) {
        error = QStringLiteral("--quiet and --progress: give at most one");
        return false;
    }
    chatter.progress = forced || (!chatter.quiet && ::isatty(STDERR_FILENO));
    return true;
}

void progress(const Chatter &chatter, const QString &verb, const QString &message)
{
    if (!chatter.progress) return;
    std::fprintf(stderr, "attnscope-cli %s: %s\n", qPrintable(verb), qPrintable(message));
    std::fflush(stderr);
}

bool writeOutput(const QString &verb, const QString &out, const std::string &text)
{
    if (out == QLatin1String("-")) {
        std::fwrite(text.data(), 1, text.size(), stdout);
        return true;
    }
    if (attn::Status s = attn::writeFileAtomically(out.toStdString(), text); !s) {
        printError(verb, QString::fromStdString(s.message()));
        return false;
    }
    return true;
}

} // namespace attncli
