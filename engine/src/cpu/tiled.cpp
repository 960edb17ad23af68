// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/tiled.h"

#include "cpu/tile_scores.h"
#include "parallel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>

// The FlashAttention-2 loop over (batch, head, query block) work items; score tiles (soft-cap, masks, the log2
// folding) come from tile_scores.h. With split-KV a work item is (batch, head, query block, key chunk): each
// writes its partial (m, l, un-normalised O) and a second pass merges the chunks of a row in chunk order,
// M = max m_c, l = Σ 2^(m_c − M) l_c, O = Σ 2^(m_c − M) O_c / l (reference/performance.md §2). The chunks are a
// function of Lk only, so the result is the same whatever the number of threads.

namespace attn::detail {

namespace {

using namespace tile;

constexpr std::int64_t kMinChunkKeys = 256;   // split-KV chunks are never shorter (the per-item overhead)
constexpr std::int64_t kMaxChunks = 64;       // ... nor more per row than this (the partials' memory)

struct Problem : ScoreProblem {
    const KernelArgs &a;
    std::int64_t Dv, qBlocks;
    std::int64_t chunkKeys = 0, chunks = 1;   // split-KV: 0 / 1 when off

    explicit Problem(const KernelArgs &args)
        : ScoreProblem(args.q, args.k, *args.mask, args.scale, args.softcap), a(args), Dv(args.Dv()),
          qBlocks((args.Lq() + kBlockQ - 1) / kBlockQ)
    {
    }
};

// Splits K/V into chunks of a length that depends on Lk only, a multiple of the key tile.
std::int64_t splitChunkKeys(std::int64_t Lk)
{
    const std::int64_t perChunk = std::max(kMinChunkKeys, (Lk + kMaxChunks - 1) / kMaxChunks);
    return (perChunk + kBlockK - 1) / kBlockK * kBlockK;
}

bool useSplitKv(const KernelArgs &a)
{
    switch (a.splitKv) {
    case AttentionOptions::SplitKv::On: return true;
    case AttentionOptions::SplitKv::Off: return false;
    case AttentionOptions::SplitKv::Auto: break;
    }
    return a.Lq() <= kSplitKvMaxLq && a.Lk() >= kSplitKvMinLk;
}

// Writes O rows (unless LSE only) and lse for the block: O = ot / l (or ot itself when already normalised).
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
    const bool values = !p.a.lseOnly;
    for (int r = 0; r < rb.rows; ++r) {
        const std::int64_t i = rb.q0 + r;
        float *o = values ? out.row(rb.b, rb.h, i) : nullptr;
        const std::int64_t os = out.strides[3];
        float &lse = p.a.lse[(rb.b * p.H + rb.h) * p.Lq + i];
        if (!rb.live[r] || !(lArr[r] > 0.0f)) {
            if (values)
                for (std::int64_t t = 0; t < p.Dv; ++t) o[t * os] = 0.0f;
            lse = kInf;
            continue;
        }
        const float l = lArr[r];
        if (values && normalised)
            for (std::int64_t t = 0; t < p.Dv; ++t) o[t * os] = ot[t * kBlockQ + r];
        else if (values)
            for (std::int64_t t = 0; t < p.Dv; ++t) o[t * os] = ot[t * kBlockQ + r] / l;
        lse = static_cast<float>(static_cast<double>(mArr[r]) * kLn2 + std::log(static_cast<double>(l)));
    }
}

// Split-KV partials, per query row g = (b·H + h)·Lq + i and chunk c: m and l at [g·chunks + c], O at
// [(g·chunks + c)·Dv].
struct Partials {
    std::vector<float> m, l, o;
};

template <int NV>
void writePartial(const Problem &p, const RowBlock &rb, std::int64_t chunk, const float *ot, const Vec *m,
                  const Vec *l, Partials &part)
{
    alignas(64) float mArr[kBlockQ], lArr[kBlockQ];
    for (int v = 0; v < NV; ++v) {
        simd::store(mArr + v * kLanes, m[v]);
        simd::store(lArr + v * kLanes, l[v]);
    }
    for (int r = 0; r < rb.rows; ++r) {
        const std::size_t slot = static_cast<std::size_t>(((rb.b * p.H + rb.h) * p.Lq + rb.q0 + r) * p.chunks + chunk);
        const bool live = rb.live[r] && lArr[r] > 0.0f;
        part.m[slot] = live ? mArr[r] : -kInf;
        part.l[slot] = live ? lArr[r] : 0.0f;
        if (p.a.lseOnly) continue;
        float *o = part.o.data() + slot * static_cast<std::size_t>(p.Dv);
        for (std::int64_t t = 0; t < p.Dv; ++t) o[t] = live ? ot[t * kBlockQ + r] : 0.0f;
    }
}

// One (b, h, query block) over the keys [k0, k1); finished directly, or as chunk `chunk` of a split row.
template <int NV, bool Values>
void flashItem(const Problem &p, const RowBlock &rb, Scratch &sc, std::int64_t chunk, Partials *part)
{
    float *qt = sc.qt.ensure(static_cast<std::size_t>(p.D * kBlockQ));
    float *ot = Values ? sc.ot.ensure(static_cast<std::size_t>(p.Dv * kBlockQ)) : nullptr;
    packQuery<NV>(p, rb, qt);
    if (Values) std::fill(ot, ot + p.Dv * kBlockQ, 0.0f);
    Vec m[NV], l[NV];
    for (int v = 0; v < NV; ++v) {
        m[v] = simd::set1(-kInf);
        l[v] = simd::zero();
    }
    const std::int64_t k0 = part ? chunk * p.chunkKeys : 0;
    const std::int64_t k1 = part ? std::min(p.Lk, k0 + p.chunkKeys) : p.Lk;
    sweep<NV, Values>(p, rb, sc, qt, k0, k1, m, l, ot, &p.a.v);
    if (part) writePartial<NV>(p, rb, chunk, ot, m, l, *part);
    else finishBlock<NV>(p, rb, ot, m, l, false);
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
    const int dv = static_cast<int>(p.Dv);
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
        std::int64_t ldk = 0;
        const float *kp = operandRows(p.k, rb, tp.c0, kc, sc.kpack, ldk);
        scores<NV>(p, rb, tp, kp, ldk, qt, panel + (tp.c0 - rb.minLo) * kBlockQ, m);
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

// The rows of (b, h) merged from their chunks' partials, in chunk order.
void mergeHead(const Problem &p, std::int64_t b, std::int64_t h, const Partials &part)
{
    const bool values = !p.a.lseOnly;
    const MutableTensorView &out = p.a.out;
    std::vector<double> w(static_cast<std::size_t>(p.chunks));
    for (std::int64_t i = 0; i < p.Lq; ++i) {
        const std::size_t g = static_cast<std::size_t>((b * p.H + h) * p.Lq + i);
        const std::size_t first = g * static_cast<std::size_t>(p.chunks);
        float M = -kInf;
        for (std::int64_t c = 0; c < p.chunks; ++c) M = std::max(M, part.m[first + static_cast<std::size_t>(c)]);
        double l = 0.0;
        for (std::int64_t c = 0; c < p.chunks; ++c) {
            const std::size_t s = first + static_cast<std::size_t>(c);
            w[static_cast<std::size_t>(c)] = part.l[s] > 0.0f ? std::exp2(static_cast<double>(part.m[s]) - M) : 0.0;
            l += w[static_cast<std::size_t>(c)] * part.l[s];
        }
        float *o = values ? out.row(b, h, i) : nullptr;
        const std::int64_t os = out.strides[3];
        float &lse = p.a.lse[g];
        if (!(l > 0.0)) {
            if (values)
                for (std::int64_t t = 0; t < p.Dv; ++t) o[t * os] = 0.0f;
            lse = kInf;
            continue;
        }
        lse = static_cast<float>(static_cast<double>(M) * kLn2 + std::log(l));
        if (!values) continue;
        for (std::int64_t t = 0; t < p.Dv; ++t) {
            double acc = 0.0;
            for (std::int64_t c = 0; c < p.chunks; ++c) {
                const std::size_t s = first + static_cast<std::size_t>(c);
                acc += w[static_cast<std::size_t>(c)] * part.o[s * static_cast<std::size_t>(p.Dv) + static_cast<std::size_t>(t)];
            }
            o[t * os] = static_cast<float>(acc / l);
        }
    }
}

} // namespace

const char *tiledSimdLevel() { return simd::kLevel; }

Status tiledAttention(const KernelArgs &args)
{
    Problem p(args);
    if (p.B == 0 || p.H == 0 || p.Lq == 0) return Status::ok();
    const std::int64_t heads = p.B * p.H;
    const int threads = std::max(1, args.threads);
    std::unique_ptr<Scratch[]> scratch(new Scratch[static_cast<std::size_t>(threads)]);

    Partials part;
    if (useSplitKv(args)) {
        p.chunkKeys = splitChunkKeys(p.Lk);
        p.chunks = (p.Lk + p.chunkKeys - 1) / p.chunkKeys;
        const std::size_t slots = static_cast<std::size_t>(heads * p.Lq * p.chunks);
        try {
            part.m.assign(slots, -kInf);
            part.l.assign(slots, 0.0f);
            if (!args.lseOnly) part.o.assign(slots * static_cast<std::size_t>(p.Dv), 0.0f);
        } catch (const std::bad_alloc &) {
            return Status(ErrorCode::OutOfMemory, "split-KV attention: cannot allocate the partial results of " +
                                                      std::to_string(p.chunks) + " key chunks per query row");
        }
    }
    const bool split = p.chunkKeys > 0;

    // Last query blocks first: under causal masks they are the longest, and starting them early balances the
    // dynamic schedule's tail. A head whose weights were requested runs the exact row-block pass as chunk 0.
    auto body = [&](std::int64_t item, int thread) {
        const std::int64_t chunk = item % p.chunks;
        const std::int64_t block = item / p.chunks;
        const std::int64_t qb = p.qBlocks - 1 - block / heads;
        const std::int64_t bh = block % heads;
        float *P = args.weightsFor(bh / p.H, bh % p.H);
        if (P && chunk > 0) return;
        RowBlock rb;
        const std::int64_t q0 = qb * kBlockQ;
        setupRows(p, bh / p.H, bh % p.H, q0, static_cast<int>(std::min<std::int64_t>(kBlockQ, p.Lq - q0)), rb);
        Scratch &sc = scratch[static_cast<std::size_t>(thread)];
        Partials *partial = split && !P ? &part : nullptr;
        withQueryVecs(rb.rows, [&](auto nv) {
            constexpr int NV = decltype(nv)::value;
            if (P) weightsItem<NV>(p, rb, sc, P);
            else if (args.lseOnly) flashItem<NV, false>(p, rb, sc, chunk, partial);
            else flashItem<NV, true>(p, rb, sc, chunk, partial);
        });
    };
    Status status = parallelFor(heads * p.qBlocks * p.chunks, threads, body, args.cancel, args.progress);
    if (!status || !split) return status;
    // The merge is O(rows · chunks · Dv), small beside the sweep: one item per head, no progress of its own.
    return parallelFor(heads, threads, [&](std::int64_t bh, int) {
        if (!args.weightsFor(bh / p.H, bh % p.H)) mergeHead(p, bh / p.H, bh % p.H, part);
    });
}

} // namespace attn::detail
