// SPDX-License-Identifier: GPL-3.0-or-later
#include "options.h"

#include "common.h"

#include <attnscope/limits.h>
#include <attnscope/utf8.h>

#include <QFile>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <unistd.h>

namespace attncli {

namespace {

using T = OptionType;

QString number(double v)
{
    return QString::number(v, 'g', 15);
}

} // namespace

const std::vector<OptionRow> &sharedOptions()
{
    // One row per option; the verbs name the ones they take (VerbOptions::use).
    static const std::vector<OptionRow> rows{
        {"model", T::Text, "M", kModelHelp, {}},
        {"max-memory", T::Number, "GIB", "memory budget for the model's weights, in GiB (default: the memory available "
                                         "now); a model whose weights need more is refused before loading", {},
         0.001, 1048576},
        {"text", T::Text, "T", "the input text (UTF-8; invalid UTF-8 is refused, naming the byte offset)", {}},
        {"text-file", T::Text, "F", "read the input text from file F instead of --text (UTF-8, at most 64 MiB)", {}},
        {"text-pair", T::Text, "T2", "a second text, as a sentence pair (NLI, QA): the tokenizer's pair template "
                                     "([CLS] T [SEP] T2 [SEP]), token_type_ids for BERT-style models", {}},
        {"truncate", T::Flag, {}, "cut a text longer than the model's positions to them (Hugging Face longest_first: "
                                  "the longer text of a pair loses its last tokens first) instead of refusing it", {}},
        {"ids", T::Text, "I,I,...", "token ids instead of text, comma-separated (folders without a tokenizer)", {}},
        {"mask", T::Text, "MASK", "model|bidirectional|causal|window:W|causal-window:W; model is the model's own",
         "model"},
        {"pad", T::Integer, "K", "append K padding tokens, masked as keys", "0", 0, 65536},
        {"backend", T::Text, "B", "reference|tiled|unfused|cuda|auto", "auto"},
        {"threads", T::Integer, "N", "CPU threads, 0 = all hardware threads", "0", 0, 4096},
        {"heads", T::Text, "HEADS", "heads whose weights are computed and exported: all, or L.H,L.H,..., "
                                    "layers and heads counted from 0", "all"},
        {"out", T::Text, "F.json", "the JSON file to write, or - for stdout", {}},
        {"tensors", T::Text, "FORMAT",
         "json: attention as nested arrays in the JSON; npy: in F.attention.npy beside it (float32 [layers, heads, "
         "n, n]; with --heads only those heads, [k, n, n] in their order), the JSON refers to it", "json"},
        {"npy", T::Flag, {}, "the same as --tensors npy", {}},
        // Vision Transformers (verb_vision.cpp): run --model VIT --image F | --pixel-values F.
        {"image", T::Text, "F", "an image file (PNG, JPEG, ...) for a ViT model, prepared per its preprocessor_config.json",
         {}},
        {"pixel-values", T::Text, "F.npy", "pixel_values [3, H, W] float32, already preprocessed, for a ViT model", {}},
        // Dataset runs (verb_dataset.cpp): faithfulness|run|equivariance --dataset, and merge.
        {"dataset", T::Text, "F", "run over a dataset instead of one text: F.jsonl, F.csv, F.tsv, or sample (the model "
                                  "folder's rationales.json); docs/datasets.md", {}},
        {"columns", T::Text, "MAP", "CSV/TSV: field=column,... for text, text_pair, label, target, target_text, id, "
                                    "rationale, rationale_tokens", {}},
        {"shard", T::Text, "i/N", "only the examples with index mod N = i (0 <= i < N)", "0/1"},
        {"resume", T::Flag, {}, "continue --out: keep its examples, drop a cut-off last line, refuse other settings", {}},
        {"summary", T::Text, "S.json", "the summary JSON to write (statistics over every example), or - for stdout", {}},
        {"quiet", T::Flag, {}, "print nothing on stderr but errors", {}},
        {"progress", T::Flag, {}, "print progress on stderr even when it is not a terminal (default: only on a terminal)",
         {}},
    };
    return rows;
}

QString rangeText(const OptionRow &row)
{
    const bool low = std::isfinite(row.lo), high = std::isfinite(row.hi);
    if (low && high) return QStringLiteral("%1..%2").arg(number(row.lo), number(row.hi));
    if (low) return QStringLiteral(">= %1").arg(number(row.lo));
    if (high) return QStringLiteral("<= %1").arg(number(row.hi));
    return QStringLiteral("any");
}

VerbOptions::VerbOptions(QString verb, const QString &description) : m_verb(std::move(verb))
{
    m_parser.setApplicationDescription(description);
    m_parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
}

void VerbOptions::use(std::initializer_list<OptionUse> shared)
{
    for (const OptionUse &u : shared) {
        const auto &rows = sharedOptions();
        const auto it = std::find_if(rows.begin(), rows.end(), [&](const OptionRow &r) { return r.name == u.name; });
        Q_ASSERT_X(it != rows.end(), "VerbOptions::use", "not a shared option");
        if (it == rows.end()) continue;
        OptionRow r = *it;
        if (!u.help.isEmpty()) r.help = u.help;
        add({r});
        // Every verb that takes a text takes it from a file too; every verb that opens a model has its budget.
        if (u.name == QLatin1String("text")) use({"text-file"});
        if (u.name == QLatin1String("model")) use({"max-memory"});
    }
}

void VerbOptions::add(std::initializer_list<OptionRow> own)
{
    for (const OptionRow &r : own) {
        QString help = r.help;
        const bool numeric = r.type == T::Integer || r.type == T::Number;
        QStringList notes;
        if (numeric) notes << rangeText(r);
        if (!r.fallback.isEmpty()) notes << QStringLiteral("default %1").arg(r.fallback);
        if (!notes.isEmpty()) help += QStringLiteral(" (%1)").arg(notes.join(QStringLiteral("; ")));
        if (r.type == T::Flag) m_parser.addOption(QCommandLineOption(r.name, help));
        else m_parser.addOption(QCommandLineOption(r.name, help, r.valueName));
        m_rows.push_back(r);
    }
}

std::optional<int> VerbOptions::parse(const QStringList &args)
{
    const QCommandLineOption help = m_parser.addHelpOption();
    if (!m_parser.parse(args)) {
        printError(m_verb, m_parser.errorText());
        return kExitBadArguments;
    }
    if (m_parser.isSet(help)) {
        // Qt's usage line names the executable's path only; scripts copy the verb too.
        QString text = m_parser.helpText();
        const qsizetype firstLineEnd = text.indexOf(QLatin1Char('\n'));
        text.replace(0, firstLineEnd, QStringLiteral("Usage: attnscope-cli %1 [options]").arg(m_verb));
        std::fputs(qPrintable(text), stdout);
        return kExitOk;
    }
    if (!m_positional && !m_parser.positionalArguments().isEmpty()) {
        printError(m_verb, QStringLiteral("unexpected argument '%1'").arg(m_parser.positionalArguments().first()));
        return kExitBadArguments;
    }
    if (hasRow(QStringLiteral("max-memory")) && m_parser.isSet(QStringLiteral("max-memory"))) {
        double gib = 0;
        if (!read(QStringLiteral("max-memory"), gib)) return fail();
        attn::setMemoryBudget(static_cast<std::uint64_t>(gib * 1024.0 * 1024.0 * 1024.0));
    }
    if (hasRow(QStringLiteral("text-file")) && m_parser.isSet(QStringLiteral("text-file")))
        if (auto stop = readTextFile()) return stop;
    return std::nullopt;
}

std::optional<int> VerbOptions::readTextFile()
{
    const QString path = m_parser.value(QStringLiteral("text-file"));
    if (m_parser.isSet(QStringLiteral("text"))) return fail(QStringLiteral("give one of --text and --text-file, not both"));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        printError(m_verb, QStringLiteral("--text-file %1: cannot read it (%2)").arg(path, file.errorString()));
        return kExitError;
    }
    // One byte more than the limit tells a file at the limit from a longer one without reading all of it.
    const QByteArray bytes = file.read(kMaxTextFileBytes + 1);
    if (bytes.size() > kMaxTextFileBytes)
        return fail(QStringLiteral("--text-file %1: longer than the limit of %2 bytes").arg(path).arg(kMaxTextFileBytes));
    if (file.error() != QFileDevice::NoError) {
        printError(m_verb, QStringLiteral("--text-file %1: cannot read it (%2)").arg(path, file.errorString()));
        return kExitError;
    }
    if (const std::size_t bad = attn::firstInvalidUtf8(std::string_view(bytes.constData(), std::size_t(bytes.size())));
        bad != std::string_view::npos)
        return fail(QStringLiteral("--text-file %1: not valid UTF-8 (byte %2)").arg(path).arg(qulonglong(bad)));
    m_textFile = QString::fromUtf8(bytes);
    return std::nullopt;
}

