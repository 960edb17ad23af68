// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The cascading model-parameter randomization check of the faithfulness suite (faithfulness.h,
// RandomizationCheck): the importances recomputed on randomized copies of the model.

#include "importances.h"

namespace attn::detail {

struct RandomizationInput {
    const Model &model;
    const std::vector<std::int64_t> &ids;          // [L]
    const std::vector<std::uint8_t> &special;      // [L]
    const ImportancePlan &plan;
    const std::vector<Importance> &original;       // the suite's importances (flow may be missing)
    Perturber::Target target;                      // fixed on the original model; base = its distribution
    Perturber::Replacements replacements;
    Backend backend = Backend::Auto;
    int threads = 1;
    std::vector<std::int64_t> types;               // token type ids [L] or empty (Perturber::setTokenTypes)
};

// `run` runs a Perturber's queued passes (with the suite's progress and cancel).
Result<RandomizationCheck> randomizationCheck(const RandomizationInput &in, const FaithfulnessSettings &s,
                                              const std::function<Status(Perturber &)> &run, const CancelFn &cancel);

// Passes randomizationCheck runs for `perturbationMethods` leave-one-out importances over n scored tokens.
std::int64_t randomizationPasses(std::int64_t layers, std::int64_t n, std::int64_t perturbationMethods);

} // namespace attn::detail
