// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Figure export: a workspace's figureWidget() (side-by-side panels: QCustomPlot plots, custom-painted views,
// labels) written as PNG (chosen DPI), SVG or PDF, exactly as it is drawn on screen, with a caption line under it.
// The widget is painted through QWidget::render(): labels and custom-painted views draw through their paintEvent
// and become SVG <text> and paths; every QCustomPlot (plots/vectorpaint.h) draws vectors instead of blitting
// their pixmap buffers. For export the figure is laid out at the requested size, then put back.
// Files are written through QSaveFile: a failed export leaves no file and an existing one untouched.

#include <QImage>
#include <QSize>
#include <QString>

#include <optional>

class QWidget;

namespace attnui {

enum class FigureFormat { Png, Svg, Pdf };

struct FigureOptions {
    QSize size;         // the whole figure in logical pixels (1/96 in), caption included; empty: as on screen
    int dpi = 192;      // PNG only: 96 = one pixel per logical pixel; 192, 300, 600 for print
    QString caption;    // one line under the figure; empty: none
};

// A widget inside a figure with this property set to true (hover read-outs, hints) is left out of exports.
inline constexpr char kExcludeFromFigure[] = "excludeFromFigure";

constexpr int kMinFigureDpi = 48;
constexpr int kMaxFigureDpi = 1200;

// By suffix (png, svg, pdf; case-insensitive); nothing for any other suffix.
std::optional<FigureFormat> figureFormatForPath(const QString &path);

// The size an export takes when FigureOptions::size is empty: the figure as on screen plus the caption line, or
// a default for a figure that was never shown.
QSize defaultFigureSize(const QWidget *figure, const QString &caption);

bool exportFigure(QWidget *figure, const QString &path, const FigureOptions &options, QString *error = nullptr);

// The figure as an image at options.dpi (for Copy Image); a null image when there is no figure.
QImage renderFigureImage(QWidget *figure, const FigureOptions &options);

} // namespace attnui
