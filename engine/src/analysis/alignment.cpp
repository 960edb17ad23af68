// SPDX-License-Identifier: GPL-3.0-or-later
#include <attnscope/alignment.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace attn {

std::vector<AlignmentLink> alignmentFromAttention(const float *weights, std::int64_t rows, std::int64_t cols,
                                                  std::int64_t targetWords, std::int64_t sourceWords)
{
    std::vector<AlignmentLink> links;
    const std::int64_t T = std::clamp<std::int64_t>(targetWords, 0, rows);
    const std::int64_t S = std::clamp<std::int64_t>(sourceWords, 0, cols);
    for (std::int64_t t = 0; t < T; ++t) {
        const float *row = weights + t * cols;
        std::int64_t best = -1;
        float bestWeight = 0.0f;   // a link needs some weight: an all-zero (masked) row links nothing
        for (std::int64_t s = 0; s < S; ++s)
            if (row[s] > bestWeight) {   // strict: the first maximum, as argmax
                bestWeight = row[s];
                best = s;
            }
        if (best >= 0) links.push_back({t, best});
    }
    return links;
}

void AlignmentScore::add(const std::vector<AlignmentLink> &predictedLinks, const std::vector<AlignmentLink> &sureLinks,
                         const std::vector<AlignmentLink> &possibleLinks)
{
    std::vector<AlignmentLink> a = predictedLinks, s = sureLinks, p = possibleLinks;
    for (auto *v : {&a, &s, &p}) {
        std::sort(v->begin(), v->end());
        v->erase(std::unique(v->begin(), v->end()), v->end());
    }
    p.insert(p.end(), s.begin(), s.end());
    std::sort(p.begin(), p.end());
    p.erase(std::unique(p.begin(), p.end()), p.end());
    const auto common = [](const std::vector<AlignmentLink> &x, const std::vector<AlignmentLink> &y) {
        std::vector<AlignmentLink> both;
        std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(both));
        return std::int64_t(both.size());
    };
    predicted += std::int64_t(a.size());
    sure += std::int64_t(s.size());
    predictedSure += common(a, s);
    predictedPossible += common(a, p);
}

double AlignmentScore::aer() const
{
    if (predicted + sure == 0) return std::numeric_limits<double>::quiet_NaN();
    return 1.0 - double(predictedSure + predictedPossible) / double(predicted + sure);
}

double AlignmentScore::precision() const
{
    return predicted ? double(predictedPossible) / double(predicted) : std::numeric_limits<double>::quiet_NaN();
}

double AlignmentScore::recall() const
{
    return sure ? double(predictedSure) / double(sure) : std::numeric_limits<double>::quiet_NaN();
}

std::vector<float> meanOverHeads(const std::vector<const std::vector<float> *> &heads)
{
    if (heads.empty()) return {};
    std::vector<double> sum(heads.front()->size(), 0.0);
    for (const std::vector<float> *h : heads)
        for (std::size_t i = 0; i < sum.size() && i < h->size(); ++i) sum[i] += (*h)[i];
    std::vector<float> mean(sum.size());
    for (std::size_t i = 0; i < sum.size(); ++i) mean[i] = float(sum[i] / double(heads.size()));
    return mean;
}

} // namespace attn
