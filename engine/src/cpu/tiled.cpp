// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/tiled.h"

#include "cpu/simd/microkernel.h"
#include "parallel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>

// Numerics: Q is packed pre-multiplied by scale·log2(e), so score tiles are in log2 units and the softmax
// uses exp2 directly (FA2's folding); mask biases are multiplied by log2(e) when added. The running max m is
// kept in log2 units and lse = m·ln2 + ln(l) is formed in double at the end.
//
// Layout: every tile is transposed, [keys, query lanes] (see simd/microkernel.h), so the online-softmax
// statistics of a query block are kQueryVecs vectors and all of the bookkeeping is lane-wise.
//
// Masks: the structural part (causal, window, block, query padding, and the batch's range of valid keys)
// reduces to one key interval [lo, hi] per query row. A tile is skipped when no live row sees any of its keys,
// clipped to the columns some row needs, and does mask work only when some row's interval, a padding key, a
// custom boolean entry or a bias touches it. Rows whose interval is empty ("dead": query padding, causal rows
// with Lq > Lk, ...) are computed along with the block and overwritten with 0 / lse = +inf at the end.

namespace attn::detail {

namespace {

namespace simd = attn::detail::simd;
using simd::Vec;

constexpr int kLanes = simd::kLanes;
constexpr int kBlockQ = simd::kBlockQ;       // query rows per work item
constexpr int kBlockK = 128;                 // keys per tile: St is 32 KiB with 64-row blocks
constexpr double kLog2e = 1.44269504088896340736;
constexpr double kLn2 = 0.693147180559945309417;
constexpr float kInf = std::numeric_limits<float>::infinity();

// 64-byte aligned float buffer that only grows.
class Buffer {
public:
    Buffer() = default;
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;
    ~Buffer() { release(); }

    float *ensure(std::size_t count)
    {
        if (count > m_size) {
            release();
            m_data = static_cast<float *>(::operator new(count * sizeof(float), std::align_val_t(64)));
            m_size = count;
        }
        return m_data;
    }

private:
    void release()
    {
        if (m_data) ::operator delete(m_data, std::align_val_t(64));
        m_data = nullptr;
        m_size = 0;
    }
    float *m_data = nullptr;
    std::size_t m_size = 0;
};

struct Scratch {
    Buffer qt;      // [D, BQ]    packed, pre-scaled Q block, transposed
    Buffer st;      // [BK, BQ]   score / probability tile
    Buffer ot;      // [Dv, BQ]   un-normalised output accumulator, transposed
    Buffer kpack;   // [BK, D]    K rows, when K's inner stride is not 1
    Buffer vpack;   // [BK, Dv]   V rows, likewise
    Buffer panel;   // [Lk, BQ]   full score rows for the exact-weights mode
};

struct Problem {
    const KernelArgs &a;
    const MaskSpec &mask;
    std::int64_t B, H, Lq, Lk, D, Dv, qBlocks;
    float qScale;
    std::vector<std::int64_t> firstKey, lastKey;   // per batch item: first and last valid key

    explicit Problem(const KernelArgs &args)
        : a(args), mask(*args.mask), B(args.B()), H(args.H()), Lq(args.Lq()), Lk(args.Lk()), D(args.D()),
          Dv(args.Dv()), qBlocks((args.Lq() + kBlockQ - 1) / kBlockQ), qScale(static_cast<float>(static_cast<double>(args.scale) * kLog2e))
    {
        firstKey.assign(static_cast<std::size_t>(B), 0);
        lastKey.assign(static_cast<std::size_t>(B), Lk - 1);
        if (mask.keyValid.empty()) return;
        for (std::int64_t b = 0; b < B; ++b) {
            const std::uint8_t *kv = mask.keyValid.data() + b * Lk;
            std::int64_t first = 0, last = Lk - 1;
            while (first < Lk && !kv[first]) ++first;
            while (last >= 0 && !kv[last]) --last;
            firstKey[static_cast<std::size_t>(b)] = first;
            lastKey[static_cast<std::size_t>(b)] = last;
        }
    }

