// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Attention masks. A MaskSpec combines any of the kinds below; a key is visible to a query only when every
// active kind allows it, and the additive parts (custom additive mask, ALiBi) are summed onto the scaled score.
//
// Index conventions, for query row i in [0, Lq) and key column j in [0, Lk):
//   i' = i + (Lk - Lq)      the query's position on the key axis ("bottom-right" alignment, as FlashAttention ≥ 2.1
//                           and torch causal_lower_right). With Lq == Lk, i' == i. With Lq > Lk the first Lq - Lk
//                           rows of a causal mask see no key at all and are fully masked.
//   causal        j <= i'
//   window W ≥ 0  |j - i'| <= W           (with causal: the W previous keys and itself); -1: off
//   block  S > 0  floor(i' / S) == floor(j / S)   (block-local attention); 0: off
//   keyValid      [B, Lk] bytes, 0 = padding key (never attended to)
//   queryValid    [B, Lq] bytes, 0 = padding query (its row is fully masked: output 0, weights 0, LSE +inf)
//   allowed       boolean [Lq, Lk] or [B, Lq, Lk] bytes, 0 = forbidden
//   additive      float [Lq, Lk] or [B, Lq, Lk], added to the scaled score; -inf forbids
//   alibiSlopes   [H] per-head slopes m_h: score += -m_h * |i' - j|
//   headBias      float [H, Lq, Lk] per query head (broadcast over the batch), added like `additive`; -inf
//                 forbids (T5's relative-position bias)
// Masks broadcast over heads (except alibiSlopes and headBias, which are per head). The additive parts are summed
// in the order additive + headBias + ALiBi and added to the scaled (and soft-capped, see attention.h) score.
// Fully masked rows give output 0, weights 0 and LSE = +inf — never NaN.

#include <attnscope/status.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace attn {

struct MaskSpec {
    bool causal = false;
    std::int64_t window = -1;                // -1: off (other negative values are rejected)
    std::int64_t block = 0;                  // 0: off (negative values are rejected)
    std::vector<std::uint8_t> keyValid;      // empty or B*Lk
    std::vector<std::uint8_t> queryValid;    // empty or B*Lq
    std::vector<std::uint8_t> allowed;       // empty, Lq*Lk or B*Lq*Lk
    std::vector<float> additive;             // empty, Lq*Lk or B*Lq*Lk
    std::vector<float> alibiSlopes;          // empty or H
    // Per-head additive bias [H, Lq, Lk] row-major, broadcast over the batch; -inf forbids. T5's relative-position
    // bias: bias += headBias[h·Lq·Lk + i·Lk + j].
    std::vector<float> headBias;             // empty or H*Lq*Lk

    static MaskSpec bidirectional() { return {}; }
    static MaskSpec causalMask() { MaskSpec m; m.causal = true; return m; }
    static MaskSpec slidingWindow(std::int64_t w, bool causal = false)
    {
        MaskSpec m; m.window = w; m.causal = causal; return m;
    }
    // Key padding from per-batch-item lengths: keys at positions >= lengths[b] are padding.
    static MaskSpec keyPadding(const std::vector<std::int64_t> &lengths, std::int64_t Lk);

    bool hasStructure() const { return causal || window >= 0 || block > 0; }
    bool hasCustom() const { return !allowed.empty() || !additive.empty() || !headBias.empty(); }
    bool isEmpty() const
    {
        return !hasStructure() && !hasCustom() && keyValid.empty() && queryValid.empty() && alibiSlopes.empty();
    }
    std::string describe() const; // "causal + window 16 + key padding + head bias", "bidirectional"
};

// Checks the mask's sizes against the problem; the message names the field and both sizes.
Status validateMask(const MaskSpec &mask, std::int64_t B, std::int64_t H, std::int64_t Lq, std::int64_t Lk);

// Standard ALiBi slopes for H heads (Press et al.): 2^(-8k/H') for the nearest power of two H', interleaved.
std::vector<float> alibiSlopes(std::int64_t heads);

// The structural part only (causal, window, block), shared by every backend.
inline bool structurallyAllowed(const MaskSpec &m, std::int64_t i, std::int64_t j, std::int64_t Lq, std::int64_t Lk)
{
    const std::int64_t ip = i + (Lk - Lq);
    if (m.causal && j > ip) return false;
    if (m.window >= 0 && (j - ip > m.window || ip - j > m.window)) return false;   // no overflow for huge W
    if (m.block > 0) {
        if (ip < 0) return false;
        if (ip / m.block != j / m.block) return false;
    }
    return true;
}

// The full additive bias for one score: 0 when allowed without bias, -inf when masked. Exact semantics of the
// mask; the reference path calls it for every element, the fast paths for the tiles they cannot classify.
inline float maskBias(const MaskSpec &m, std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t j,
                      std::int64_t Lq, std::int64_t Lk)
{
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    if (!structurallyAllowed(m, i, j, Lq, Lk)) return kNegInf;
    if (!m.keyValid.empty() && !m.keyValid[static_cast<std::size_t>(b * Lk + j)]) return kNegInf;
    if (!m.queryValid.empty() && !m.queryValid[static_cast<std::size_t>(b * Lq + i)]) return kNegInf;
    const std::size_t plane = static_cast<std::size_t>(Lq * Lk);
    const std::size_t ij = static_cast<std::size_t>(i * Lk + j);
    if (!m.allowed.empty()) {
        const std::size_t off = m.allowed.size() > plane ? static_cast<std::size_t>(b) * plane : 0;
        if (!m.allowed[off + ij]) return kNegInf;
    }
    float bias = 0.0f;
    if (!m.additive.empty()) {
        const std::size_t off = m.additive.size() > plane ? static_cast<std::size_t>(b) * plane : 0;
        bias += m.additive[off + ij];
    }
    if (!m.headBias.empty()) bias += m.headBias[static_cast<std::size_t>(h) * plane + ij];
    if (!m.alibiSlopes.empty()) {
        const std::int64_t dist = j - (i + (Lk - Lq));
        bias -= m.alibiSlopes[static_cast<std::size_t>(h)] * static_cast<float>(dist < 0 ? -dist : dist);
    }
    return bias;
}

} // namespace attn
