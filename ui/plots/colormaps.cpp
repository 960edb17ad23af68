// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/colormaps.h"

#include <algorithm>
#include <cmath>

namespace attnui {

namespace {

// Evenly spaced samples of matplotlib's maps (CC0), enough stops that linear RGB interpolation stays faithful.
constexpr const char *kViridis[] = {"#440154", "#48186a", "#472d7b", "#424086", "#3b528b", "#33638d",
                                    "#2c728e", "#26828e", "#21918c", "#1fa088", "#28ae80", "#3fbc73",
                                    "#5ec962", "#84d44b", "#addc30", "#d8e219", "#fde725"};
// cividis is close to linear in RGB by design, so five stops reproduce it well.
constexpr const char *kCividis[] = {"#00204d", "#3d4c6b", "#7c7b78", "#bcaf6f", "#ffe945"};
// Blue – white – red, for signed differences (ColorBrewer RdBu, reversed).
constexpr const char *kDiverging[] = {"#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#f7f7f7",
                                      "#fddbc7", "#f4a582", "#d6604d", "#b2182b"};

template <std::size_t N>
QMap<double, QColor> evenStops(const char *const (&hex)[N])
{
    QMap<double, QColor> stops;
    for (std::size_t i = 0; i < N; ++i)
        stops.insert(static_cast<double>(i) / static_cast<double>(N - 1), QColor(QString::fromLatin1(hex[i])));
    return stops;
}

} // namespace

QString colorMapName(ColorMap map)
{
    switch (map) {
    case ColorMap::Viridis: return QStringLiteral("viridis");
    case ColorMap::Cividis: return QStringLiteral("cividis");
    case ColorMap::Diverging: return QStringLiteral("diverging");
    }
    return QStringLiteral("viridis");
}

ColorMap colorMapFromName(const QString &name, ColorMap fallback)
{
    for (ColorMap m : {ColorMap::Viridis, ColorMap::Cividis, ColorMap::Diverging})
        if (colorMapName(m) == name) return m;
    return fallback;
}

QMap<double, QColor> colorStops(ColorMap map)
{
    switch (map) {
    case ColorMap::Viridis: return evenStops(kViridis);
    case ColorMap::Cividis: return evenStops(kCividis);
    case ColorMap::Diverging: return evenStops(kDiverging);
    }
    return evenStops(kViridis);
}

QColor colorAt(ColorMap map, double t)
{
    // Cached per map: thumbnails call this once per cell.
    static const QMap<double, QColor> cache[] = {colorStops(ColorMap::Viridis), colorStops(ColorMap::Cividis),
                                                 colorStops(ColorMap::Diverging)};
    const QMap<double, QColor> &stops = cache[static_cast<int>(map)];
    if (std::isnan(t)) t = 0.0;
    t = std::clamp(t, 0.0, 1.0);
    auto hi = stops.lowerBound(t);
    if (hi == stops.begin()) return hi.value();
    if (hi == stops.end()) return std::prev(hi).value();
    auto lo = std::prev(hi);
    const double f = (t - lo.key()) / (hi.key() - lo.key());
    const QColor a = lo.value(), b = hi.value();
    return QColor::fromRgbF(static_cast<float>(a.redF() + f * (b.redF() - a.redF())),
                            static_cast<float>(a.greenF() + f * (b.greenF() - a.greenF())),
                            static_cast<float>(a.blueF() + f * (b.blueF() - a.blueF())));
}

QColor maskedColor(bool darkPalette)
{
    // Lighter than any light-palette map colour, darker and greyer than any dark-palette one: cividis has mid
    // greys, so a mid grey would be ambiguous.
    return darkPalette ? QColor(QStringLiteral("#303236")) : QColor(QStringLiteral("#e6e6ea"));
}

QColor textColorOn(const QColor &background)
{
    const auto linear = [](double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
    const double l = 0.2126 * linear(background.redF()) + 0.7152 * linear(background.greenF()) +
                     0.0722 * linear(background.blueF());
    static const QColor dark(20, 20, 20), light(245, 245, 245);
    // Contrast ratios (L1 + 0.05) / (L2 + 0.05) against the two text colours (luminances 0.007 and 0.913).
    const double onDark = (0.913 + 0.05) / (l + 0.05), onLight = (l + 0.05) / (0.007 + 0.05);
    return onLight >= onDark ? dark : light;
}

} // namespace attnui
