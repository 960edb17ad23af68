// SPDX-License-Identifier: GPL-3.0-or-later
#include "validation.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn::bench {
namespace {

// Past this many multiply-adds the scalar fp64 oracle takes seconds: sample rows instead.
constexpr double kFullReferenceMacs = double(1 << 29);
// The oracle keeps fp64 scores and P when weights are checked: 16 B per element, 16 MiB at this size (it stays
// resident while every backend is measured, so it must not dominate their peak RSS).
constexpr double kFullReferenceElementsWithWeights = double(1 << 20);

std::int64_t oracleRow(const std::vector<std::int64_t> &rows, std::int64_t r) { return rows.empty() ? r : rows[r]; }

} // namespace

std::vector<std::int64_t> validationRows(std::int64_t B, std::int64_t H, std::int64_t Lq, std::int64_t Lk,
                                         std::int64_t D, int count, bool alwaysSample, bool keepWeights)
{
    const double elements = double(B) * double(H) * double(Lq) * double(Lk);
    const bool cheap = elements * double(2 * D) <= kFullReferenceMacs &&
                       (!keepWeights || elements <= kFullReferenceElementsWithWeights);
    if (Lq <= count || (cheap && !alwaysSample)) return {};
    std::vector<std::int64_t> rows;
    for (int r = 0; r < count; ++r) rows.push_back(count == 1 ? 0 : (Lq - 1) * r / (count - 1));
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

NaiveError naiveFp32Error(const TensorView &q, const TensorView &k, const TensorView &v, const MaskSpec &mask,
                          const ReferenceOutput &ref, const std::vector<std::int64_t> &rows, ComputeDtype dtype)
{
    const bool low = dtype != ComputeDtype::F32;
    const auto rd = [dtype](float x) { return roundToDtype(x, dtype); };   // identity for F32
    const std::int64_t B = q.shape[0], H = q.shape[1], Lq = q.shape[2], D = q.shape[3];
    const std::int64_t Hkv = k.shape[1], Lk = k.shape[2], Dv = v.shape[3];
    const std::int64_t R = ref.rows;
    const float scale = 1.0f / std::sqrt(static_cast<float>(D));
    std::vector<float> s(static_cast<std::size_t>(Lk));
    std::vector<float> o(static_cast<std::size_t>(Dv));
    NaiveError err;
    for (std::int64_t b = 0; b < B; ++b) {
        for (std::int64_t h = 0; h < H; ++h) {
            const std::int64_t hk = h / (H / Hkv);
            for (std::int64_t r = 0; r < R; ++r) {
                const std::int64_t i = oracleRow(rows, r);
                float rowMax = -std::numeric_limits<float>::infinity();
                for (std::int64_t j = 0; j < Lk; ++j) {
                    float dot = 0.0f;
                    for (std::int64_t c = 0; c < D; ++c) dot += rd(q.at(b, h, i, c)) * rd(k.at(b, hk, j, c));
                    const float bias = maskBias(mask, b, h, i, j, Lq, Lk);
                    s[j] = low ? (std::isinf(bias) && bias < 0 ? bias : rd(rd(dot * scale) + bias))
                               : dot * scale + bias;
                    rowMax = std::max(rowMax, s[j]);
                }
                std::fill(o.begin(), o.end(), 0.0f);
                float sum = 0.0f;
                if (rowMax > -std::numeric_limits<float>::infinity() && low) {
                    for (std::int64_t j = 0; j < Lk; ++j) {
                        s[j] = std::exp(s[j] - rowMax);
                        sum += s[j];
                    }
                    for (std::int64_t j = 0; j < Lk; ++j) {
                        const float p = rd(s[j] / sum);
                        for (std::int64_t c = 0; c < Dv; ++c) o[c] += p * rd(v.at(b, hk, j, c));
                    }
                    for (auto &x : o) x = rd(x);
                } else if (rowMax > -std::numeric_limits<float>::infinity()) {
                    for (std::int64_t j = 0; j < Lk; ++j) {
                        s[j] = std::exp(s[j] - rowMax);
                        sum += s[j];
                        for (std::int64_t c = 0; c < Dv; ++c) o[c] += s[j] * v.at(b, hk, j, c);
                    }
                    for (auto &x : o) x /= sum;
                } else {
                    std::fill(s.begin(), s.end(), 0.0f);
                    sum = 1.0f;
                }
                const std::size_t base = static_cast<std::size_t>((b * H + h) * R + r);
                for (std::int64_t c = 0; c < Dv; ++c)
                    err.out = std::max(err.out, std::abs(double(o[c]) - ref.out[base * Dv + c]));
                if (!ref.P.empty())
                    for (std::int64_t j = 0; j < Lk; ++j)
                        err.weights = std::max(err.weights, std::abs(double(low ? rd(s[j] / sum) : s[j] / sum) - ref.P[base * Lk + j]));
            }
        }
    }
    return err;
}

KernelError kernelError(const AttentionOutput &got, const ReferenceOutput &ref, const std::vector<std::int64_t> &rows,
                        std::int64_t H, std::int64_t Lk)
{
    KernelError err;
    const std::int64_t B = got.out.shape[0], Lq = got.out.shape[2], Dv = got.out.shape[3];
    const std::int64_t R = ref.rows;
    err.finite = std::all_of(got.out.values.begin(), got.out.values.end(), [](float x) { return std::isfinite(x); });
    for (std::int64_t b = 0; b < B; ++b) {
        for (std::int64_t h = 0; h < H; ++h) {
            for (std::int64_t r = 0; r < R; ++r) {
                const std::int64_t i = oracleRow(rows, r);
                const std::size_t refRow = static_cast<std::size_t>((b * H + h) * R + r);
                const std::size_t gotRow = static_cast<std::size_t>((b * H + h) * Lq + i);
                for (std::int64_t c = 0; c < Dv; ++c) {
                    const double diff = double(got.out.values[gotRow * Dv + c]) - ref.out[refRow * Dv + c];
                    err.out = std::max(err.out, std::abs(diff));
                }
                const double refLse = ref.lse[refRow];
                const double gotLse = got.lse.empty() ? refLse : double(got.lse[gotRow]);
                if (std::isinf(refLse) != std::isinf(gotLse)) err.maskedRowsAgree = false;
                else if (std::isfinite(refLse)) err.lse = std::max(err.lse, std::abs(gotLse - refLse));
            }
        }
    }
    if (!ref.P.empty()) {
        for (const HeadWeights &w : got.weights) {
            const std::int64_t b = w.index.batch, h = w.index.head;
            for (std::int64_t r = 0; r < R; ++r) {
                const std::int64_t i = oracleRow(rows, r);
                const std::size_t refRow = static_cast<std::size_t>((b * H + h) * R + r);
                const float *P = w.P.data() + i * Lk;
                for (std::int64_t j = 0; j < Lk; ++j)
                    err.weights = std::max(err.weights, std::abs(double(P[j]) - ref.P[refRow * Lk + j]));
            }
        }
    }
    return err;
}

} // namespace attn::bench
