// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu/unfused.h"

#include "parallel.h"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <limits>
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
    return !m.keyValid.empty() || !m.allowed.empty() || !m.additive.empty() || !m.alibiSlopes.empty();
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

    // One score matrix per worker, allocated by the worker on first use, so only as many exist as threads run.
    std::vector<std::vector<float>> scratch(static_cast<std::size_t>(std::max(1, args.threads)));
    std::vector<char> allocationFailed(scratch.size(), 0);
    std::vector<std::vector<float>> rowScale(scratch.size(), std::vector<float>(static_cast<std::size_t>(Lq)));

    auto body = [&](std::int64_t item, int thread) {
        const std::int64_t b = item / H;
        const std::int64_t h = item % H;
        float *S = args.weightsFor(b, h);
        const bool normalise = S != nullptr;   // the caller's weights must be P itself
        if (!S) {
            auto &mine = scratch[static_cast<std::size_t>(thread)];
            if (mine.size() != scoreElems) {
                try {
                    mine.resize(scoreElems);
                } catch (const std::bad_alloc &) {
                    allocationFailed[static_cast<std::size_t>(thread)] = 1;
                    return;
                }
            }
            S = mine.data();
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

        DenseMap O(args.out.row(b, h, 0), Lq, Dv);   // out is contiguous [B, H, Lq, Dv]
        O.noalias() = Smat * V;
        for (std::int64_t i = 0; i < Lq; ++i) {
            // A zero P row times a V holding inf or NaN would still give NaN; fully masked rows are defined as 0.
            if (lse[i] == kPosInf) O.row(i).setZero();
            else if (!normalise) O.row(i) *= invSum[i];
        }
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
