// SPDX-License-Identifier: GPL-3.0-or-later
// The exact zoomable attention map (attnscope/attentionmap.h), on the tiled kernel's score tiles.
//
// Overview: each work item owns whole rows of the grid and sweeps its query rows in blocks of kBlockQ against every
// key once. Per row r and key block b it keeps, lane-wise:
//   acc[b] = Σ_{j ∈ b} 2^(s_rj − ref)   relative to ref = the row's running maximum when b was last touched (mref[b])
//   mx[b]  = max_{j ∈ b} s_rj           (log2 units)
// A key block that continues into a tile whose maximum grew is rescaled by 2^(mref − ref) first (only that block:
// the keys are swept in order, so every earlier block is finished). At the end of the query block, with the row's
// final m and l: mass += acc · 2^(mref − m) / l and max = 2^(mx − m) / l, which is Σ P and max P of the block
// exactly as P = exp(s − lse) defines them. Grid rows belong to one item, and an item adds its rows in order, so the
// grid is the same bits for every thread count.
#include <attnscope/attentionmap.h>

#include "cpu/tile_scores.h"
#include "parallel.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

namespace attn {

namespace {

using namespace detail::tile;

constexpr std::int64_t kMaxGrid = 16384;   // grid² cells of 12 bytes: 3 GiB at the limit

// The views the score tiles read. With F16/BF16 the mapped head's Q and K are rounded copies, seen through views
// whose batch and head strides are 0 (every (b, h) reads the copy; only the mapped one is ever read).
struct MapInputs {
    std::vector<float> qCopy, kCopy;
    TensorView q, k;
};

TensorView roundedHead(const TensorView &t, std::int64_t b, std::int64_t h, ComputeDtype dt, std::vector<float> &copy)
{
    const std::int64_t L = t.shape[2], D = t.shape[3];
    copy.resize(static_cast<std::size_t>(L * D));
    for (std::int64_t i = 0; i < L; ++i)
        for (std::int64_t d = 0; d < D; ++d)
            copy[static_cast<std::size_t>(i * D + d)] = roundToDtype(t.at(b, h, i, d), dt);
    return TensorView(copy.data(), t.shape, {0, 0, D, 1});
}

Status checkInputs(const TensorView &q, const TensorView &k, const MaskSpec &mask, const AttentionMapOptions &o,
                   MapInputs &in)
{
    AttentionOptions check;
    check.scale = o.scale;
    check.softcap = o.softcap;
    check.threads = o.threads;
    // k stands in for v: the map needs no values, and k has every property validation asks of v.
    if (Status s = validateAttention(q, k, k, mask, check); !s) return s;
    if (o.batch < 0 || o.batch >= q.shape[0] || o.head < 0 || o.head >= q.shape[1])
        return Status::invalid("attention map: batch " + std::to_string(o.batch) + " head " + std::to_string(o.head) +
                               " is outside batch [0, " + std::to_string(q.shape[0]) + ") x heads [0, " +
                               std::to_string(q.shape[1]) + ")");
    in.q = q;
    in.k = k;
    if (o.computeDtype != ComputeDtype::F32) {
        in.q = roundedHead(q, o.batch, o.head, o.computeDtype, in.qCopy);
        in.k = roundedHead(k, o.batch, o.head / (q.shape[1] / k.shape[1]), o.computeDtype, in.kCopy);
    }
    return Status::ok();
}

float resolvedScale(const TensorView &q, const AttentionMapOptions &o)
{
    return o.scale > 0.0f ? o.scale : 1.0f / std::sqrt(static_cast<float>(q.shape[3]));
}

// Per-thread state of the overview on top of the tile scratch.
struct MapScratch {
    Scratch tiles;
    Buffer acc, mref, mx;                // [Gk, BQ] each
    std::vector<std::int64_t> stamp;     // [Gk]: the query block that last initialised the key block
    std::vector<std::int32_t> touched;   // key blocks of the current query block, in key order
    std::int64_t stampId = 0;
};

struct Overview {
    const ScoreProblem &p;
    std::int64_t b, h, Gq, Gk;
    const std::vector<std::int64_t> &rowStart, &colStart;
    const std::vector<std::int32_t> &keyBlock;   // [Lk]
    std::vector<double> &mass;
    std::vector<float> &max;
    AttentionMapRows &rows;
};

template <int NV>
void overviewBlock(const Overview &o, std::int64_t r0, int rowCount, std::int64_t gridRow0, MapScratch &ms)
{
    const ScoreProblem &p = o.p;
    RowBlock rb;
    setupRows(p, o.b, o.h, r0, rowCount, rb);
    float *qt = ms.tiles.qt.ensure(static_cast<std::size_t>(p.D * kBlockQ));
    float *st = ms.tiles.st.ensure(static_cast<std::size_t>(kBlockK * kBlockQ));
    float *acc = ms.acc.ensure(static_cast<std::size_t>(o.Gk * kBlockQ));
    float *mref = ms.mref.ensure(static_cast<std::size_t>(o.Gk * kBlockQ));
    float *mx = ms.mx.ensure(static_cast<std::size_t>(o.Gk * kBlockQ));
    packQuery<NV>(p, rb, qt);
    const std::int64_t stampId = ++ms.stampId;
    ms.touched.clear();

    Vec m[NV], l[NV];
    for (int v = 0; v < NV; ++v) {
        m[v] = simd::set1(-kInf);
        l[v] = simd::zero();
    }
    for (std::int64_t t0 = rb.minLo; t0 <= rb.maxHi; t0 += kBlockK) {
        TilePlan tp;
        if (!planTile(p, rb, t0, std::min(t0 + kBlockK, rb.maxHi + 1), tp)) continue;
        const int kc = static_cast<int>(tp.c1 - tp.c0);
        std::int64_t ldk = 0;
        const float *kp = operandRows(p.k, rb, tp.c0, kc, ms.tiles.kpack, ldk);
        Vec rowMax[NV], mNew[NV], ref[NV], alpha[NV], sum[NV];
        for (int v = 0; v < NV; ++v) rowMax[v] = simd::set1(-kInf);
        scores<NV>(p, rb, tp, kp, ldk, qt, st, rowMax);
        for (int v = 0; v < NV; ++v) {
            mNew[v] = simd::max(m[v], rowMax[v]);
            ref[v] = simd::negInfToZero(mNew[v]);
            alpha[v] = simd::exp2(simd::sub(m[v], ref[v]));
            sum[v] = simd::zero();
        }
        // Segments: the tile's keys cut at key-block boundaries.
        for (int c = 0; c < kc;) {
            const std::int32_t kb = o.keyBlock[static_cast<std::size_t>(tp.c0 + c)];
            const int end = static_cast<int>(std::min<std::int64_t>(kc, o.colStart[static_cast<std::size_t>(kb) + 1] - tp.c0));
            Vec seg[NV], segMax[NV];
            for (int v = 0; v < NV; ++v) {
                seg[v] = simd::zero();
                segMax[v] = simd::set1(-kInf);
            }
            for (; c < end; ++c) {
                const float *row = st + c * kBlockQ;
                for (int v = 0; v < NV; ++v) {
                    const Vec x = simd::load(row + v * kLanes);
                    seg[v] = simd::add(seg[v], simd::exp2(simd::sub(x, ref[v])));
                    segMax[v] = simd::max(segMax[v], x);
                }
            }
            float *a = acc + kb * kBlockQ, *r = mref + kb * kBlockQ, *x = mx + kb * kBlockQ;
            const bool fresh = ms.stamp[static_cast<std::size_t>(kb)] != stampId;
            if (fresh) {
                ms.stamp[static_cast<std::size_t>(kb)] = stampId;
                ms.touched.push_back(kb);
            }
            for (int v = 0; v < NV; ++v) {
                sum[v] = simd::add(sum[v], seg[v]);
                Vec av = seg[v], xv = segMax[v];
                if (!fresh) {
                    // mref = -inf (nothing visible yet) rescales by exactly 0; the sum there is 0 anyway.
                    const Vec scale = simd::exp2(simd::sub(simd::load(r + v * kLanes), ref[v]));
                    av = simd::fma(simd::load(a + v * kLanes), scale, seg[v]);
                    xv = simd::max(xv, simd::load(x + v * kLanes));
                }
                simd::store(a + v * kLanes, av);
                simd::store(r + v * kLanes, mNew[v]);
                simd::store(x + v * kLanes, xv);
            }
        }
        for (int v = 0; v < NV; ++v) {
            l[v] = simd::fma(l[v], alpha[v], sum[v]);
            m[v] = mNew[v];
        }
    }

    alignas(64) float mArr[kBlockQ], lArr[kBlockQ], massArr[kBlockQ], maxArr[kBlockQ];
    for (int v = 0; v < NV; ++v) {
        simd::store(mArr + v * kLanes, m[v]);
        simd::store(lArr + v * kLanes, l[v]);
    }
    bool live[kBlockQ];
    std::int64_t gridRow[kBlockQ];
    alignas(64) float mSafe[kBlockQ], invL[kBlockQ];
    std::int64_t a = gridRow0;
    for (int r = 0; r < kBlockQ; ++r) {
        live[r] = r < rb.rows && rb.live[r] && lArr[r] > 0.0f;
        mSafe[r] = live[r] ? mArr[r] : 0.0f;
        invL[r] = live[r] ? 1.0f / lArr[r] : 0.0f;
        if (r < rb.rows) {
            while (o.rowStart[static_cast<std::size_t>(a) + 1] <= r0 + r) ++a;
            gridRow[r] = a;
            o.rows.m[static_cast<std::size_t>(r0 + r)] = live[r] ? mArr[r] : -kInf;
            o.rows.l[static_cast<std::size_t>(r0 + r)] = live[r] ? lArr[r] : 0.0f;
        }
    }
    for (const std::int32_t kb : ms.touched) {
        const float *av = acc + kb * kBlockQ, *rv = mref + kb * kBlockQ, *xv = mx + kb * kBlockQ;
        for (int v = 0; v < NV; ++v) {
            const Vec ms0 = simd::load(mSafe + v * kLanes), il = simd::load(invL + v * kLanes);
            const Vec f = simd::exp2(simd::sub(simd::load(rv + v * kLanes), ms0));
            simd::store(massArr + v * kLanes, simd::mul(simd::mul(simd::load(av + v * kLanes), f), il));
            simd::store(maxArr + v * kLanes, simd::mul(simd::exp2(simd::sub(simd::load(xv + v * kLanes), ms0)), il));
        }
        for (int r = 0; r < rb.rows; ++r) {
            if (!live[r]) continue;
            const std::size_t cell = static_cast<std::size_t>(gridRow[r] * o.Gk + kb);
            o.mass[cell] += massArr[r];
            o.max[cell] = std::max(o.max[cell], maxArr[r]);
        }
    }
}

} // namespace

double AttentionMapRows::lse(std::int64_t i) const
{
    const std::size_t r = static_cast<std::size_t>(i);
    if (!(l[r] > 0.0f)) return std::numeric_limits<double>::infinity();
    return static_cast<double>(m[r]) * kLn2 + std::log(static_cast<double>(l[r]));
}

std::vector<std::int64_t> attentionMapBlockStarts(std::int64_t n, std::int64_t grid)
{
    const std::int64_t G = std::clamp<std::int64_t>(grid, 1, std::max<std::int64_t>(n, 1));
    std::vector<std::int64_t> starts(static_cast<std::size_t>(G) + 1);
    for (std::int64_t b = 0; b <= G; ++b) starts[static_cast<std::size_t>(b)] = b * n / G;   // n·G < 2^63 here
    return starts;
}

Result<AttentionMapOverview> attentionMapOverview(const TensorView &q, const TensorView &k, const MaskSpec &mask,
                                                  const AttentionMapOptions &options)
{
    MapInputs in;
    if (Status s = checkInputs(q, k, mask, options, in); !s) return s;
    if (options.grid < 1 || options.grid > kMaxGrid)
        return Status::invalid("attention map: grid is " + std::to_string(options.grid) + "; use 1 to " +
                               std::to_string(kMaxGrid) + " cells per axis");
    const ScoreProblem p(in.q, in.k, mask, resolvedScale(q, options), options.softcap);

    AttentionMapOverview result;
    result.Lq = p.Lq;
    result.Lk = p.Lk;
    result.rowStart = attentionMapBlockStarts(p.Lq, options.grid);
    result.colStart = attentionMapBlockStarts(p.Lk, options.grid);
    result.gridRows = static_cast<std::int64_t>(result.rowStart.size()) - 1;
    result.gridCols = static_cast<std::int64_t>(result.colStart.size()) - 1;
    const std::int64_t Gq = result.gridRows, Gk = result.gridCols;
    std::vector<double> mass;
    try {
        mass.assign(static_cast<std::size_t>(Gq * Gk), 0.0);
        result.max.assign(static_cast<std::size_t>(Gq * Gk), 0.0f);
        result.rows.m.assign(static_cast<std::size_t>(p.Lq), -kInf);
        result.rows.l.assign(static_cast<std::size_t>(p.Lq), 0.0f);
    } catch (const std::bad_alloc &) {
        return Status(ErrorCode::OutOfMemory, "attention map: cannot allocate a " + std::to_string(Gq) + " x " +
                                                  std::to_string(Gk) + " grid");
    }
    std::vector<std::int32_t> keyBlock(static_cast<std::size_t>(p.Lk));
    for (std::int64_t b = 0; b < Gk; ++b)
        std::fill(keyBlock.begin() + result.colStart[static_cast<std::size_t>(b)],
                  keyBlock.begin() + result.colStart[static_cast<std::size_t>(b) + 1], static_cast<std::int32_t>(b));

    // Work items: runs of whole grid rows holding at least one query block of rows (or a single grid row).
    std::vector<std::int64_t> itemStart{0};
    for (std::int64_t a = 0; a < Gq; ++a)
        if (result.rowStart[static_cast<std::size_t>(a) + 1] - result.rowStart[static_cast<std::size_t>(itemStart.back())] >= kBlockQ ||
            a + 1 == Gq)
            itemStart.push_back(a + 1);
    const std::int64_t items = static_cast<std::int64_t>(itemStart.size()) - 1;

    const int threads = std::max(1, options.threads > 0 ? options.threads : hardwareThreads());
    std::unique_ptr<MapScratch[]> scratch(new MapScratch[static_cast<std::size_t>(threads)]);
    for (int t = 0; t < threads; ++t) scratch[static_cast<std::size_t>(t)].stamp.assign(static_cast<std::size_t>(Gk), 0);
    const Overview o{p, options.batch, options.head, Gq, Gk, result.rowStart, result.colStart, keyBlock,
                     mass, result.max, result.rows};
    auto body = [&](std::int64_t item, int thread) {
        const std::int64_t a0 = itemStart[static_cast<std::size_t>(item)];
        const std::int64_t first = result.rowStart[static_cast<std::size_t>(a0)];
        const std::int64_t last = result.rowStart[static_cast<std::size_t>(itemStart[static_cast<std::size_t>(item) + 1])];
        for (std::int64_t r0 = first; r0 < last; r0 += kBlockQ) {
            const int rows = static_cast<int>(std::min<std::int64_t>(kBlockQ, last - r0));
            withQueryVecs(rows, [&](auto nv) {
                overviewBlock<decltype(nv)::value>(o, r0, rows, a0, scratch[static_cast<std::size_t>(thread)]);
            });
        }
    };
    if (Status s = detail::parallelFor(items, threads, body, options.cancel, options.progress); !s) return s;
    result.mass.assign(mass.begin(), mass.end());
    return result;
}

Result<AttentionMapWindow> attentionMapWindow(const TensorView &q, const TensorView &k, const MaskSpec &mask,
                                              const AttentionMapRows *rows, std::int64_t q0, std::int64_t q1,
                                              std::int64_t k0, std::int64_t k1, const AttentionMapOptions &options)
{
    MapInputs in;
    if (Status s = checkInputs(q, k, mask, options, in); !s) return s;
    const std::int64_t Lq = q.shape[2], Lk = k.shape[2];
    if (q0 < 0 || q1 > Lq || q0 >= q1 || k0 < 0 || k1 > Lk || k0 >= k1)
        return Status::invalid("attention map window [" + std::to_string(q0) + ", " + std::to_string(q1) + ") x [" +
                               std::to_string(k0) + ", " + std::to_string(k1) + ") is empty or outside [0, " +
                               std::to_string(Lq) + ") x [0, " + std::to_string(Lk) + ")");
    if (rows && (rows->m.size() != static_cast<std::size_t>(Lq) || rows->l.size() != static_cast<std::size_t>(Lq)))
        return Status::invalid("attention map window: the row statistics have " + std::to_string(rows->m.size()) +
                               " rows; this problem has Lq = " + std::to_string(Lq));
    const ScoreProblem p(in.q, in.k, mask, resolvedScale(q, options), options.softcap);
    const std::int64_t width = k1 - k0;
    AttentionMapWindow w{q0, q1, k0, k1, {}};
    try {
        w.P.assign(static_cast<std::size_t>((q1 - q0) * width), 0.0f);
    } catch (const std::bad_alloc &) {
        return Status(ErrorCode::OutOfMemory, "attention map window: cannot allocate " + std::to_string(q1 - q0) +
                                                  " x " + std::to_string(width) + " weights");
    }

    const int threads = std::max(1, options.threads > 0 ? options.threads : hardwareThreads());
    std::unique_ptr<Scratch[]> scratch(new Scratch[static_cast<std::size_t>(threads)]);
    const std::int64_t items = (q1 - q0 + kBlockQ - 1) / kBlockQ;
    auto body = [&](std::int64_t item, int thread) {
        const std::int64_t r0 = q0 + item * kBlockQ;
        const int count = static_cast<int>(std::min<std::int64_t>(kBlockQ, q1 - r0));
        Scratch &sc = scratch[static_cast<std::size_t>(thread)];
        withQueryVecs(count, [&](auto nv) {
            constexpr int NV = decltype(nv)::value;
            RowBlock rb;
            setupRows(p, options.batch, options.head, r0, count, rb);
            float *qt = sc.qt.ensure(static_cast<std::size_t>(p.D * kBlockQ));
            float *st = sc.st.ensure(static_cast<std::size_t>(kBlockK * kBlockQ));
            packQuery<NV>(p, rb, qt);
            alignas(64) float mArr[kBlockQ], den[kBlockQ];
            if (rows) {
                for (int r = 0; r < kBlockQ; ++r) {
                    mArr[r] = r < count ? rows->m[static_cast<std::size_t>(r0 + r)] : -kInf;
                    den[r] = r < count ? rows->l[static_cast<std::size_t>(r0 + r)] : 0.0f;
                }
            } else {
                Vec m[NV], l[NV];
                for (int v = 0; v < NV; ++v) {
                    m[v] = simd::set1(-kInf);
                    l[v] = simd::zero();
                }
                sweep<NV, false>(p, rb, sc, qt, 0, Lk, m, l, nullptr, nullptr);
                for (int v = 0; v < NV; ++v) {
                    simd::store(mArr + v * kLanes, m[v]);
                    simd::store(den + v * kLanes, l[v]);
                }
            }
            // Rows with nothing to normalise divide 0 by +inf: exactly 0.
            alignas(64) float keep[kBlockQ];
            for (int r = 0; r < kBlockQ; ++r) {
                const bool live = r < count && rb.live[r] && den[r] > 0.0f;
                keep[r] = live ? 1.0f : 0.0f;
                if (!live) {
                    den[r] = kInf;
                    mArr[r] = 0.0f;
                }
            }
            for (std::int64_t t0 = k0; t0 < k1; t0 += kBlockK) {
                TilePlan tp;
                if (!planTile(p, rb, t0, std::min(t0 + kBlockK, k1), tp)) continue;
                const int kc = static_cast<int>(tp.c1 - tp.c0);
                std::int64_t ldk = 0;
                const float *kp = operandRows(p.k, rb, tp.c0, kc, sc.kpack, ldk);
                Vec rowMax[NV];
                for (int v = 0; v < NV; ++v) rowMax[v] = simd::set1(-kInf);
                scores<NV>(p, rb, tp, kp, ldk, qt, st, rowMax);
                for (int c = 0; c < kc; ++c)
                    for (int v = 0; v < NV; ++v) {
                        float *at = st + c * kBlockQ + v * kLanes;
                        const Vec e = simd::exp2(simd::sub(simd::load(at), simd::load(mArr + v * kLanes)));
                        simd::store(at, simd::div(simd::mul(e, simd::load(keep + v * kLanes)),
                                                  simd::load(den + v * kLanes)));
                    }
                for (int r = 0; r < count; ++r) {
                    if (keep[r] == 0.0f) continue;
                    float *dst = w.P.data() + (r0 + r - q0) * width + (tp.c0 - k0);
                    for (int c = 0; c < kc; ++c) dst[c] = st[c * kBlockQ + r];
                }
            }
        });
    };
    if (Status s = detail::parallelFor(items, threads, body, options.cancel, options.progress); !s) return s;
    return w;
}

} // namespace attn
