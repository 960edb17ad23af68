// SPDX-License-Identifier: GPL-3.0-or-later
// Cascading top-down model-parameter randomization (reference/faithfulness.md §3.14; Adebayo et al. 2018,
// Quantus MPRT with layer_order="top_down"): the suite's importances on randomized copies of the model.
#include "randomization.h"

#include <attnscope/metrics.h>

#include <cmath>

namespace attn::detail {

std::int64_t randomizationPasses(std::int64_t layers, std::int64_t n, std::int64_t perturbationMethods)
{
    return (layers + 1) * (1 + perturbationMethods * (n + 1));
}

Result<RandomizationCheck> randomizationCheck(const RandomizationInput &in, const FaithfulnessSettings &s,
                                              const std::function<Status(Perturber &)> &run, const CancelFn &cancel)
{
    const ModelConfig &c = in.model.config();
    RandomizationCheck check;
    check.seed = s.seed;
    check.threshold = s.randomizationThreshold;
    check.resetLayerNorms = s.randomizationResetLayerNorms;
    check.init = std::string("N(0, sigma^2), sigma = the original tensor's standard deviation, per tensor (weights and "
                             "biases); one stream per tensor seeded from (seed, name); embeddings kept; LayerNorms ") +
                 (s.randomizationResetLayerNorms ? "reset to gamma 1, beta 0" : "kept");
    // Only the importances the suite produced (flow may have been skipped), in its order.
    ImportancePlan plan = in.plan;
    plan.methods.clear();
    for (const Importance &imp : in.original) {
        plan.methods.push_back(imp.kind);
        check.methods.push_back(imp.name);
    }
    const auto restrictTo = [&](const std::vector<double> &v, bool absolute) {
        std::vector<double> out;
        for (std::int64_t i : plan.scored) out.push_back(absolute ? std::abs(v[static_cast<std::size_t>(i)]) : v[static_cast<std::size_t>(i)]);
        return out;
    };

    ForwardInput fin;
    fin.tokenIds = in.ids;
    fin.tokenTypeIds = in.types;
    ForwardOptions opt;
    opt.backend = in.backend;
    opt.threads = in.threads;
    opt.weightsMode = WeightsRequest::Mode::All;
    opt.cancel = cancel;
    for (std::int64_t k = 0; k <= c.layers; ++k) {
        RandomizationSpec spec = RandomizationSpec::cascade(c.layers, k, s.seed);
        spec.resetLayerNorms = s.randomizationResetLayerNorms;
        auto randomized = in.model.withRandomizedParameters(spec);
        if (!randomized) return randomized.status();
        auto base = randomized->forward(fin, opt);
        if (!base) return base.status();
        Perturber p(*randomized, in.ids, in.special, in.target, in.replacements, in.backend);
        p.setTokenTypes(in.types);
        const Outcome unperturbed = p.read(*base, in.target.position);
        auto importances = computeImportances(c, *base, p, [&] { return run(p); }, plan, cancel, nullptr);
        if (!importances) return importances.status();
        check.forwardPasses += 1 + p.passes();

        RandomizationStep step;
        step.topLayers = k;
        step.randomized = spec.describe();
        step.outputTvd = unperturbed.tvd;
        for (std::size_t m = 0; m < in.original.size(); ++m) {
            const std::vector<double> &a = in.original[m].scores, &b = (*importances)[m].scores;
            step.spearman.push_back(spearman(restrictTo(a, false), restrictTo(b, false)));
            step.spearmanAbs.push_back(spearman(restrictTo(a, true), restrictTo(b, true)));
        }
        check.steps.push_back(std::move(step));
    }
    const auto similar = [&](double rho) { return std::abs(rho) >= check.threshold; };   // NaN: false
    for (std::size_t m = 0; m < check.methods.size(); ++m) {
        check.fails.push_back(similar(check.steps.front().spearman[m]));
        check.structural.push_back(isAttentionImportance(plan.methods[m]));
        int first = -1;
        for (std::size_t k = 0; k < check.steps.size() && first < 0; ++k)
            if (!similar(check.steps[k].spearman[m])) first = static_cast<int>(k);
        check.firstChangedStep.push_back(first);
    }
    return check;
}

} // namespace attn::detail
