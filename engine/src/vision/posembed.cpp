// SPDX-License-Identifier: GPL-3.0-or-later
// ViT's position-embedding interpolation (image.h): torch's bicubic upsampling (align_corners=False, A = −0.75,
// clamped taps, no antialias), separable, in double.
#include <attnscope/image.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace attn {

namespace {

constexpr double kA = -0.75;

// For each output index: the four clamped source indices and their weights.
struct CubicTaps {
    std::vector<std::array<std::int64_t, 4>> index;
    std::vector<std::array<double, 4>> weight;
};

CubicTaps cubicTaps(std::int64_t in, std::int64_t out)
{
    // torch computes the source position and the weights in float32 for float32 tensors (opmath_t); doing the
    // same keeps us within float32 rounding of its accumulation rather than of its weights.
    constexpr float A = static_cast<float>(kA);
    const auto near = [A](float x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };            // |x| ≤ 1
    const auto far = [A](float x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };       // 1 < |x| < 2
    CubicTaps taps;
    taps.index.resize(static_cast<std::size_t>(out));
    taps.weight.resize(static_cast<std::size_t>(out));
    const float scale = static_cast<float>(in) / static_cast<float>(out);
    for (std::int64_t o = 0; o < out; ++o) {
        const float src = scale * (static_cast<float>(o) + 0.5f) - 0.5f;   // not clamped at 0 for cubic
        const float i0 = std::floor(src);
        const float t = src - i0;
        taps.weight[static_cast<std::size_t>(o)] = {far(t + 1.0f), near(t), near(1.0f - t), far(2.0f - t)};
        for (std::int64_t k = 0; k < 4; ++k) {
            const std::int64_t i = static_cast<std::int64_t>(i0) - 1 + k;
            taps.index[static_cast<std::size_t>(o)][static_cast<std::size_t>(k)] = std::clamp<std::int64_t>(i, 0, in - 1);
        }
    }
    return taps;
}

} // namespace

Result<std::vector<float>> interpolatePositionGrid(const float *grid, std::int64_t inRows, std::int64_t inCols,
                                                   std::int64_t dim, std::int64_t outRows, std::int64_t outCols)
{
    const auto within = [](std::int64_t v) { return v >= 1 && v <= kMaxTargetSide; };
    if (!grid) return Status::invalid("interpolatePositionGrid: no grid");
    if (!within(inRows) || !within(inCols) || !within(outRows) || !within(outCols))
        return Status::invalid("interpolatePositionGrid: grid " + std::to_string(inRows) + "×" +
                               std::to_string(inCols) + " → " + std::to_string(outRows) + "×" +
                               std::to_string(outCols) + " (each side 1 … 8192)");
    if (dim < 1 || dim > (std::int64_t(1) << 16))
        return Status::invalid("interpolatePositionGrid: dim " + std::to_string(dim) + " (1 … 65536)");
    if (outRows * outCols * dim > (std::int64_t(1) << 28))
        return Status::invalid("interpolatePositionGrid: " + std::to_string(outRows * outCols * dim) +
                               " output values (limit 2^28)");

    const CubicTaps rows = cubicTaps(inRows, outRows), cols = cubicTaps(inCols, outCols);
    // Columns first into a [inRows, outCols, dim] buffer, then rows.
    std::vector<double> tmp(static_cast<std::size_t>(inRows * outCols * dim), 0.0);
    for (std::int64_t r = 0; r < inRows; ++r)
        for (std::int64_t c = 0; c < outCols; ++c) {
            double *dst = &tmp[static_cast<std::size_t>((r * outCols + c) * dim)];
            for (std::size_t k = 0; k < 4; ++k) {
                const double w = cols.weight[static_cast<std::size_t>(c)][k];
                const float *src = grid + (r * inCols + cols.index[static_cast<std::size_t>(c)][k]) * dim;
                for (std::int64_t d = 0; d < dim; ++d) dst[d] += w * static_cast<double>(src[d]);
            }
        }
    std::vector<float> out(static_cast<std::size_t>(outRows * outCols * dim));
    std::vector<double> acc(static_cast<std::size_t>(dim));
    for (std::int64_t r = 0; r < outRows; ++r)
        for (std::int64_t c = 0; c < outCols; ++c) {
            std::fill(acc.begin(), acc.end(), 0.0);
            for (std::size_t k = 0; k < 4; ++k) {
                const double w = rows.weight[static_cast<std::size_t>(r)][k];
                const double *src = &tmp[static_cast<std::size_t>(
                    (rows.index[static_cast<std::size_t>(r)][k] * outCols + c) * dim)];
                for (std::int64_t d = 0; d < dim; ++d) acc[static_cast<std::size_t>(d)] += w * src[d];
            }
            float *dst = &out[static_cast<std::size_t>((r * outCols + c) * dim)];
            for (std::int64_t d = 0; d < dim; ++d) dst[d] = static_cast<float>(acc[static_cast<std::size_t>(d)]);
        }
    return out;
}

} // namespace attn
