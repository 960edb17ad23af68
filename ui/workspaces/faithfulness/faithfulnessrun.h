// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Faithfulness workspace's job: attn::runFaithfulness on the Subject's model and text, plus the scores of
// every importance against a ground-truth rationale when the model folder ships one (rationales.json, e.g.
// sample:rationale-bert) and the text is one of its examples. Runs on a worker thread through EngineRunner.

#include "runner/enginerunner.h"
#include "kit/subject.h"

#include <attnscope/faithfulness.h>

#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace attnui {

// One example of a model folder's rationales.json.
struct RationaleExample {
    QString text;
    QString label;                        // label name ("positive")
    std::vector<std::int64_t> evidence;   // token indices, [CLS] = 0
    QStringList evidenceWords;
};
// rationales.json of a model folder; an empty list when there is none or it does not parse.
QList<RationaleExample> readRationales(const QString &folder);
// The model's folder for a spec (sample:NAME resolved), or empty for random: specs.
QString modelFolder(const QString &spec);

struct FaithfulnessRequest {
    TextModelPtr model;
    QString text;
    attn::TokenizeOptions tokenize;   // Subject::tokenizeOptions()
    attn::FaithfulnessSettings settings;
    std::vector<std::int64_t> gold;   // ground-truth evidence tokens of this text; empty: none known
};

struct RationaleRow {
    std::string method;
    attn::RationaleScores scores;
};

struct FaithfulnessSnapshot : Snapshot {
    attn::FaithfulnessResult result;
    attn::FaithfulnessSettings settings;
    TextModelPtr model;                 // the model that ran (Export Data writes the engine's document)
    QStringList labels;                 // display tokens [L]
    std::vector<std::int64_t> gold;     // as requested (indices < L)
    std::vector<RationaleRow> rationale;   // per importance; empty without gold
    double randomPrecision = 0.0;       // |gold| / n_s: expected precision@k and F1 of a random ranking
    std::int64_t estimatedPasses = 0;
};

std::int64_t estimatePasses(const attn::TextModel &model, const QString &text, const attn::TokenizeOptions &tokenize,
                            const attn::FaithfulnessSettings &s);

attn::Result<std::shared_ptr<Snapshot>> runFaithfulnessJob(const FaithfulnessRequest &request, const JobContext &ctx);

} // namespace attnui
