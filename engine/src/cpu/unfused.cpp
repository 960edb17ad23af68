// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/unfused.h"

#include "cpu/buffer.h"
#include "cpu/simd/tanh.h"
#include "parallel.h"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace attn::detail {
namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using StridedConst = Eigen::Map<const RowMajor, Eigen::Unaligned, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;
using DenseMap = Eigen::Map<RowMajor>;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
constexpr float kPosInf = std::numeric_limits<float>::infinity();

// [L, D] slice of a [B, H, L, D] view, as an Eigen matrix over the caller's memory (any strides).
StridedConst headMatrix(const TensorView &t, std::int64_t b, std::int64_t h)
{
    return StridedConst(t.row(b, h, 0), t.shape[2], t.shape[3],
                        Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(t.strides[2], t.strides[3]));
}

// Columns [lo, hi) that the structural part of the mask (causal, window, block) leaves open for query row i.
// Each structural kind allows one contiguous run of keys, so their intersection is one run too; everything
// outside it is exactly -inf in maskBias(), which lets the softmax skip it instead of testing each element.
struct ColumnRange {
    std::int64_t lo = 0;
    std::int64_t hi = 0;
    bool empty() const { return hi <= lo; }
};

ColumnRange structuralRange(const MaskSpec &m, std::int64_t i, std::int64_t Lq, std::int64_t Lk)
{
    const std::int64_t ip = i + (Lk - Lq);
    std::int64_t lo = 0;
    std::int64_t hi = Lk;
    if (m.causal) hi = std::min(hi, ip + 1);
    if (m.window >= 0) {
        const std::int64_t w = std::min(m.window, Lq + Lk);   // wider than both axes: no limit, and no overflow
        lo = std::max(lo, ip - w);
        hi = std::min(hi, ip + w + 1);
    }
    if (m.block > 0) {
        if (ip < 0) return {};
        lo = std::max(lo, ip / m.block * m.block);
        hi = std::min(hi, (ip / m.block + 1) * m.block);
    }
    lo = std::clamp<std::int64_t>(lo, 0, Lk);
    hi = std::clamp<std::int64_t>(hi, lo, Lk);
    return {lo, hi};
}

// Parts of the mask that vary per element inside the structural range and need maskBias() itself.
bool hasElementwiseParts(const MaskSpec &m)
{
    return !m.keyValid.empty() || !m.allowed.empty() || !m.additive.empty() || !m.alibiSlopes.empty() ||
           !m.headBias.empty();
}

// s ← cap · tanh(s / cap) over a run of scores, with the tiled kernel's vectorised tanh.
void softcapRun(float *s, std::int64_t n, float cap)
{
    namespace simd = attn::detail::simd;
    const simd::Vec c = simd::set1(cap), inv = simd::set1(1.0f / cap);
    std::int64_t j = 0;
    for (; j + simd::kLanes <= n; j += simd::kLanes)
        simd::store(s + j, simd::mul(c, simd::tanh(simd::mul(simd::load(s + j), inv))));
    if (j < n) {
        float tail[simd::kLanes] = {};
        std::copy(s + j, s + n, tail);
        simd::store(tail, simd::mul(c, simd::tanh(simd::mul(simd::load(tail), inv))));
        std::copy(tail, tail + (n - j), s + j);
    }
}

// In place on one score row: S[i, :] (scaled Q·K dots) → exp(S[i, :] + bias − max), normalised to P[i, :] only
// when `normalise` (the caller asked for this head's weights); otherwise the caller divides O's row by the sum,
// which saves a pass over the row. Returns the row's LSE and sets invSum = 1 / Σ; a fully masked row is all
// zeros with LSE +inf and invSum 0.
float softmaxRow(float *s, const KernelArgs &args, std::int64_t b, std::int64_t h, std::int64_t i, bool elementwise,
                 bool normalise, float &invSum)
{
    invSum = 0.0f;
    const MaskSpec &mask = *args.mask;
    const std::int64_t Lq = args.Lq();
    const std::int64_t Lk = args.Lk();
    ColumnRange range = structuralRange(mask, i, Lq, Lk);
    if (!mask.queryValid.empty() && !mask.queryValid[static_cast<std::size_t>(b * Lq + i)]) range = {};

    Eigen::Map<Eigen::ArrayXf> all(s, Lk);
    if (range.empty()) {
        all.setZero();
        return kPosInf;
    }
    Eigen::Map<Eigen::ArrayXf> live(s + range.lo, range.hi - range.lo);
    if (args.softcap > 0.0f) softcapRun(s + range.lo, range.hi - range.lo, args.softcap);
    if (elementwise)
        for (std::int64_t j = range.lo; j < range.hi; ++j) s[j] += maskBias(mask, b, h, i, j, Lq, Lk);

    const float rowMax = live.maxCoeff();
    if (rowMax == kNegInf) {   // every open key was masked element-wise (a NaN row stays NaN: visible)
        all.setZero();
        return kPosInf;
    }
    if (elementwise) {
        // Eigen's vectorised exp clamps its argument, so exp(-inf) would come back as ~3e-39, not 0:
        // masked weights must be exactly zero.
        live = (live == kNegInf).select(0.0f, (live - rowMax).exp());
    } else {
        live = (live - rowMax).exp();
    }
    const float rowSum = live.sum();
    invSum = 1.0f / rowSum;
    if (normalise) live *= invSum;
    all.head(range.lo).setZero();
    all.tail(Lk - range.hi).setZero();
    return rowMax + std::log(rowSum);
}

} // namespace

