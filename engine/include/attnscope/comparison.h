// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Compare workspace's document (docs/json-format.md, "The compare export"): two attention matrices A and B of
// one model — two texts, two heads, or two settings — and their difference A − B over the block they share.

#include <attnscope/attention.h>
#include <attnscope/textmodel.h>

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

struct ComparedMatrix {
    std::string label;                   // "layer 1 head 2", "“the cat …”", "causal mask"
    std::vector<std::string> tokens;     // [L] display labels
    std::vector<float> weights;          // [L, L] row-major, queries as rows
    std::vector<std::uint8_t> masked;    // [L, L] 1 where the mask forbids the pair
    std::int64_t length() const { return static_cast<std::int64_t>(tokens.size()); }
};

struct AttentionComparison {
    std::string mode;                    // "texts", "heads", "settings"
    ComparedMatrix a, b;
    std::int64_t common = 0;             // n: the compared block is [0, n) × [0, n)
    std::vector<float> diff;             // [n, n] A − B
    double maxAbsDiff = 0.0;
    std::string note;                    // what was compared, when not everything
    Backend backend = Backend::Auto;     // as asked for
};

// One line of JSON (matrices make it large) with the model block and the provenance of the run documents.
std::string comparisonExportJson(const TextModel &model, const AttentionComparison &comparison);

} // namespace attn