void VerbOptions::positional(const QString &name, const QString &help, const QString &syntax)
{
    m_parser.addPositionalArgument(name, help, syntax);
    m_positional = true;
}

QStringList VerbOptions::positionalArguments() const
{
    return m_parser.positionalArguments();
}

bool VerbOptions::hasRow(const QString &name) const
{
    return std::any_of(m_rows.begin(), m_rows.end(), [&](const OptionRow &r) { return r.name == name; });
}

const OptionRow *VerbOptions::row(const QString &name) const
{
    for (const OptionRow &r : m_rows)
        if (r.name == name) return &r;
    Q_ASSERT_X(false, "VerbOptions", "an option this verb does not declare");
    return nullptr;
}

bool VerbOptions::isSet(const QString &name) const
{
    if (name == QLatin1String("text") && m_textFile) return true;
    return row(name) && m_parser.isSet(name);
}

QString VerbOptions::value(const QString &name) const
{
    if (name == QLatin1String("text") && m_textFile) return *m_textFile;
    const OptionRow *r = row(name);
    if (!r) return {};
    return m_parser.isSet(name) ? m_parser.value(name) : r->fallback;
}

bool VerbOptions::reject(const QString &message)
{
    if (m_error.isEmpty()) m_error = message;
    return false;
}

int VerbOptions::fail(const QString &message)
{
    printError(m_verb, message.isEmpty() ? m_error : message);
    return kExitBadArguments;
}

