// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The most tokens a workspace computes and shows. Beyond, its run is refused with a message that names the limit
// and why, instead of filling memory for minutes: each of these workspaces keeps several n × n matrices of one
// head (weights, differences, stages) for its figure and for hover and export. The raw experiment's limit lives
// with it (experiment.cpp), and a model's own positions limit a model run before these do.

#include <attnscope/status.h>

#include <string>

namespace attnui {

constexpr int kExploreMaxTokens = 8192;       // a model run: the focus head's weights, scores and masked cells, 0.6 GB
constexpr int kMasksMaxTokens = 4096;         // 5 masks × (weights, differences, masked cells): 0.7 GB at 4096
constexpr int kPipelineMaxTokens = 4096;      // 6 n × n stages in fp64: 0.8 GB at 4096
constexpr int kEquivarianceMaxTokens = 8192;  // A(PX), P·A(X)·Pᵀ, their difference: 0.8 GB at 8192
constexpr int kCompareMaxTokens = 8192;       // A, B and A − B: 0.8 GB at 8192
constexpr int kApproxMaxTokens = 1024;        // exact, approximate, difference and pattern in fp64: 25 MB at 1024
constexpr int kSeq2SeqMaxTokens = 512;        // source and target each: every head of all three kinds is kept
                                              // (t5-base: 0.26 GB at 512; t5-large 0.7 GB)

// Ok, or "Masks shows at most 4096 tokens (…); this input has 5000" as an invalid-input status.
inline attn::Status checkTokenLimit(int tokens, int limit, const char *workspace, const char *why)
{
    if (tokens <= limit) return attn::Status::ok();
    return attn::Status::invalid(std::string(workspace) + " shows at most " + std::to_string(limit) + " tokens (" + why +
                                 "); this input has " + std::to_string(tokens));
}

} // namespace attnui
