// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What every attnscope-cli verb shares besides its options (options.h): exit codes, error and progress lines,
// opening --model, tokenizing --text, writing --out. Each verb lives in its own file and registers in main.cpp's
// table (verbs.h declares them).

#include "options.h"

#include <attnscope/export.h>

#include <QString>

#include <optional>
#include <string>

namespace attncli {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitBadArguments = 2;

extern const QString kModelHelp;

// "attnscope-cli VERB: message" on stderr.
void printError(const QString &verb, const QString &message);

// Opens --model: a bad spec, folder or checkpoint is an error of the input (exit 1), reported here.
std::optional<attn::OpenedModel> openModelOrReport(const QString &verb, const QString &spec, bool requireTokenizer);
// --text with the model's tokenizer; a text the model cannot take ("--text: ...") is reported here.
std::optional<attn::TokenizedText> tokenizeOrReport(const QString &verb, const attn::TextModel &model, const QString &text,
                                                    const attn::TokenizeOptions &options = {});

// "attnscope-cli VERB: message" on stderr when chatter.progress.
void progress(const Chatter &chatter, const QString &verb, const QString &message);

// Writes `text` to `out` atomically (attnscope/fileio.h), or to stdout when out is "-"; reports a failure (a full
// disk, /dev/full on stdout) and returns false, says "wrote F" (progress) on success.
bool writeOutput(const QString &verb, const QString &out, const std::string &text, const Chatter &chatter = {});

} // namespace attncli
