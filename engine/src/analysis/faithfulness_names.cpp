// SPDX-License-Identifier: GPL-3.0-or-later
// Names and parsers of faithfulness.h's enums, rationale scoring and the pass estimate.
#include <attnscope/faithfulness.h>

#include "randomization.h"

#include <attnscope/metrics.h>

#include <algorithm>
#include <cmath>

namespace attn {

namespace {

struct Names {
    RemovalOperator op;
    const char *name;
};
constexpr Names kOperators[] = {{RemovalOperator::Deletion, "deletion"}, {RemovalOperator::Knockout, "knockout"},
                                {RemovalOperator::MaskToken, "mask"},    {RemovalOperator::UnkToken, "unk"},
                                {RemovalOperator::PadToken, "pad"},      {RemovalOperator::ZeroEmbedding, "zero_embedding"}};
struct KindName {
    ImportanceKind kind;
    const char *name;
};
constexpr KindName kKinds[] = {{ImportanceKind::AttentionHead, "head"},        {ImportanceKind::AttentionHeadMean, "head_mean"},
                               {ImportanceKind::Rollout, "rollout"},           {ImportanceKind::Flow, "flow"},
                               {ImportanceKind::LooDeletion, "loo_deletion"}, {ImportanceKind::LooKnockout, "loo_knockout"},
                               {ImportanceKind::Occlusion, "occlusion"}};

} // namespace

std::string removalOperatorName(RemovalOperator op)
{
    for (const Names &n : kOperators)
        if (n.op == op) return n.name;
    return {};
}

Result<RemovalOperator> parseRemovalOperator(const std::string &text)
{
    for (const Names &n : kOperators)
        if (text == n.name) return n.op;
    return Status::invalid("removal operator: '" + text + "' is not deletion, knockout, mask, unk, pad or zero_embedding");
}

std::string importanceKindName(ImportanceKind kind)
{
    for (const KindName &k : kKinds)
        if (k.kind == kind) return k.name;
    return {};
}

Result<ImportanceKind> parseImportanceKind(const std::string &text)
{
    for (const KindName &k : kKinds)
        if (text == k.name) return k.kind;
    return Status::invalid("method: '" + text +
                           "' is not head, head_mean, rollout, flow, loo_deletion, loo_knockout or occlusion");
}

std::string randomizationModeName(RandomizationMode m) { return m == RandomizationMode::Cascade ? "cascade" : "none"; }

Result<RandomizationMode> parseRandomizationMode(const std::string &text)
{
    if (text == "cascade") return RandomizationMode::Cascade;
    if (text == "none") return RandomizationMode::None;
    return Status::invalid("randomization: '" + text + "' is not cascade or none");
}

bool isAttentionImportance(ImportanceKind k)
{
    return k == ImportanceKind::AttentionHead || k == ImportanceKind::AttentionHeadMean || k == ImportanceKind::Rollout ||
           k == ImportanceKind::Flow;
}

RationaleScores scoreRationale(const std::vector<double> &importance, const std::vector<std::int64_t> &gold, int k)
{
    RationaleScores r;
    const std::vector<int> order = descendingOrder(importance);
    int scored = 0;
    for (double v : importance) scored += std::isnan(v) ? 0 : 1;
    const auto inGold = [&](int i) { return std::find(gold.begin(), gold.end(), std::int64_t{i}) != gold.end(); };
    const int g = std::min(static_cast<int>(gold.size()), scored);
    int hits = 0;
    for (int i = 0; i < g; ++i) hits += inGold(order[static_cast<std::size_t>(i)]);
    const double precision = g ? static_cast<double>(hits) / g : 0.0;
    const double recall = gold.empty() ? 0.0 : static_cast<double>(hits) / static_cast<double>(gold.size());
    r.f1 = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0.0;
    r.k = std::clamp(k, 1, std::max(scored, 1));
    int hitsK = 0;
    for (int i = 0; i < std::min(r.k, scored); ++i) hitsK += inGold(order[static_cast<std::size_t>(i)]);
    r.precisionAtK = static_cast<double>(hitsK) / r.k;
    return r;
}

std::int64_t estimateFaithfulnessPasses(const Model &model, std::int64_t L, const FaithfulnessSettings &s)
{
    const ModelConfig &c = model.config();
    const std::int64_t n = L, orderings = static_cast<std::int64_t>(s.methods.size()) + s.randomSeeds;
    const std::int64_t curve = 2 * (n + 1) + 2 * static_cast<std::int64_t>(s.eraserBins.size());
    std::int64_t heads = 0;
    if (s.permutationTest) heads += s.permutations;
    if (s.uniformTest) heads += 1;
    if (s.headAblation) heads += 2;
    const std::int64_t operators = s.secondRemoval ? 2 : 1;
    std::int64_t perturbation = 0;
    for (ImportanceKind k : s.methods) perturbation += isAttentionImportance(k) ? 0 : 1;
    const std::int64_t randomization =
        s.randomization == RandomizationMode::Cascade ? detail::randomizationPasses(c.layers, n, perturbation) : 0;
    return 1 + 3 * n + (s.orderingMetrics ? operators * (orderings * curve + s.bhattRuns) : 0) + c.layers * c.heads * heads +
           randomization;
}

} // namespace attn
