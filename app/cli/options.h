// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The options of attnscope-cli's verbs, declared as rows. The options several verbs share (model, text, ids,
// mask, pad, backend, threads, heads, out, quiet, progress, ...) are rows of one table in options.cpp; a verb
// takes the ones it needs by name and adds rows of its own. A numeric row carries its range: --help shows it,
// and a value outside it is a bad argument (exit 2) whose message names the option, the value and the range.
// Adding a shared option is one row in sharedOptions(); a verb then lists its name in use() and reads it.

#include <attnscope/attention.h>
#include <attnscope/export.h>

#include <QCommandLineParser>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <vector>

namespace attncli {

enum class OptionType { Flag, Text, Integer, Number };

inline constexpr double kNoLimit = std::numeric_limits<double>::infinity();

struct OptionRow {
    QString name;                // "pad": --pad
    OptionType type = OptionType::Text;
    QString valueName;           // "K" in --pad <K>; empty for flags
    QString help;                // what it does; --help appends the range and the default
    QString fallback;            // the default as it is typed; empty: none
    double lo = -kNoLimit;       // Integer and Number: the range, inclusive; ±kNoLimit: open on that side
    double hi = kNoLimit;
};

// Every shared row, in --help order.
const std::vector<OptionRow> &sharedOptions();

// A shared option as a verb takes it: by name, with the verb's own help text where its meaning narrows.
struct OptionUse {
    OptionUse(const char *n) : name(QString::fromLatin1(n)) {}
    OptionUse(const char *n, QString h) : name(QString::fromLatin1(n)), help(std::move(h)) {}
    QString name;
    QString help;                // empty: the shared row's
};

// "0..65536", ">= 1", "any": what a row accepts, as --help and the range errors say it.
QString rangeText(const OptionRow &row);

// --quiet and --progress: progress lines go to stderr when stderr is a terminal or with --progress, never with
// --quiet; errors always do.
struct Chatter {
    bool quiet = false;
    bool progress = false;
};

// One verb's options: its rows, the parser, and typed reads that check values against their rows. Each read
// returns false and records the message on a bad value; fail() prints the first one and gives the exit code.
class VerbOptions {
public:
    VerbOptions(QString verb, const QString &description);

    void use(std::initializer_list<OptionUse> shared);   // rows of sharedOptions(), by name
    void add(std::initializer_list<OptionRow> own);      // the verb's own rows
    // Positional arguments (`merge R-0.jsonl R-1.jsonl`); without this call any positional argument is an error.
    void positional(const QString &name, const QString &help, const QString &syntax);
    QStringList positionalArguments() const;
    // Parses `args` (args[0] is "attnscope-cli VERB"): an exit code when the verb should stop now (help printed,
    // or bad arguments reported), nothing when it should go on. Applies --max-memory (attn::setMemoryBudget) and
    // reads --text-file, after which isSet("text") and value("text") see the file's text.
    std::optional<int> parse(const QStringList &args);

    const QString &verb() const { return m_verb; }
    bool isSet(const QString &name) const;
    QString value(const QString &name) const;            // the value given, else the row's default

    // Integer and Number rows: the value, checked against the row's range; `value` is untouched when not given.
    bool read(const QString &name, int &value);
    bool read(const QString &name, std::int64_t &value);
    bool read(const QString &name, std::uint64_t &value);
    bool read(const QString &name, double &value);
    // The shared rows that every verb reads the same way.
    bool readBackend(attn::Backend &backend);            // --backend reference|tiled|unfused|cuda|auto
    bool readMask(attn::MaskChoice &mask);               // --mask
    bool readHeads(std::optional<std::vector<attn::HeadRef>> &heads);   // --heads all|L.H,...
    bool readIds(std::vector<std::int64_t> &ids, const QString &name = QStringLiteral("ids"));
    bool readTensors(bool &npy);   // --tensors json|npy and --npy agree; npy needs --out to be a file   // --ids I,I,...
    bool readChatter(Chatter &chatter);                  // --quiet, --progress
    // "--NAME is required" for the first of `names` not given.
    bool require(std::initializer_list<const char *> names);

    // Records `message` as a bad argument (when none is recorded yet) and returns false.
    bool reject(const QString &message);
    // Prints the recorded message (or `message`) as "attnscope-cli VERB: ..." and returns kExitBadArguments.
    int fail(const QString &message = {});

    // --text-file's limit.
    static constexpr qint64 kMaxTextFileBytes = qint64(64) << 20;

private:
    bool hasRow(const QString &name) const;
    const OptionRow *row(const QString &name) const;
    std::optional<int> readTextFile();   // --text-file: read, checked; an exit code when the verb must stop
    bool readInteger(const QString &name, qlonglong &value, bool &given);

    QString m_verb;
    QCommandLineParser m_parser;
    std::vector<OptionRow> m_rows;
    QString m_error;
    bool m_positional = false;
    std::optional<QString> m_textFile;   // --text-file's content: value("text") returns it
};

} // namespace attncli
