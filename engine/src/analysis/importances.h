// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The importance vectors of the faithfulness suite (faithfulness.h), computed from one unperturbed pass with
// every head's weights and a Perturber for the leave-one-out passes. Shared by the suite and by the
// randomization check, which recomputes them on randomized copies of the model.

#include "perturb.h"

#include <functional>
#include <string>
#include <vector>

namespace attn::detail {

// Row o of an [L, L] matrix over the scored keys, renormalized to sum 1; NaN elsewhere.
std::vector<double> attentionRow(const std::vector<double> &A, std::int64_t L, std::int64_t o,
                                 const std::vector<std::int64_t> &scored);

struct ImportancePlan {
    std::vector<ImportanceKind> methods;    // no repeats
    HeadRef head;                           // AttentionHead
    std::int64_t row = 0;                   // o: [CLS] (0) or the LM's target position
    std::vector<std::int64_t> scored;       // non-special positions
    std::int64_t length = 0;                // L
    RemovalOperator occlusion = RemovalOperator::ZeroEmbedding;
    std::int64_t occlusionId = -1;          // for the note

    RemovalOperator looOperator(ImportanceKind k) const
    {
        return k == ImportanceKind::LooDeletion ? RemovalOperator::Deletion
               : k == ImportanceKind::LooKnockout ? RemovalOperator::Knockout : occlusion;
    }
};

// `base`: the unperturbed pass with WeightsRequest::Mode::All. `runQueued` runs the Perturber's queued passes.
// Flow is skipped (a line in `skipped`) when L > kMaxFlowTokens.
Result<std::vector<Importance>> computeImportances(const ModelConfig &c, const ForwardResult &base, Perturber &p,
                                                   const std::function<Status()> &runQueued, const ImportancePlan &plan,
                                                   const CancelFn &cancel, std::vector<std::string> *skipped);

} // namespace attn::detail
