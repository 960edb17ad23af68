// SPDX-License-Identifier: GPL-3.0-or-later
// Importance vectors (importances.h): attention rows, rollout, flow and leave-one-out.
#include "importances.h"

#include <attnscope/analysis.h>

#include <limits>

namespace attn::detail {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

std::vector<double> attentionRow(const std::vector<double> &A, std::int64_t L, std::int64_t o,
                                 const std::vector<std::int64_t> &scored)
{
    std::vector<double> v(static_cast<std::size_t>(L), kNaN);
    double sum = 0.0;
    for (std::int64_t j : scored) sum += A[static_cast<std::size_t>(o * L + j)];
    for (std::int64_t j : scored) v[static_cast<std::size_t>(j)] = sum > 0.0 ? A[static_cast<std::size_t>(o * L + j)] / sum : 0.0;
    return v;
}

Result<std::vector<Importance>> computeImportances(const ModelConfig &c, const ForwardResult &base, Perturber &p,
                                                   const std::function<Status()> &runQueued, const ImportancePlan &plan,
                                                   const CancelFn &cancel, std::vector<std::string> *skipped)
{
    const std::int64_t L = plan.length, o = plan.row;
    const std::vector<std::int64_t> &scored = plan.scored;
    const auto headMatrix = [&](std::int64_t l, std::int64_t h) {
        const std::vector<float> &w = base.heads[static_cast<std::size_t>(l * c.heads + h)].weights;
        return std::vector<double>(w.begin(), w.end());
    };
    std::vector<std::vector<double>> layerMeans;
    for (std::int64_t l = 0; l < c.layers; ++l) {
        std::vector<const float *> ptrs;
        for (std::int64_t h = 0; h < c.heads; ++h) ptrs.push_back(base.heads[static_cast<std::size_t>(l * c.heads + h)].weights.data());
        layerMeans.push_back(meanOverHeads(ptrs, static_cast<int>(L)));
    }

    // Leave-one-out passes for every perturbation importance at once.
    const auto without = [&](std::int64_t t) {
        std::vector<std::uint8_t> kept(static_cast<std::size_t>(L), 1);
        kept[static_cast<std::size_t>(t)] = 0;
        return kept;
    };
    const std::vector<std::uint8_t> allKept(static_cast<std::size_t>(L), 1);
    for (ImportanceKind k : plan.methods) {
        if (isAttentionImportance(k)) continue;
        p.request({allKept, plan.looOperator(k), {}, {}});
        for (std::int64_t t : scored) p.request({without(t), plan.looOperator(k), {}, {}});
    }
    if (Status st = runQueued(); !st) return st;

    std::vector<Importance> out;
    for (ImportanceKind k : plan.methods) {
        Importance imp{k, importanceKindName(k), {}, {}};
        switch (k) {
        case ImportanceKind::AttentionHead:
            imp.scores = attentionRow(headMatrix(plan.head.layer, plan.head.head), L, o, scored);
            imp.note = "head " + std::to_string(plan.head.layer) + "." + std::to_string(plan.head.head) + ", row " + std::to_string(o);
            break;
        case ImportanceKind::AttentionHeadMean:
            imp.scores = attentionRow(layerMeans.back(), L, o, scored);
            imp.note = "mean over the heads of layer " + std::to_string(c.layers - 1) + ", row " + std::to_string(o);
            break;
        case ImportanceKind::Rollout: {
            auto R = attentionRollout(layerMeans, static_cast<int>(L), true);
            if (!R) return R.status();
            imp.scores = attentionRow(*R, L, o, scored);
            imp.note = "head mean, residual, row " + std::to_string(o);
            break;
        }
        case ImportanceKind::Flow: {
            if (L > kMaxFlowTokens) {
                if (skipped) skipped->push_back("flow: " + std::to_string(L) + " tokens > " + std::to_string(kMaxFlowTokens));
                continue;
            }
            // Only row o is needed: n max-flows instead of n².
            auto F = attentionFlowRow(layerMeans, static_cast<int>(L), static_cast<int>(o), true, cancel);
            if (!F) return F.status();
            std::vector<double> asMatrix(static_cast<std::size_t>(L * L), 0.0);
            std::copy(F->begin(), F->end(), asMatrix.begin() + o * L);
            imp.scores = attentionRow(asMatrix, L, o, scored);
            imp.note = "head mean, residual, row " + std::to_string(o);
            break;
        }
        default: {
            const RemovalOperator op = plan.looOperator(k);
            imp.scores.assign(static_cast<std::size_t>(L), kNaN);
            const double full = p.lookup({allKept, op, {}, {}}).score;
            for (std::int64_t t : scored) imp.scores[static_cast<std::size_t>(t)] = full - p.lookup({without(t), op, {}, {}}).score;
            imp.note = "m(x) - m(x without t), " + removalOperatorName(op) +
                       (op == RemovalOperator::MaskToken || op == RemovalOperator::UnkToken || op == RemovalOperator::PadToken
                            ? " id " + std::to_string(plan.occlusionId) : "");
            break;
        }
        }
        out.push_back(std::move(imp));
    }
    return out;
}

} // namespace attn::detail
