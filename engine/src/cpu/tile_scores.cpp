// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/tile_scores.h"

namespace attn::detail::tile {

void setupRows(const ScoreProblem &p, std::int64_t b, std::int64_t h, std::int64_t q0, int rows, RowBlock &rb)
{
    const MaskSpec &m = p.mask;
    rb.b = b;
    rb.h = h;
    rb.kvh = p.kvHead(h);
    rb.q0 = q0;
    rb.rows = rows;
    rb.anyLive = false;
    rb.minLo = p.Lk;
    rb.maxHi = -1;
    for (int r = 0; r < kBlockQ; ++r) {
        const std::int64_t i = q0 + r;
        const std::int64_t ip = i + p.Lk - p.Lq;
        std::int64_t lo = p.firstKey[static_cast<std::size_t>(b)];
        std::int64_t hi = p.lastKey[static_cast<std::size_t>(b)];
        if (m.causal) hi = std::min(hi, ip);
        if (m.window >= 0) {
            const std::int64_t w = std::min(m.window, p.Lq + p.Lk);   // wider than both axes: no limit, no overflow
            lo = std::max(lo, ip - w);
            hi = std::min(hi, ip + w);
        }
        if (m.block > 0) {
            if (ip < 0) {
                hi = -1;
            } else {
                const std::int64_t start = (ip / m.block) * m.block;
                lo = std::max(lo, start);
                hi = std::min(hi, start + m.block - 1);
            }
        }
        bool live = r < rows && lo <= hi;
        if (live && !m.queryValid.empty() && !m.queryValid[static_cast<std::size_t>(b * p.Lq + i)]) live = false;
        rb.live[r] = live;
        rb.lo[r] = lo;
        rb.hi[r] = hi;
        rb.loF[r] = live ? static_cast<float>(lo) : kInf;
        rb.hiF[r] = live ? static_cast<float>(hi) : -kInf;
        rb.posF[r] = static_cast<float>(ip);
        if (live) {
            rb.anyLive = true;
            rb.minLo = std::min(rb.minLo, lo);
            rb.maxHi = std::max(rb.maxHi, hi);
        }
    }
}

bool planTile(const ScoreProblem &p, const RowBlock &rb, std::int64_t t0, std::int64_t t1, TilePlan &tp)
{
    const MaskSpec &m = p.mask;
    std::int64_t c0 = std::max(t0, rb.minLo), c1 = std::min(t1, rb.maxHi + 1);
    if (c0 >= c1) return false;
    // Clip to the columns some live row can see (the diagonal block of causal, the edges of a window).
    std::int64_t need0 = c1, need1 = c0;
    for (int r = 0; r < rb.rows; ++r) {
        if (!rb.live[r]) continue;
        const std::int64_t lo = std::max(rb.lo[r], c0), hi = std::min(rb.hi[r], c1 - 1);
        if (lo > hi) continue;
        need0 = std::min(need0, lo);
        need1 = std::max(need1, hi + 1);
    }
    if (need0 >= need1) return false;
    c0 = need0;
    c1 = need1;
    tp.structural = false;
    for (int r = 0; r < rb.rows; ++r)
        if (rb.live[r] && (rb.lo[r] > c0 || rb.hi[r] < c1 - 1)) tp.structural = true;

    tp.keyPadding = false;
    if (!m.keyValid.empty()) {
        const std::uint8_t *kv = m.keyValid.data() + rb.b * p.Lk;
        while (c0 < c1 && !kv[c0]) ++c0;
        while (c1 > c0 && !kv[c1 - 1]) --c1;
        if (c0 >= c1) return false;
        for (std::int64_t j = c0; j < c1; ++j) tp.keyPadding |= !kv[j];
    }
    tp.allowed = false;
    if (!m.allowed.empty()) {
        const std::uint8_t *al = p.customPlane(m.allowed, rb.b);
        std::int64_t ones = 0, total = 0;
        for (int r = 0; r < rb.rows; ++r) {
            if (!rb.live[r]) continue;
            const std::uint8_t *row = al + (rb.q0 + r) * p.Lk;
            for (std::int64_t j = c0; j < c1; ++j) ones += row[j] != 0;
            total += c1 - c0;
        }
        if (ones == 0) return false;
        tp.allowed = ones < total;
    }
    tp.bias = !m.alibiSlopes.empty();
    if (!m.additive.empty() || !m.headBias.empty()) {
        // Skipped when every entry some live row would read is -inf in either bias.
        const float *ad = m.additive.empty() ? nullptr : p.customPlane(m.additive, rb.b);
        const float *hb = m.headBias.empty() ? nullptr : m.headBias.data() + rb.h * p.Lq * p.Lk;
        bool anyFinite = false;
        for (int r = 0; r < rb.rows && !anyFinite; ++r) {
            if (!rb.live[r]) continue;
            const std::int64_t off = (rb.q0 + r) * p.Lk;
            for (std::int64_t j = c0; j < c1; ++j)
                anyFinite |= (!ad || ad[off + j] != -kInf) && (!hb || hb[off + j] != -kInf);
        }
        if (!anyFinite) return false;
        tp.bias = true;
    }
    tp.c0 = c0;
    tp.c1 = c1;
    return true;
}

} // namespace attn::detail::tile
