// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How the values of a weight heatmap become colours: the colour-scale modes every heatmap offers (View ▸ Colour
// Scale, `attnscope-cli figure --scale`), and the noise floor of signed-difference maps. Plain data and pure
// functions, safe on any thread: HeatmapPlot applies them where it prepares its data, HeadGrid to its thumbnails.
//
//   fixed    the view's own range (0–1 for attention weights)
//   auto     the data's min–max over the cells that are not masked
//   pct:P    the view's lower bound (0 for weights) to the P-th percentile of the cells, brighter cells clipped to
//            the top colour: the contrast control for long inputs and flat, BERT-like maps
//   log      log scale over four decades below the largest value (smaller values, zeros included, at the floor)
//   row      each query row divided by its own largest weight, 0–1
//
// Diverging (signed) maps keep their symmetric range whatever the mode: a difference map is read against 0.

#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace attnui {

enum class ScaleMode { Fixed, Auto, Percentile, Log, Row };

struct ColorScale {
    ScaleMode mode = ScaleMode::Fixed;
    double percentile = 99.0;   // pct:P only, 50 ≤ P < 100

    bool operator==(const ColorScale &) const = default;
    // "fixed", "auto", "pct:99", "log", "row": what --scale takes and the settings store.
    QString spec() const;
    // The mode in a menu's words ("Clip at the 99th percentile").
    QString title() const;
    // nullopt and *error (naming the accepted forms) for anything else.
    static std::optional<ColorScale> parse(const QString &spec, QString *error = nullptr);
};

// The contrast steps View ▸ More/Less Contrast walk through: fixed, then percentile clips ever lower.
std::vector<ColorScale> contrastSteps();

// How many decades below the largest value the log scale shows.
constexpr double kLogDecades = 4.0;

// What a scale makes of one matrix (row-major [rows, cols]; masked: the same size, or empty).
struct ScaledMatrix {
    std::vector<float> values;   // the values to colour; empty: the data's own, unchanged
    double lower = 0.0, upper = 1.0;
    bool logarithmic = false;    // colour by log(value); values is clamped to [lower, upper]
    QString labelSuffix;         // appended to the colour bar's label: " (row-normalised)", " (log scale)", ...
};

// `fixedLower`/`fixedUpper`: the range of ScaleMode::Fixed (the view's own). The range never collapses: a
// constant matrix gets a range of width 1 around its value (or [0, 1] for zeros), so colours stay defined.
ScaledMatrix scaleMatrix(const float *values, const std::uint8_t *masked, int rows, int cols, ColorScale scale,
                         double fixedLower = 0.0, double fixedUpper = 1.0);

// Signed differences with a noise floor: |v| < floor drawn as 0 (an equivariance difference of 1e-8 is round-off,
// not a bright red cell). Returns the values to colour (empty when no cell is below the floor but not 0).
std::vector<float> applyNoiseFloor(const float *values, std::size_t count, double floor);
// The floor for differences of float32 attention weights: two backends, or one row computed under two masks,
// agree to about 1e-7; a difference below 1e-6 is round-off, not an effect.
constexpr double kWeightNoiseFloor = 1e-6;
// The colour bar's note for a noise floor, " |Δ| < 1e-06 → 0" (short: a colour bar is as long as its matrix);
// empty for floor ≤ 0.
QString noiseFloorSuffix(double floor);

} // namespace attnui
