// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Figure export: a workspace's figureWidget() (side-by-side panels: QCustomPlot plots, custom-painted views,
// labels) written as PNG (chosen DPI), SVG or PDF at the size of the view's figure layout (or one asked for),
// with a caption under it.
// The widget is painted through QWidget::render(): labels and custom-painted views draw through their paintEvent
// and become SVG <text> and paths; every QCustomPlot (plots/vectorpaint.h) draws vectors instead of blitting
// their pixmap buffers. For export the figure is laid out at the requested size, then put back.
// Files are written through QSaveFile: a failed export leaves no file and an existing one untouched.
// Each file carries its provenance (attnscope/provenance.h) when FigureOptions has one: PNG text chunks
// ("Software", "Title", "Description": the one-line summary, "AttnScope provenance": the JSON), the SVG's
// <desc>, the PDF's Creator and an attached attnscope-provenance.json.

#include <attnscope/provenance.h>

#include <QImage>
#include <QSize>
#include <QString>

#include <optional>

class QWidget;

class QTableView;

namespace attnui {

enum class FigureFormat { Png, Svg, Pdf };

// How a view is laid out as a figure (Workspace::figureLayout()): the size its content needs, in logical pixels
// and without the caption, whatever the window it is shown in, and the aspect ratios (width / height) its layout
// is made for. An empty size: the figure as on screen (defaultFigureSize()).
struct FigureLayout {
    QSize size;
    double minAspect = 0.4, maxAspect = 3.0;
};

struct FigureOptions {
    QSize size;              // the whole figure in logical pixels (1/96 in), caption included; empty: from layout
    double widthInches = 0;  // > 0: the printed width (a column: 3.5, a page: 7); the height follows layout's aspect
    int dpi = 192;           // PNG only: 96 = one pixel per logical pixel; 192, 300, 600 for print
    QString caption;         // under the figure, wrapped to its width; empty: none
    FigureLayout layout;     // the view's own; used when size is empty
    std::optional<attn::Provenance> provenance;   // written into the file's metadata
};

// A figure printed at FigureOptions::widthInches is laid out wider than the print when its content needs it and
// scaled down, but never below this factor, so that 9 pt type prints at 6.3 pt or more.
constexpr double kMinTextScale = 0.7;

// What an export draws: the figure laid out at `layout` logical pixels (caption included) and scaled by `scale`
// onto a page of page() logical pixels.
struct FigurePage {
    QSize layout;
    double scale = 1.0;
    QSize page() const { return QSize(qRound(layout.width() * scale), qRound(layout.height() * scale)); }
};
FigurePage resolveFigurePage(const QWidget *figure, const FigureOptions &options);

// A widget inside a figure with this property set to true (hover read-outs, hints) is left out of exports. So are
// the controls (check boxes, combo and spin boxes, sliders, buttons, line edits) and the labels that name them:
// what they set, the figure's titles and caption say. A widget with kFigureOnly set (a legend that stands in for
// check boxes) is hidden on screen and shown in exports. A QSplitter with kFigureSizes (a QList<int>, one length
// per child) is divided so in exports, whatever the user dragged it to (the statistics table gets the width its
// columns need); its sizes on screen come back afterwards.
inline constexpr char kExcludeFromFigure[] = "excludeFromFigure";
inline constexpr char kFigureOnly[] = "figureOnly";
inline constexpr char kFigureSizes[] = "figureSizes";

constexpr int kMinFigureDpi = 48;
constexpr int kMaxFigureDpi = 1200;

// By suffix (png, svg, pdf; case-insensitive); nothing for any other suffix.
std::optional<FigureFormat> figureFormatForPath(const QString &path);

// The size an export takes when FigureOptions::size and layout are empty: the figure as on screen plus the
// caption, or a default for a figure that was never shown.
QSize defaultFigureSize(const QWidget *figure, const QString &caption);

// A table view's whole content (headers, every row and column, frame) without scroll bars: how large it is drawn
// in a figure.
QSize tableFigureSize(const QTableView *table);

// The size a figure laid out as a column (a QVBoxLayout of titles, notes, panels and scroll areas) needs to show
// all of its content at once: as wide as its widest panel (at least `minWidth`), each wrapped label as tall as it
// is at that width, each scroll area as large as what it scrolls. Measures the figure's tables first. For views
// whose figure is such a column; views with plots that size themselves say so instead (HeatmapPlot::figureSize()).
QSize columnFigureSize(QWidget *figure, int minWidth = 480);

// The height of the caption under a figure `width` logical pixels wide: the caption wraps, it is never cut.
int figureCaptionHeight(const QWidget *figure, const QString &caption, int width);

bool exportFigure(QWidget *figure, const QString &path, const FigureOptions &options, QString *error = nullptr);

// The figure as an image at options.dpi (for Copy Image); a null image when there is no figure.
QImage renderFigureImage(QWidget *figure, const FigureOptions &options);

} // namespace attnui
