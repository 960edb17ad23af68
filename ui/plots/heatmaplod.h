// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Level of detail for large heatmaps. A 4096-token head is 16.7 M cells but the plot is about a thousand pixels
// wide, so the colour map stores at most kMaxStorageCells cells per axis: each stored cell is the maximum of a
// block of weights (a peak stays visible; masked cells are skipped, a block with no unmasked cell is NaN). When
// the user zooms in far enough, the visible window is stored again at full resolution. Plain data and pure
// functions: safe on any thread; the exact values stay in HeatmapData for hover and export.

#include <cstdint>
#include <vector>

namespace attnui {

constexpr int kMaxStorageCells = 1024;

// A block of the matrix, inclusive row and column indices.
struct HeatmapWindow {
    int r0 = 0, r1 = -1, c0 = 0, c1 = -1;
    bool operator==(const HeatmapWindow &) const = default;
    int rowCount() const { return r1 - r0 + 1; }
    int colCount() const { return c1 - c0 + 1; }
};

// What the colour map stores: storageRows × storageCols cells (row-major, NaN where masked) whose centres span
// [keyLower, keyUpper] × [valueLower, valueUpper] in matrix coordinates. An axis with a single block is stored
// twice, half a block apart, because QCPColorMap derives the cell size from the first and last centres.
struct HeatmapLevel {
    HeatmapWindow window;
    int rowStride = 1, colStride = 1;
    int storageRows = 0, storageCols = 0;
    double keyLower = 0, keyUpper = 0, valueLower = 0, valueUpper = 0;
    std::vector<double> cells;
};

// values: row-major [rows, cols]; masked: the same size or null.
HeatmapLevel poolHeatmap(const float *values, const std::uint8_t *masked, int rows, int cols, HeatmapWindow window,
                         int maxCells = kMaxStorageCells);

// The window to store for a visible range (axis coordinates, cell i spans [i − 0.5, i + 0.5]): the visible
// cells plus half a screen on each side, so that a small pan does not uncover unstored cells.
HeatmapWindow windowForView(double colLower, double colUpper, double rowLower, double rowUpper, int rows, int cols);

} // namespace attnui