bool VerbOptions::readInteger(const QString &name, qlonglong &value, bool &given)
{
    const OptionRow *r = row(name);
    given = r && m_parser.isSet(name);
    if (!given) return true;
    const QString text = m_parser.value(name);
    bool ok = false;
    const qlonglong parsed = text.trimmed().toLongLong(&ok);
    if (!ok) return reject(QStringLiteral("--%1: '%2' is not an integer in %3").arg(name, text, rangeText(*r)));
    if (double(parsed) < r->lo || double(parsed) > r->hi)
        return reject(QStringLiteral("--%1: %2 is outside %3").arg(name, text.trimmed(), rangeText(*r)));
    value = parsed;
    return true;
}

bool VerbOptions::read(const QString &name, int &value)
{
    qlonglong v = 0;
    bool given = false;
    if (!readInteger(name, v, given)) return false;
    if (given) value = int(v);   // every int row's range lies within int
    return true;
}

bool VerbOptions::read(const QString &name, std::int64_t &value)
{
    qlonglong v = 0;
    bool given = false;
    if (!readInteger(name, v, given)) return false;
    if (given) value = v;
    return true;
}

bool VerbOptions::read(const QString &name, std::uint64_t &value)
{
    qlonglong v = 0;
    bool given = false;
    if (!readInteger(name, v, given)) return false;
    if (given) value = std::uint64_t(v);   // unsigned rows start at 0
    return true;
}

