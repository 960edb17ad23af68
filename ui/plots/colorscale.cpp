// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/colorscale.h"

#include <QObject>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnui {

namespace {

QString percentileText(double p)
{
    return QString::number(p, 'g', 4);
}

// "99th", "91st", "92nd", "93rd", "99.5th"
QString ordinal(double p)
{
    const QString n = percentileText(p);
    if (n.contains(QLatin1Char('.'))) return n + QStringLiteral("th");
    const int i = n.toInt();
    const int tens = i % 100, ones = i % 10;
    if (tens >= 11 && tens <= 13) return n + QStringLiteral("th");
    return n + (ones == 1 ? QStringLiteral("st") : ones == 2 ? QStringLiteral("nd") : ones == 3 ? QStringLiteral("rd")
                                                                                             : QStringLiteral("th"));
}

bool shown(const float *values, const std::uint8_t *masked, std::size_t i)
{
    return (!masked || !masked[i]) && std::isfinite(values[i]);
}

// A range that colours can be spread over: never empty.
void widen(double *lower, double *upper)
{
    if (*upper > *lower) return;
    if (*upper == 0.0) {
        *lower = 0.0;
        *upper = 1.0;
    } else {
        *lower -= 0.5;
        *upper += 0.5;
    }
}

} // namespace

QString ColorScale::spec() const
{
    switch (mode) {
    case ScaleMode::Fixed: return QStringLiteral("fixed");
    case ScaleMode::Auto: return QStringLiteral("auto");
    case ScaleMode::Percentile: return QStringLiteral("pct:") + percentileText(percentile);
    case ScaleMode::Log: return QStringLiteral("log");
    case ScaleMode::Row: return QStringLiteral("row");
    }
    return {};
}

QString ColorScale::title() const
{
    switch (mode) {
    case ScaleMode::Fixed: return QObject::tr("Fixed (0–1 for weights)");
    case ScaleMode::Auto: return QObject::tr("Data Minimum to Maximum");
    case ScaleMode::Percentile: return QObject::tr("Clip at the %1 Percentile").arg(ordinal(percentile));
    case ScaleMode::Log: return QObject::tr("Logarithmic (%1 decades)").arg(kLogDecades);
    case ScaleMode::Row: return QObject::tr("Each Row to Its Maximum");
    }
    return {};
}

std::optional<ColorScale> ColorScale::parse(const QString &spec, QString *error)
{
    const QString s = spec.trimmed().toLower();
    if (s == QLatin1String("fixed")) return ColorScale{ScaleMode::Fixed};
    if (s == QLatin1String("auto")) return ColorScale{ScaleMode::Auto};
    if (s == QLatin1String("log")) return ColorScale{ScaleMode::Log};
    if (s == QLatin1String("row")) return ColorScale{ScaleMode::Row};
    const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("^pct:(\\d{1,2}(?:\\.\\d{1,2})?)$")).match(s);
    if (m.hasMatch()) {
        const double p = m.captured(1).toDouble();
        if (p >= 50.0 && p < 100.0) return ColorScale{ScaleMode::Percentile, p};
    }
    if (error)
        *error = QObject::tr("'%1' is not a colour scale: fixed, auto, pct:P (P from 50 to 99.99), log or row").arg(spec);
    return std::nullopt;
}

std::vector<ColorScale> contrastSteps()
{
    std::vector<ColorScale> steps{ColorScale{}};
    for (double p : {99.5, 99.0, 98.0, 95.0, 90.0, 80.0, 70.0, 50.0}) steps.push_back({ScaleMode::Percentile, p});
    return steps;
}

ScaledMatrix scaleMatrix(const float *values, const std::uint8_t *masked, int rows, int cols, ColorScale scale,
                         double fixedLower, double fixedUpper)
{
    ScaledMatrix out;
    out.lower = fixedLower;
    out.upper = fixedUpper;
    const std::size_t count = std::size_t(std::max(rows, 0)) * std::size_t(std::max(cols, 0));
    if (scale.mode == ScaleMode::Fixed || count == 0 || !values) return out;

    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (std::size_t i = 0; i < count; ++i) {
        if (!shown(values, masked, i)) continue;
        lo = std::min(lo, double(values[i]));
        hi = std::max(hi, double(values[i]));
    }
    if (!(hi >= lo)) return out;   // nothing shown: the fixed range

    switch (scale.mode) {
    case ScaleMode::Fixed: break;
    case ScaleMode::Auto:
        out.lower = lo;
        out.upper = hi;
        out.labelSuffix = QObject::tr(" (data range)");
        break;
    case ScaleMode::Percentile: {
        std::vector<float> kept;
        kept.reserve(count);
        for (std::size_t i = 0; i < count; ++i)
            if (shown(values, masked, i)) kept.push_back(values[i]);
        // Nearest rank: the smallest value with at least P % of the cells at or below it.
        const std::size_t rank = std::size_t(std::ceil(scale.percentile / 100.0 * double(kept.size())));
        const std::size_t k = std::clamp<std::size_t>(rank, 1, kept.size()) - 1;
        std::nth_element(kept.begin(), kept.begin() + std::ptrdiff_t(k), kept.end());
        out.lower = std::min(lo, fixedLower);
        out.upper = kept[k];
        out.labelSuffix = QObject::tr(" (clipped at %1 pct, %2)")
                              .arg(ordinal(scale.percentile), QString::number(out.upper, 'g', 3));
        break;
    }
    case ScaleMode::Log: {
        if (!(hi > 0.0)) return out;   // nothing positive to take the log of
        out.upper = hi;
        out.lower = hi * std::pow(10.0, -kLogDecades);
        out.logarithmic = true;
        out.values.assign(values, values + count);
        for (float &v : out.values)
            if (std::isfinite(v)) v = float(std::clamp(double(v), out.lower, out.upper));
        out.labelSuffix = QObject::tr(" (log scale, floor %1)").arg(QString::number(out.lower, 'g', 2));
        return out;
    }
    case ScaleMode::Row: {
        out.values.assign(values, values + count);
        for (int r = 0; r < rows; ++r) {
            float *row = out.values.data() + std::size_t(r) * std::size_t(cols);
            const std::size_t base = std::size_t(r) * std::size_t(cols);
            double peak = 0.0;
            for (int c = 0; c < cols; ++c)
                if (shown(values, masked, base + std::size_t(c))) peak = std::max(peak, double(row[c]));
            if (peak > 0.0)
                for (int c = 0; c < cols; ++c) row[c] = float(double(row[c]) / peak);
        }
        out.lower = 0.0;
        out.upper = 1.0;
        out.labelSuffix = QObject::tr(" ÷ row maximum");
        return out;
    }
    }
    widen(&out.lower, &out.upper);
    return out;
}

std::vector<float> applyNoiseFloor(const float *values, std::size_t count, double floor)
{
    if (!(floor > 0.0) || !values) return {};
    bool any = false;
    for (std::size_t i = 0; i < count && !any; ++i)
        any = values[i] != 0.0f && std::abs(double(values[i])) < floor;
    if (!any) return {};
    std::vector<float> out(values, values + count);
    for (float &v : out)
        if (std::abs(double(v)) < floor) v = 0.0f;
    return out;
}

QString noiseFloorSuffix(double floor)
{
    if (!(floor > 0.0)) return {};
    return QObject::tr(" |Δ| < %1 → 0").arg(QString::number(floor, 'g', 2));
}

} // namespace attnui
