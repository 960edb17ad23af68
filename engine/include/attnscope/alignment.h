// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Word alignment from cross-attention, scored against a true alignment (Qt-free).
//
// Cross-attention weights [T, S]: row t is the decoder step that produces target token t (teacher forcing over
// [start] + labels[:-1], as seq2seqrun.h), column s a source token. The alignment a head predicts links each target
// word t < targetWords to the source word s < sourceWords it weights most (the first maximum on ties); the
// remaining rows and columns (</s>, padding) are no words and take no part.
//
// Alignment error rate (Och & Ney 2003), with sure links S ⊆ possible links P and predicted links A:
//   AER = 1 − (|A ∩ S| + |A ∩ P|) / (|A| + |S|)
// 0 is a perfect alignment. With only sure links (P = S) it is 1 − 2|A ∩ S| / (|A| + |S|).

#include <cstdint>
#include <vector>

namespace attn {

struct AlignmentLink {
    std::int64_t target = 0, source = 0;
    auto operator<=>(const AlignmentLink &) const = default;
};

// Links of `weights` [rows, cols] row-major for rows [0, targetWords) over columns [0, sourceWords); both counts are
// clamped to the matrix. Rows whose word columns are all 0 (fully masked) link nothing.
std::vector<AlignmentLink> alignmentFromAttention(const float *weights, std::int64_t rows, std::int64_t cols,
                                                  std::int64_t targetWords, std::int64_t sourceWords);

// Counts over one or many sentences; add() accumulates a sentence (links of different sentences never meet).
struct AlignmentScore {
    std::int64_t predicted = 0, sure = 0, predictedSure = 0, predictedPossible = 0;
    // `possible` ⊇ `sure` is not required: a sure link counts as possible too.
    void add(const std::vector<AlignmentLink> &predictedLinks, const std::vector<AlignmentLink> &sureLinks,
             const std::vector<AlignmentLink> &possibleLinks = {});
    // NaN when there are neither predicted nor sure links.
    double aer() const;
    double precision() const;   // |A ∩ P| / |A|
    double recall() const;      // |A ∩ S| / |S|
};

// Each layer's mean over heads of cross-attention [heads][T·S]: the "layer average" the sample's card reports.
std::vector<float> meanOverHeads(const std::vector<const std::vector<float> *> &heads);

} // namespace attn
