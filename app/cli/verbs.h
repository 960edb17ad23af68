// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Verbs implemented in their own files (verb_*.cpp); main.cpp's table lists them. Each takes the arguments with
// args[0] = "attnscope-cli VERB" and returns the exit code.

#include "options.h"

#include <attnscope/dataset.h>
#include <attnscope/faithfulness.h>

#include <QCoreApplication>
#include <QStringList>

#include <memory>
#include <optional>
#include <string>

namespace attncli {

int equivarianceVerb(const QStringList &args);   // verb_equivariance.cpp
int faithfulnessVerb(const QStringList &args);   // verb_faithfulness.cpp
// The suite's options (methods, head, removal, baseline, tests, metrics, randomization, permutations,
// random-seeds), shared by `faithfulness --text` and `faithfulness --dataset` (verb_faithfulness.cpp).
void addFaithfulnessOptions(VerbOptions &opts);
bool readFaithfulnessOptions(VerbOptions &opts, attn::FaithfulnessSettings &s);
int figureVerb(const QStringList &args);         // verb_figure.cpp
int mapVerb(const QStringList &args);            // verb_map.cpp
// verb_dataset.cpp: faithfulness|run|equivariance --dataset F (main.cpp routes them there), and merge.
int datasetVerb(const QStringList &args, attn::DatasetAnalysis analysis);
int mergeVerb(const QStringList &args);
// verb_vision.cpp: `run --image F | --pixel-values F` on a ViT folder (main.cpp routes it there).
bool isVisionRun(const QStringList &args);
int visionRunVerb(const QStringList &args);
std::optional<std::string> visionInfo(const QString &spec);   // `info`'s document of a ViT folder; errors printed
// verb_seq2seq.cpp: `run` on an encoder–decoder folder (T5, BART, Marian), or with --target-text / --target-ids / --max-new-tokens
// (main.cpp routes it there; on a model without a decoder those options are bad arguments).
bool isSeq2SeqRun(const QStringList &args);
bool isSeq2SeqModel(const QString &spec);   // the spec resolves to an encoder–decoder folder
int seq2seqRunVerb(const QStringList &args);
std::optional<std::string> seq2seqInfo(const QString &spec);   // `info`'s document of an encoder–decoder folder; errors printed
// `figure` draws with Qt Widgets: a QApplication (offscreen unless a platform is chosen) instead of a
// QCoreApplication when argv[1] is "figure".
std::unique_ptr<QCoreApplication> createApplication(int &argc, char **argv);

} // namespace attncli
