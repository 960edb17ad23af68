// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/heatmaplod.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnui {

namespace {

struct AxisLevel {
    int stride, blocks, storage;
    double lower, upper;   // first and last stored centre
};

AxisLevel axisLevel(int first, int count, int maxCells)
{
    AxisLevel a;
    a.stride = std::max(1, (count + maxCells - 1) / std::max(1, maxCells));
    a.blocks = (count + a.stride - 1) / a.stride;
    const double half = (a.stride - 1) / 2.0;
    if (a.blocks == 1) {
        a.storage = 2;
        const double centre = first + (count - 1) / 2.0;
        a.lower = centre - count / 4.0;
        a.upper = centre + count / 4.0;
    } else {
        a.storage = a.blocks;
        a.lower = first + half;
        a.upper = first + (a.blocks - 1) * double(a.stride) + half;
    }
    return a;
}

} // namespace

HeatmapLevel poolHeatmap(const float *values, const std::uint8_t *masked, int rows, int cols, HeatmapWindow w,
                         int maxCells)
{
    HeatmapLevel level;
    w.r0 = std::clamp(w.r0, 0, std::max(0, rows - 1));
    w.r1 = std::clamp(w.r1, w.r0, std::max(0, rows - 1));
    w.c0 = std::clamp(w.c0, 0, std::max(0, cols - 1));
    w.c1 = std::clamp(w.c1, w.c0, std::max(0, cols - 1));
    level.window = w;
    if (rows <= 0 || cols <= 0) return level;
    const AxisLevel ax = axisLevel(w.c0, w.colCount(), maxCells), ay = axisLevel(w.r0, w.rowCount(), maxCells);
    level.colStride = ax.stride;
    level.rowStride = ay.stride;
    level.storageCols = ax.storage;
    level.storageRows = ay.storage;
    level.keyLower = ax.lower;
    level.keyUpper = ax.upper;
    level.valueLower = ay.lower;
    level.valueUpper = ay.upper;
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    level.cells.assign(std::size_t(ax.storage) * std::size_t(ay.storage), nan);
    // Block maxima, row by row through the source (sequential reads of the big matrix).
    std::vector<double> blockRow(std::size_t(ax.blocks));
    for (int by = 0; by < ay.blocks; ++by) {
        std::fill(blockRow.begin(), blockRow.end(), nan);
        const int i0 = w.r0 + by * ay.stride, i1 = std::min(w.r1, i0 + ay.stride - 1);
        for (int i = i0; i <= i1; ++i) {
            const std::size_t rowStart = std::size_t(i) * std::size_t(cols);
            for (int bx = 0; bx < ax.blocks; ++bx) {
                const int j0 = w.c0 + bx * ax.stride, j1 = std::min(w.c1, j0 + ax.stride - 1);
                double m = blockRow[std::size_t(bx)];
                for (int j = j0; j <= j1; ++j) {
                    const std::size_t ij = rowStart + std::size_t(j);
                    if (masked && masked[ij]) continue;
                    const double v = values[ij];
                    if (std::isnan(m) || v > m) m = v;
                }
                blockRow[std::size_t(bx)] = m;
            }
        }
        // A single block along an axis is stored twice (see HeatmapLevel).
        for (int sy = by; sy < (ay.blocks == 1 ? 2 : by + 1); ++sy)
            for (int bx = 0; bx < ax.blocks; ++bx)
                for (int sx = bx; sx < (ax.blocks == 1 ? 2 : bx + 1); ++sx)
                    level.cells[std::size_t(sy) * std::size_t(ax.storage) + std::size_t(sx)] = blockRow[std::size_t(bx)];
    }
    return level;
}

HeatmapWindow windowForView(double colLower, double colUpper, double rowLower, double rowUpper, int rows, int cols)
{
    auto span = [](double lower, double upper, int n, int *first, int *last) {
        const double pad = (upper - lower) / 2.0;
        *first = std::clamp(int(std::floor(lower - pad + 0.5)), 0, std::max(0, n - 1));
        *last = std::clamp(int(std::ceil(upper + pad - 0.5)), *first, std::max(0, n - 1));
    };
    HeatmapWindow w;
    span(colLower, colUpper, cols, &w.c0, &w.c1);
    span(rowLower, rowUpper, rows, &w.r0, &w.r1);
    return w;
}

} // namespace attnui