Status unfusedAttention(const KernelArgs &args)
{
    const std::int64_t B = args.B();
    const std::int64_t H = args.H();
    const std::int64_t Lq = args.Lq();
    const std::int64_t Lk = args.Lk();
    const std::int64_t Dv = args.Dv();
    const bool elementwise = hasElementwiseParts(*args.mask);
    const std::size_t scoreElems = static_cast<std::size_t>(Lq) * static_cast<std::size_t>(Lk);

    // One score matrix and one output block per worker, allocated by the worker on first use, so only as many
    // exist as threads run. Eigen writes only into these (64-byte aligned, see cpu/buffer.h), never into a caller's
    // buffer of whatever alignment: the result is then the same bits for every run and thread count.
    const std::size_t workers = static_cast<std::size_t>(std::max(1, args.threads));
    std::unique_ptr<Buffer[]> scores(new Buffer[workers]), outputs(new Buffer[workers]);
    std::vector<char> allocationFailed(workers, 0);
    std::vector<std::vector<float>> rowScale(workers, std::vector<float>(static_cast<std::size_t>(Lq)));

    auto body = [&](std::int64_t item, int thread) {
        const std::int64_t b = item / H;
        const std::int64_t h = item % H;
        float *P = args.weightsFor(b, h);
        const bool normalise = P != nullptr;   // the caller's weights must be P itself
        float *S = nullptr, *Obuf = nullptr;
        try {
            S = scores[static_cast<std::size_t>(thread)].ensure(scoreElems);
            if (!args.lseOnly) Obuf = outputs[static_cast<std::size_t>(thread)].ensure(static_cast<std::size_t>(Lq * Dv));
        } catch (const std::bad_alloc &) {
            allocationFailed[static_cast<std::size_t>(thread)] = 1;
            return;
        }

        const std::int64_t hk = args.kvHead(h);
        const StridedConst Q = headMatrix(args.q, b, h);    // [Lq, D]
        const StridedConst K = headMatrix(args.k, b, hk);   // [Lk, D]
        const StridedConst V = headMatrix(args.v, b, hk);   // [Lk, Dv]
        DenseMap Smat(S, Lq, Lk);
        Smat.noalias() = (args.scale * Q) * K.transpose();   // Eigen folds the scale into the GEMM's alpha

        float *lse = args.lse + (b * H + h) * Lq;
        float *invSum = rowScale[static_cast<std::size_t>(thread)].data();
        for (std::int64_t i = 0; i < Lq; ++i)
            lse[i] = softmaxRow(S + i * Lk, args, b, h, i, elementwise, normalise, invSum[i]);
        if (P) std::copy(S, S + scoreElems, P);

        if (args.lseOnly) return;
        DenseMap O(Obuf, Lq, Dv);
        O.noalias() = Smat * V;
        for (std::int64_t i = 0; i < Lq; ++i) {
            // A zero P row times a V holding inf or NaN would still give NaN; fully masked rows are defined as 0.
            if (lse[i] == kPosInf) O.row(i).setZero();
            else if (!normalise) O.row(i) *= invSum[i];
        }
        std::copy(Obuf, Obuf + Lq * Dv, args.out.row(b, h, 0));   // out is contiguous [B, H, Lq, Dv]
    };

    Status status = parallelFor(B * H, args.threads, body, args.cancel, args.progress);
    if (std::find(allocationFailed.begin(), allocationFailed.end(), 1) != allocationFailed.end()) {
        const double mib = static_cast<double>(scoreElems) * sizeof(float) / (1024.0 * 1024.0);
        return {ErrorCode::OutOfMemory,
                "unfused attention: cannot allocate the " + std::to_string(Lq) + " x " + std::to_string(Lk) +
                    " score matrix (" + std::to_string(static_cast<long long>(mib)) + " MiB per thread)"};
    }
    return status;
}

} // namespace attn::detail
