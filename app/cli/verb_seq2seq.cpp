// SPDX-License-Identifier: GPL-3.0-or-later
// `run --model SEQ2SEQ (--text SRC | --ids I,...) [--target-text TGT | --target-ids I,... | --max-new-tokens N]`: one
// encoder–decoder run (seq2seqrun.h), teacher-forced on the target or greedily generated without one, written as
// the run document's encoder–decoder form (docs/json-format.md, "Encoder–decoder runs").
#include "common.h"
#include "verbs.h"

#include <attnscope/fileio.h>
#include <attnscope/seq2seqrun.h>
#include <attnscope/textmodel.h>

#include <algorithm>
#include <filesystem>

namespace attncli {

namespace {

const char *const kSeq2SeqOptions[] = {"--target-text", "--target-ids", "--max-new-tokens"};

// The --model value as given on the command line (either form), or empty.
QString modelArgument(const QStringList &args)
{
    for (qsizetype i = 0; i < args.size(); ++i) {
        for (const QString flag : {QStringLiteral("--model"), QStringLiteral("-model")}) {
            if (args[i] == flag && i + 1 < args.size()) return args[i + 1];
            if (args[i].startsWith(flag + QLatin1Char('='))) return args[i].mid(flag.size() + 1);
        }
    }
    return {};
}

} // namespace

bool isSeq2SeqModel(const QString &spec)
{
    return attn::isSeq2SeqSpec(spec.toStdString());
}

bool isSeq2SeqRun(const QStringList &args)
{
    const bool targetOption = std::any_of(args.begin(), args.end(), [](const QString &a) {
        for (const char *o : kSeq2SeqOptions)
            if (a == QLatin1String(o) || a.startsWith(QLatin1String(o) + QLatin1Char('='))) return true;
        return false;
    });
    return targetOption || isSeq2SeqModel(modelArgument(args));
}

std::optional<std::string> seq2seqInfo(const QString &spec)
{
    const QString verb = QStringLiteral("info");
    auto opened = attn::openSeq2Seq(spec.toStdString());
    if (!opened) {
        printError(verb, QStringLiteral("--model %1: %2").arg(spec, QString::fromStdString(opened.status().message())));
        return std::nullopt;
    }
    const attn::Tokenizer *tok = opened->tokenizer ? &*opened->tokenizer : nullptr;
    return attn::seq2seqInfoJson(opened->model, tok, spec.toStdString(), opened->loadSeconds);
}

int seq2seqRunVerb(const QStringList &args)
{
    VerbOptions opts(QStringLiteral("run"), QStringLiteral(
        "Run an encoder-decoder folder (config.json model_type \"t5\", \"bart\" or \"marian\") on a source and write its three attention\n"
        "kinds as JSON (docs/json-format.md, \"Encoder-decoder runs\"): encoder self-attention, decoder causal\n"
        "self-attention and cross-attention (target rows x source columns). With --target-text or --target-ids the\n"
        "decoder is teacher-forced; without, it generates greedily (at most --max-new-tokens tokens, or up to EOS)."));
    opts.use({{"model", QStringLiteral("an encoder-decoder model folder (T5, BART, Marian)")}, "text",
              {"ids", QStringLiteral("source token ids instead of text, used exactly as given")}, "backend", "threads",
              {"heads", QStringLiteral("heads whose weights are exported (every head is computed): all, or enc:L.H, "
                                       "dec:L.H, cross:L.H, and a bare L.H for all three kinds, comma-separated; layers "
                                       "and heads counted from 0")}});
    using T = OptionType;
    opts.add({
        {"target-text", T::Text, "T", "the target: tokenized with the target side's tokenizer and post-processor "
                                      "(labels ending in </s>); the decoder input is [start] + labels[:-1]", {}},
        {"target-ids", T::Text, "I,I,...", "the decoder input ids exactly as given, starting with the decoder start "
                                           "token (transformers' decoder_input_ids)", {}},
        {"max-new-tokens", T::Integer, "N", "without a target: greedy generation makes at most N tokens", "20", 1, 4096},
        {"top-k", T::Integer, "K", "next-token predictions listed per target row", "5", 1, 100000},
    });
    opts.use({"out",
              {"tensors", QStringLiteral("json: the attentions as nested arrays in the JSON; npy: one float32 file per "
                                         "kind beside it, F.attention.npy (encoder), F.decoder_attention.npy, "
                                         "F.cross_attention.npy ([layers, heads, rows, cols]; with --heads [k, rows, "
                                         "cols]), the JSON refers to them")},
              "npy", "quiet", "progress"});
    if (auto stop = opts.parse(args)) return *stop;

    const QString verb = opts.verb();
    Chatter chatter;
    if (!opts.readChatter(chatter) || !opts.require({"model", "out"})) return opts.fail();
    const QString spec = opts.value("model");
    if (!isSeq2SeqModel(spec)) {
        for (const char *o : kSeq2SeqOptions)
            if (opts.isSet(QString::fromLatin1(o + 2)))
                return opts.fail(QStringLiteral("%1: %2 is not an encoder-decoder model (no decoder to give a target "
                                                "to); these options are for encoder-decoder folders").arg(QLatin1String(o), spec));
    }
    const bool haveText = opts.isSet("text"), haveIds = opts.isSet("ids");
    if (haveText == haveIds) return opts.fail(QStringLiteral("give exactly one of --text and --ids"));
    attn::Seq2SeqRunRequest request;
    if (haveText) request.text = opts.value("text").toStdString();
    if (opts.isSet("target-text") && opts.isSet("target-ids"))
        return opts.fail(QStringLiteral("--target-text and --target-ids: give at most one"));
    if (opts.isSet("max-new-tokens") && (opts.isSet("target-text") || opts.isSet("target-ids")))
        return opts.fail(QStringLiteral("--max-new-tokens: only without a target (a target is teacher-forced, nothing is generated)"));
    if (opts.isSet("target-text")) request.targetText = opts.value("target-text").toStdString();
    std::vector<std::int64_t> targetIds;
    if (!opts.readIds(request.ids) || !opts.readIds(targetIds, QStringLiteral("target-ids")) ||
        !opts.read("max-new-tokens", request.maxNewTokens) || !opts.read("top-k", request.topK) ||
        !opts.readBackend(request.backend) || !opts.read("threads", request.threads))
        return opts.fail();
    if (opts.isSet("target-ids")) request.targetIds = targetIds;
    bool npy = false;
    if (!opts.readTensors(npy)) return opts.fail();

    progress(chatter, verb, QStringLiteral("opening %1").arg(spec));
    auto opened = attn::openSeq2Seq(spec.toStdString());
    if (!opened) {
        printError(verb, QStringLiteral("--model %1: %2").arg(spec, QString::fromStdString(opened.status().message())));
        return kExitError;
    }
    // The tokenizer, when the folder has one (ids alone need none).
    if (!opened->tokenizer && (request.text || request.targetText)) {
        printError(verb, QStringLiteral("--model %1: text needs a tokenizer: %2")
                             .arg(spec, QString::fromStdString(opened->tokenizerError)));
        return kExitError;
    }
    const attn::Seq2SeqModel *model = &opened->model;
    auto heads = attn::parseSeq2SeqHeads(opts.value("heads").toStdString(), model->shape());
    if (!heads) return opts.fail(QStringLiteral("--heads: %1").arg(QString::fromStdString(heads.status().message())));
    request.heads = *heads;
    progress(chatter, verb, request.targetText || request.targetIds ? QStringLiteral("running the teacher-forced pass")
                                                                    : QStringLiteral("generating"));
    const attn::Tokenizer *tok = opened->tokenizer ? &*opened->tokenizer : nullptr;
    if (opened->targetTokenizer) request.targetTokenizer = &*opened->targetTokenizer;
    const auto data = attn::runSeq2Seq(*model, tok, spec.toStdString(), request);
    if (!data) {
        const std::string &m = data.status().message();
        const bool argument = data.status().code() == attn::ErrorCode::InvalidArgument;
        printError(verb, QString::fromStdString(m));
        return argument ? kExitBadArguments : kExitError;
    }
    const QString out = opts.value("out");
    if (!npy)
        return writeOutput(verb, out, attn::seq2seqExportJson(*model, tok, spec.toStdString(), request, *data), chatter)
                   ? kExitOk
                   : kExitError;
    // The three .npy files and the JSON that refers to them are committed together (run --npy does the same).
    const std::vector<attn::Seq2SeqNpyFile> files = attn::seq2seqNpyFiles(*model, request, *data, out.toStdString());
    attn::FileTransaction transaction;
    const std::filesystem::path outFolder = std::filesystem::path(out.toStdString()).parent_path();
    for (const attn::Seq2SeqNpyFile &f : files) transaction.add((outFolder / f.name).string(), f.bytes);
    transaction.add(out.toStdString(), attn::seq2seqExportJson(*model, tok, spec.toStdString(), request, *data, &files));
    if (attn::Status s = transaction.commit(); !s) {
        printError(verb, QString::fromStdString(s.message()));
        return kExitError;
    }
    progress(chatter, verb, QStringLiteral("wrote %1 and its three .npy files").arg(out));
    return kExitOk;
}

} // namespace attncli