    const float *customPlane(const std::vector<float> &m, std::int64_t b) const
    {
        return m.data() + (static_cast<std::int64_t>(m.size()) > Lq * Lk ? b * Lq * Lk : 0);
    }
    const std::uint8_t *customPlane(const std::vector<std::uint8_t> &m, std::int64_t b) const
    {
        return m.data() + (static_cast<std::int64_t>(m.size()) > Lq * Lk ? b * Lq * Lk : 0);
    }
};

// One work item's query rows and their structural key intervals.
struct RowBlock {
    std::int64_t b = 0, h = 0, kvh = 0, q0 = 0;
    int rows = 0;
    bool anyLive = false;
    std::int64_t minLo = 0, maxHi = -1;       // union of the live rows' intervals
    bool live[kBlockQ];
    std::int64_t lo[kBlockQ], hi[kBlockQ];
    alignas(64) float loF[kBlockQ];           // +inf / -inf for dead and padding lanes: always masked
    alignas(64) float hiF[kBlockQ];
    alignas(64) float posF[kBlockQ];          // i' = i + Lk - Lq, for ALiBi
};

void setupRows(const Problem &p, std::int64_t b, std::int64_t h, std::int64_t qb, RowBlock &rb)
{
    const MaskSpec &m = p.mask;
    rb.b = b;
    rb.h = h;
    rb.kvh = p.a.kvHead(h);
    rb.q0 = qb * kBlockQ;
    rb.rows = static_cast<int>(std::min<std::int64_t>(kBlockQ, p.Lq - rb.q0));
    rb.anyLive = false;
    rb.minLo = p.Lk;
    rb.maxHi = -1;
    for (int r = 0; r < kBlockQ; ++r) {
        const std::int64_t i = rb.q0 + r;
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
        bool live = r < rb.rows && lo <= hi;
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

// Which keys of [t0, t1) a tile computes, and which mask work it needs.
struct TilePlan {
    std::int64_t c0 = 0, c1 = 0;
    bool structural = false, keyPadding = false, allowed = false, bias = false;
    bool needsMask() const { return structural || keyPadding || allowed || bias; }
};

// False when no live row sees any key of the tile.
bool planTile(const Problem &p, const RowBlock &rb, std::int64_t t0, std::int64_t t1, TilePlan &tp)
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
    if (!m.additive.empty()) {
        const float *ad = p.customPlane(m.additive, rb.b);
        bool anyFinite = false;
        for (int r = 0; r < rb.rows && !anyFinite; ++r) {
            if (!rb.live[r]) continue;
            const float *row = ad + (rb.q0 + r) * p.Lk;
            for (std::int64_t j = c0; j < c1; ++j) anyFinite |= row[j] != -kInf;
        }
        if (!anyFinite) return false;
        tp.bias = true;
    }
    tp.c0 = c0;
    tp.c1 = c1;
    return true;
}

// Applies the mask to a score tile st [c1 - c0, BQ] (log2 units) and folds it into rowMax.
template <int NV>
void applyMask(const Problem &p, const RowBlock &rb, const TilePlan &tp, float *st, Vec *rowMax)
{
    const MaskSpec &m = p.mask;
    const int kc = static_cast<int>(tp.c1 - tp.c0);
    const std::uint8_t *kv = m.keyValid.empty() ? nullptr : m.keyValid.data() + rb.b * p.Lk;
    const float alibi = m.alibiSlopes.empty() ? 0.0f : static_cast<float>(-m.alibiSlopes[static_cast<std::size_t>(rb.h)] * kLog2e);
    if (tp.structural || !m.alibiSlopes.empty() || tp.keyPadding) {
        for (int c = 0; c < kc; ++c) {
            const std::int64_t j = tp.c0 + c;
            float *row = st + c * kBlockQ;
            if (tp.keyPadding && !kv[j]) {
                for (int v = 0; v < NV; ++v) simd::store(row + v * kLanes, simd::set1(-kInf));
                continue;
            }
            const Vec jv = simd::set1(static_cast<float>(j));
            for (int v = 0; v < NV; ++v) {
                Vec x = simd::load(row + v * kLanes);
                if (tp.structural)
                    x = simd::keepInRange(x, jv, simd::load(rb.loF + v * kLanes), simd::load(rb.hiF + v * kLanes));
                if (!m.alibiSlopes.empty())
                    x = simd::fma(simd::set1(alibi), simd::absolute(simd::sub(jv, simd::load(rb.posF + v * kLanes))),
                                  x);
                simd::store(row + v * kLanes, x);
            }
        }
    }
    if (tp.allowed || !m.additive.empty()) {
        const std::uint8_t *al = tp.allowed ? p.customPlane(m.allowed, rb.b) : nullptr;
        const float *ad = m.additive.empty() ? nullptr : p.customPlane(m.additive, rb.b);
        for (int r = 0; r < rb.rows; ++r) {
            if (!rb.live[r]) continue;
            const std::int64_t rowOff = (rb.q0 + r) * p.Lk + tp.c0;
            for (int c = 0; c < kc; ++c) {
                float &s = st[c * kBlockQ + r];
                if (al && !al[rowOff + c])
                    s = -kInf;
                else if (ad)
                    s += static_cast<float>(kLog2e) * ad[rowOff + c];
            }
        }
    }
    for (int c = 0; c < kc; ++c)
        for (int v = 0; v < NV; ++v) rowMax[v] = simd::max(rowMax[v], simd::load(st + c * kBlockQ + v * kLanes));
}

template <int NV>
void packQuery(const Problem &p, const RowBlock &rb, float *qt)
{
    const TensorView &q = p.a.q;
    const std::int64_t qs = q.strides[3];
    for (int r = 0; r < NV * kLanes; ++r) {
        if (r >= rb.rows) {
            for (std::int64_t t = 0; t < p.D; ++t) qt[t * kBlockQ + r] = 0.0f;
            continue;
        }
        const float *src = q.row(rb.b, rb.h, rb.q0 + r);
        for (std::int64_t t = 0; t < p.D; ++t) qt[t * kBlockQ + r] = src[t * qs] * p.qScale;
    }
}

// Rows [c0, c0 + kc) of K or V for the item's kv head, with unit inner stride (packed when the view has not).
const float *operandRows(const TensorView &x, const RowBlock &rb, std::int64_t c0, int kc, Buffer &pack,
                         std::int64_t &ld)
{
    const std::int64_t dim = x.shape[3];
    if (x.strides[3] == 1) {
        ld = x.strides[2];
        return x.row(rb.b, rb.kvh, c0);
    }
    float *dst = pack.ensure(static_cast<std::size_t>(kBlockK * dim));
    for (int c = 0; c < kc; ++c) {
        const float *src = x.row(rb.b, rb.kvh, c0 + c);
        for (std::int64_t t = 0; t < dim; ++t) dst[c * dim + t] = src[t * x.strides[3]];
    }
    ld = dim;
    return dst;
}

// Writes O rows and lse for the block: O = ot / l (or ot itself when already normalised).
template <int NV>
void finishBlock(const Problem &p, const RowBlock &rb, const float *ot, const Vec *m, const Vec *l,
                 bool normalised)
{
    alignas(64) float mArr[kBlockQ], lArr[kBlockQ];
    for (int v = 0; v < NV; ++v) {
        simd::store(mArr + v * kLanes, m[v]);
        simd::store(lArr + v * kLanes, l[v]);
    }
    const MutableTensorView &out = p.a.out;
    for (int r = 0; r < rb.rows; ++r) {
        const std::int64_t i = rb.q0 + r;
        float *o = out.row(rb.b, rb.h, i);
        const std::int64_t os = out.strides[3];
        float &lse = p.a.lse[(rb.b * p.H + rb.h) * p.Lq + i];
        if (!rb.live[r] || !(lArr[r] > 0.0f)) {
            for (std::int64_t t = 0; t < p.Dv; ++t) o[t * os] = 0.0f;
            lse = kInf;
            continue;
        }
        const float l = lArr[r];
        if (normalised)
            for (std::int64_t t = 0; t < p.Dv; ++t) o[t * os] = ot[t * kBlockQ + r];
        else
            for (std::int64_t t = 0; t < p.Dv; ++t) o[t * os] = ot[t * kBlockQ + r] / l;
        lse = static_cast<float>(static_cast<double>(mArr[r]) * kLn2 + std::log(static_cast<double>(l)));
    }
}

// The FlashAttention-2 loop for one (b, h, query block).
template <int NV>
void flashItem(const Problem &p, const RowBlock &rb, Scratch &sc)
{
    float *qt = sc.qt.ensure(static_cast<std::size_t>(p.D * kBlockQ));
    float *st = sc.st.ensure(static_cast<std::size_t>(kBlockK * kBlockQ));
    float *ot = sc.ot.ensure(static_cast<std::size_t>(p.Dv * kBlockQ));
    packQuery<NV>(p, rb, qt);
    std::fill(ot, ot + p.Dv * kBlockQ, 0.0f);
    Vec m[NV], l[NV];
    for (int v = 0; v < NV; ++v) {
        m[v] = simd::set1(-kInf);
        l[v] = simd::zero();
    }
    const int d = static_cast<int>(p.D), dv = static_cast<int>(p.Dv);
    for (std::int64_t t0 = rb.minLo; t0 <= rb.maxHi; t0 += kBlockK) {
        TilePlan tp;
        if (!planTile(p, rb, t0, std::min(t0 + kBlockK, rb.maxHi + 1), tp)) continue;
        const int kc = static_cast<int>(tp.c1 - tp.c0);
        std::int64_t ldk = 0, ldv = 0;
        const float *kp = operandRows(p.a.k, rb, tp.c0, kc, sc.kpack, ldk);
        Vec rowMax[NV];
        for (int v = 0; v < NV; ++v) rowMax[v] = simd::set1(-kInf);
        const bool masked = tp.needsMask();
        simd::scoreTile<NV>(kp, ldk, kc, qt, d, st, masked ? nullptr : rowMax);
        if (masked) applyMask<NV>(p, rb, tp, st, rowMax);

        // Online softmax: new max, rescale factor for what was accumulated, exp and row sum in one pass.
        // A lane with no visible key so far keeps m = -inf; its reference point is 0 so that nothing is NaN.
        Vec alpha[NV], ref[NV], sum[NV];
        for (int v = 0; v < NV; ++v) {
            const Vec mNew = simd::max(m[v], rowMax[v]);
            ref[v] = simd::negInfToZero(mNew);
            alpha[v] = simd::exp2(simd::sub(m[v], ref[v]));
            m[v] = mNew;
            sum[v] = simd::zero();
        }
        for (int c = 0; c < kc; ++c) {
            float *row = st + c * kBlockQ;
            for (int v = 0; v < NV; ++v) {
                const Vec e = simd::exp2(simd::sub(simd::load(row + v * kLanes), ref[v]));
                simd::store(row + v * kLanes, e);
                sum[v] = simd::add(sum[v], e);
            }
        }
        for (int v = 0; v < NV; ++v) l[v] = simd::fma(l[v], alpha[v], sum[v]);

        const float *vp = operandRows(p.a.v, rb, tp.c0, kc, sc.vpack, ldv);
        simd::valueTile<NV>(st, kc, vp, ldv, dv, ot, alpha);
    }
    finishBlock<NV>(p, rb, ot, m, l, false);
}

// Row-block exact softmax for a head whose weights were requested: full score rows, exact max and sum,
// P written to the caller's buffer, then O = P·V from those same P values.
template <int NV>
void weightsItem(const Problem &p, const RowBlock &rb, Scratch &sc, float *P)
{
    float *qt = sc.qt.ensure(static_cast<std::size_t>(p.D * kBlockQ));
    float *ot = sc.ot.ensure(static_cast<std::size_t>(p.Dv * kBlockQ));
    packQuery<NV>(p, rb, qt);
    std::fill(ot, ot + p.Dv * kBlockQ, 0.0f);
    Vec m[NV], l[NV];
    for (int v = 0; v < NV; ++v) {
        m[v] = simd::set1(-kInf);
        l[v] = simd::zero();
    }
    if (!rb.anyLive) return finishBlock<NV>(p, rb, ot, m, l, true);

    const std::int64_t span = rb.maxHi - rb.minLo + 1;
    float *panel = sc.panel.ensure(static_cast<std::size_t>(span * kBlockQ));
    const int d = static_cast<int>(p.D), dv = static_cast<int>(p.Dv);
    auto fillMasked = [&](std::int64_t from, std::int64_t to) {
        for (std::int64_t j = from; j < to; ++j)
            for (int v = 0; v < NV; ++v) simd::store(panel + (j - rb.minLo) * kBlockQ + v * kLanes, simd::set1(-kInf));
    };
    for (std::int64_t t0 = rb.minLo; t0 <= rb.maxHi; t0 += kBlockK) {
        const std::int64_t t1 = std::min(t0 + kBlockK, rb.maxHi + 1);
        TilePlan tp;
        if (!planTile(p, rb, t0, t1, tp)) {
            fillMasked(t0, t1);
            continue;
        }
        fillMasked(t0, tp.c0);
        fillMasked(tp.c1, t1);
        const int kc = static_cast<int>(tp.c1 - tp.c0);
        float *st = panel + (tp.c0 - rb.minLo) * kBlockQ;
        std::int64_t ldk = 0;
        const float *kp = operandRows(p.a.k, rb, tp.c0, kc, sc.kpack, ldk);
        const bool masked = tp.needsMask();
        simd::scoreTile<NV>(kp, ldk, kc, qt, d, st, masked ? nullptr : m);
        if (masked) applyMask<NV>(p, rb, tp, st, m);
    }

    Vec ref[NV];
    for (int v = 0; v < NV; ++v) ref[v] = simd::negInfToZero(m[v]);
    for (std::int64_t c = 0; c < span; ++c) {
        float *row = panel + c * kBlockQ;
        for (int v = 0; v < NV; ++v) {
            const Vec e = simd::exp2(simd::sub(simd::load(row + v * kLanes), ref[v]));
            simd::store(row + v * kLanes, e);
            l[v] = simd::add(l[v], e);
        }
    }
    // P = e / l with a true division (one rounding, like the textbook softmax). Lanes with nothing to
    // normalise (dead rows, fully masked rows) get e = 0 and l = +inf, so they divide to exactly 0.
    alignas(64) float keep[kBlockQ], den[kBlockQ];
    for (int v = 0; v < NV; ++v) simd::store(den + v * kLanes, l[v]);
    for (int r = 0; r < kBlockQ; ++r) {
        const bool live = r < rb.rows && rb.live[r] && den[r] > 0.0f;
        keep[r] = live ? 1.0f : 0.0f;
        if (!live) den[r] = kInf;
    }
    for (std::int64_t c = 0; c < span; ++c) {
        float *row = panel + c * kBlockQ;
        for (int v = 0; v < NV; ++v) {
            const Vec e = simd::mul(simd::load(row + v * kLanes), simd::load(keep + v * kLanes));
            simd::store(row + v * kLanes, simd::div(e, simd::load(den + v * kLanes)));
        }
    }
    for (int r = 0; r < rb.rows; ++r) {
        if (!rb.live[r]) continue;
        float *dst = P + (rb.q0 + r) * p.Lk + rb.minLo;
        for (std::int64_t c = 0; c < span; ++c) dst[c] = panel[c * kBlockQ + r];
    }
    for (std::int64_t c0 = 0; c0 < span; c0 += kBlockK) {
        const int kc = static_cast<int>(std::min<std::int64_t>(kBlockK, span - c0));
        std::int64_t ldv = 0;
        const float *vp = operandRows(p.a.v, rb, rb.minLo + c0, kc, sc.vpack, ldv);
        simd::valueTile<NV>(panel + c0 * kBlockQ, kc, vp, ldv, dv, ot, nullptr);
    }
    finishBlock<NV>(p, rb, ot, m, l, true);
}

template <int NV>
void runItem(const Problem &p, const RowBlock &rb, Scratch &sc)
{
    if (float *P = p.a.weightsFor(rb.b, rb.h)) return weightsItem<NV>(p, rb, sc, P);
    flashItem<NV>(p, rb, sc);
}

} // namespace

const char *tiledSimdLevel() { return simd::kLevel; }

Status tiledAttention(const KernelArgs &args)
{
    const Problem p(args);
    if (p.B == 0 || p.H == 0 || p.Lq == 0) return Status::ok();
    const std::int64_t heads = p.B * p.H;
    const std::int64_t items = heads * p.qBlocks;
    const int threads = std::max(1, args.threads);
    std::unique_ptr<Scratch[]> scratch(new Scratch[static_cast<std::size_t>(threads)]);

    // Last query blocks first: under causal masks they are the longest, and starting them early balances the
    // dynamic schedule's tail.
    auto body = [&](std::int64_t item, int thread) {
        const std::int64_t qb = p.qBlocks - 1 - item / heads;
        const std::int64_t bh = item % heads;
        RowBlock rb;
        setupRows(p, bh / p.H, bh % p.H, qb, rb);
        Scratch &sc = scratch[static_cast<std::size_t>(thread)];
        switch ((rb.rows + kLanes - 1) / kLanes) {
        case 1: return runItem<1>(p, rb, sc);
        case 2: return runItem<2>(p, rb, sc);
        case 3: return runItem<3>(p, rb, sc);
        default: return runItem<simd::kQueryVecs>(p, rb, sc);
        }
    };
    return parallelFor(items, threads, body, args.cancel, args.progress);
}

} // namespace attn::detail
