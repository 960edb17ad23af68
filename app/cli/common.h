// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What every attnscope-cli verb shares: exit codes, error printing, option parsing with ranges, opening --model.
// Each verb lives in its own file and registers in main.cpp's table (verbs.h declares them).

#include <attnscope/export.h>

#include <QCommandLineParser>
#include <QString>
#include <QStringList>

#include <initializer_list>
#include <limits>
#include <optional>

namespace attncli {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitBadArguments = 2;

extern const QString kModelHelp;

// "attnscope-cli VERB: message" on stderr.
void printError(const QString &verb, const QString &message);

// Integer option with a range; on failure `error` names the option and the offending text.
template <typename T>
bool readInteger(const QCommandLineParser &parser, const QString &name, T &value, QString &error,
                 T minimum = std::numeric_limits<T>::min())
{
    if (!parser.isSet(name)) return true;
    const QString text = parser.value(name);
    bool ok = false;
    const qlonglong parsed = text.toLongLong(&ok);
    // T as wide as qlonglong (the seed) cannot overflow; narrower T must fit.
    const bool fits = sizeof(T) >= sizeof(qlonglong) || parsed <= qlonglong(std::numeric_limits<T>::max());
    if (!ok || parsed < qlonglong(minimum) || !fits) {
        error = QStringLiteral("--%1: '%2' is not an integer >= %3").arg(name, text).arg(qlonglong(minimum));
        return false;
    }
    value = static_cast<T>(parsed);
    return true;
}

bool readDouble(const QCommandLineParser &parser, const QString &name, double &value, QString &error, double minimum);

// Parses `args` (args[0] is "attnscope-cli VERB"); returns an exit code when the verb should stop now
// (help printed, or bad arguments reported), nothing when it should go on.
std::optional<int> parseVerbArguments(QCommandLineParser &parser, const QString &verb, const QStringList &args);

// Opens --model: a bad spec, folder or checkpoint is an error of the input (exit 1), reported here.
std::optional<attn::OpenedModel> openModelOrReport(const QString &verb, const QString &spec, bool requireTokenizer);

// --quiet and --progress, for the verbs that can take long (bench, equivariance, faithfulness, figure, run).
// Progress lines go to stderr when stderr is a terminal or with --progress, never with --quiet; errors always do.
struct Chatter {
    bool quiet = false;
    bool progress = false;
};
void addChatterOptions(QCommandLineParser &parser);
// false (with `error` "--NAME is required" for the first one missing) unless every option in `names` is given.
bool requireOptions(const QCommandLineParser &parser, std::initializer_list<const char *> names, QString &error);
// false (with `error` set) when both are given.
bool readChatter(const QCommandLineParser &parser, Chatter &chatter, QString &error);
// "attnscope-cli VERB: message" on stderr when chatter.progress.
void progress(const Chatter &chatter, const QString &verb, const QString &message);

// Writes `text` to `out` atomically, or to stdout when out is "-"; reports a failure and returns false.
bool writeOutput(const QString &verb, const QString &out, const std::string &text);

} // namespace attncli