bool VerbOptions::read(const QString &name, double &value)
{
    const OptionRow *r = row(name);
    if (!r || !m_parser.isSet(name)) return true;
    const QString text = m_parser.value(name);
    bool ok = false;
    const double parsed = text.trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(parsed))
        return reject(QStringLiteral("--%1: '%2' is not a number in %3").arg(name, text, rangeText(*r)));
    if (parsed < r->lo || parsed > r->hi)
        return reject(QStringLiteral("--%1: %2 is outside %3").arg(name, text.trimmed(), rangeText(*r)));
    value = parsed;
    return true;
}

bool VerbOptions::readBackend(attn::Backend &backend)
{
    const QString text = value(QStringLiteral("backend"));
    const auto parsed = attn::parseBackend(text.toStdString());
    if (!parsed)
        return reject(QStringLiteral("--backend: unknown backend '%1' (reference|tiled|unfused|cuda|auto)").arg(text));
    backend = *parsed;
    return true;
}

bool VerbOptions::readMask(attn::MaskChoice &mask)
{
    const auto parsed = attn::parseMaskChoice(value(QStringLiteral("mask")).toStdString());
    if (!parsed) return reject(QStringLiteral("--mask: %1").arg(QString::fromStdString(parsed.status().message())));
    mask = *parsed;
    return true;
}

bool VerbOptions::readHeads(std::optional<std::vector<attn::HeadRef>> &heads)
{
    const auto parsed = attn::parseHeadList(value(QStringLiteral("heads")).toStdString());
    if (!parsed) return reject(QStringLiteral("--heads: %1").arg(QString::fromStdString(parsed.status().message())));
    heads = *parsed;
    return true;
}

bool VerbOptions::readTensors(bool &npy)
{
    const QString tensors = value(QStringLiteral("tensors"));
    if (tensors != QLatin1String("json") && tensors != QLatin1String("npy"))
        return reject(QStringLiteral("--tensors: '%1' is not json or npy").arg(tensors));
    npy = tensors == QLatin1String("npy") || isSet(QStringLiteral("npy"));
    if (npy && isSet(QStringLiteral("npy")) && isSet(QStringLiteral("tensors")) && tensors != QLatin1String("npy"))
        return reject(QStringLiteral("--npy and --tensors %1 contradict each other").arg(tensors));
    if (npy && value(QStringLiteral("out")) == QLatin1String("-"))
        return reject(QStringLiteral("--tensors npy: the .npy file goes beside --out, which must be a file, not -"));
    return true;
}

bool VerbOptions::readIds(std::vector<std::int64_t> &ids, const QString &name)
{
    if (!isSet(name)) return true;
    const QString text = value(name);
    std::vector<std::int64_t> parsed;
    for (const QString &item : text.split(QLatin1Char(','))) {
        bool ok = false;
        const qlonglong id = item.trimmed().toLongLong(&ok);
        if (!ok || id < 0) {
            parsed.clear();
            break;
        }
        parsed.push_back(id);
    }
    if (parsed.empty())
        return reject(QStringLiteral("--%1: '%2' is not a comma-separated list of token ids >= 0").arg(name, text));
    ids = std::move(parsed);
    return true;
}

bool VerbOptions::readChatter(Chatter &chatter)
{
    chatter.quiet = isSet(QStringLiteral("quiet"));
    const bool forced = isSet(QStringLiteral("progress"));
    if (chatter.quiet && forced) return reject(QStringLiteral("--quiet and --progress: give at most one"));
    chatter.progress = forced || (!chatter.quiet && ::isatty(STDERR_FILENO));
    return true;
}

bool VerbOptions::require(std::initializer_list<const char *> names)
{
    for (const char *name : names)
        if (!isSet(QString::fromLatin1(name))) return reject(QStringLiteral("--%1 is required").arg(QLatin1String(name)));
    return true;
}

} // namespace attncli
