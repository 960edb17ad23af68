// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Explore on a real model: open it (when the request names a spec rather than a loaded model), tokenize the
// text with its tokenizer, run the forward pass capturing the heads on screen, analyse them and read the
// output head. Runs on a worker thread through EngineRunner; the UI thread never opens or runs a model.

#include "workspaces/explore/experiment.h"

#include "kit/examples.h"
#include "kit/subject.h"

#include <attnscope/attention.h>
#include <attnscope/mask.h>
#include <attnscope/textmodel.h>

#include <memory>
#include <optional>

namespace attnui {

struct ModelRequest {
    TextModelPtr model;            // the loaded model; null: open `spec` first
    QString spec;                  // "sample:NAME", a folder, or a "random:..." spec
    QString text;
    attn::TokenizeOptions tokenize;  // Subject::truncate() and textPair()
    bool useFirstExample = false;  // run on the first examples.json text of the model's folder instead of `text`
    int focusLayer = 0;            // always gets weights and scores, whatever the length
    int focusHead = 0;
    int allHeadsUpTo = 256;        // weights for every head up to this many tokens; beyond, only the focus head
    int topK = 10;
    bool flow = true;              // attention flow too (see analyseSnapshot)
    attn::Backend backend = attn::Backend::Auto;   // View ▸ Backend (Subject::backend())
    std::optional<attn::MaskSpec> maskOverride;   // Subject::maskOverride(): nullopt runs the model's own mask
    int padding = 0;                               // Subject::padding(): tokens appended and masked as keys
};

// A model's result; `model` is the model that ran (newly opened or the request's). When a newly opened model
// cannot run this text, the job still succeeds with `runError` set, so the view can switch to the model.
struct ModelSnapshot : ExploreSnapshot {
    TextModelPtr model;
    QString runError;
    QString textPair;                // the pair that ran, empty: none
    std::vector<std::int64_t> tokenTypeIds;   // [L] what the model got (empty: none)
};

// About a model: "gpt2 · 2 layers × 4 heads · causal LM · 1024 positions", then, on a second line,
// describeAttention(): what the model's attention has of its own — family, grouped-query heads, head_dim, RoPE
// base and scaling, sliding-window layers, soft-caps, tied embeddings (empty for random: models).
QString describeModel(const attn::TextModel &model);
QString describeAttention(const attn::ModelConfig &config);

// Display text of a token label: surrounding spaces dropped, newlines and tabs made visible.
QString tokenDisplayLabel(const std::string &label);

attn::Result<std::shared_ptr<Snapshot>> runModel(const ModelRequest &request, const JobContext &ctx);

// Export Data's JSON: the run document (docs/json-format.md) of what `snapshot` shows, made by the code behind
// `attnscope-cli run`: the same forward pass again through attn::runModel (same model, text, mask, padding and
// backend; the CPU kernels give the same weights on any thread count) capturing the heads the snapshot holds,
// with their head statistics, and rollout and flow where the snapshot has them. Runs the model: call it off the
// UI thread. Errors name what cannot be written (a mask the run document cannot state).
attn::Result<std::string> runExportOf(const ModelSnapshot &snapshot, const ModelRequest &request);

} // namespace attnui
