// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Colour maps for heatmaps, as colour stops in [0, 1]. Perceptual maps (viridis, cividis) for weights, a
// diverging map for signed differences. Shared by the QCustomPlot heatmap and the painted thumbnails so both
// show the same colours.

#include <QColor>
#include <QMap>
#include <QString>
#include <QStringList>

namespace attnui {

enum class ColorMap { Viridis, Cividis, Diverging };

QString colorMapName(ColorMap map);                   // "viridis", "cividis", "diverging"
ColorMap colorMapFromName(const QString &name, ColorMap fallback = ColorMap::Viridis);
QMap<double, QColor> colorStops(ColorMap map);        // position in [0, 1] → colour
QColor colorAt(ColorMap map, double t);               // t clamped to [0, 1], linear in RGB between stops
// Text colour for a label on `background`: near-black or near-white, whichever contrasts more (WCAG relative
// luminance; HSL lightness calls viridis' yellow-green dark).
QColor textColorOn(const QColor &background);
// Colour for cells with no value (masked): distinct from every map above, readable on both palettes.
QColor maskedColor(bool darkPalette);

} // namespace attnui
