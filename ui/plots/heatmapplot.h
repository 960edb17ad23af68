// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// HeatmapPlot: one attention matrix as a heatmap — queries as rows (first token on top), keys as columns,
// token labels on both axes, a colour scale, masked cells hatched, the exact value on hover, PNG/SVG/PDF export.
// Like every plot wrapper in plots/, only its .cpp includes qcustomplot.h; the header keeps QCustomPlot out of sight.

#include "plots/colormaps.h"
#include "plots/colorscale.h"

#include <QPointF>
#include <QRect>
#include <QSize>
#include <QStringList>
#include <QWidget>

#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

class QCustomPlot;

namespace attnui {

struct HeatmapScaleInputs;
struct ScaledMatrix;

// A matrix to show, row-major [rows, cols]. masked (optional, rows·cols, 1 = masked) cells are drawn as "no
// value" whatever their number; scores (optional) are the pre-softmax scores shown on hover.
struct HeatmapData {
    int rows = 0;
    int cols = 0;
    std::vector<float> values;
    std::vector<std::uint8_t> masked;
    std::vector<float> scores;
    QStringList rowLabels;   // queries
    QStringList colLabels;   // keys
    // The colour scale's range, when the data brings it (found where the data was built, off the UI thread);
    // otherwise setValueRange()'s stays.
    std::optional<std::pair<double, double>> valueRange;
};

struct HeatmapCell {
    int row = -1;   // query
    int col = -1;   // key
    bool operator==(const HeatmapCell &) const = default;
};

class HeatmapPlot : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapPlot(QWidget *parent = nullptr);
    ~HeatmapPlot() override;

    void setData(HeatmapData data);
    // For large matrices: `build` runs on the Qt thread pool, and so does the work setData() would do on the UI
    // thread (copying, pooling into the colour map's storage, finding masked runs); the result is shown when
    // ready. A later setData() or setDataAsync() drops a pending one. dataShown() says when it is on screen.
    void setDataAsync(std::function<HeatmapData()> build);
    bool isPreparing() const;
    void clear();
    const HeatmapData &data() const { return *m_data; }

    void setTitle(const QString &title);
    QString title() const;
    // Texts drawn in the plot that do not fit (a title line wider than the plot, an axis label longer than its
    // axis); empty when everything is readable. Titles wrap by themselves; the layout tests check the rest.
    QStringList clippedTexts() const;
    void setColorMap(ColorMap map);
    ColorMap colorMap() const { return m_colorMap; }
    void setValueRange(double lower, double upper);       // colour scale range (default [0, 1])
    std::pair<double, double> colorRange() const;         // the range the colours span now
    QString valueLabel() const;                           // the colour bar's label
    // Signed differences: the diverging map over [−maxAbs, maxAbs], so 0 is the neutral middle colour whatever the
    // data (maxAbs ≤ 0 or not finite: [−1, 1]).
    void setDivergingRange(double maxAbs);
    void setValueLabel(const QString &label);             // colour scale label ("attention weight")
    // How weights become colours (colorscale.h): fixed (the value range above), data range, percentile clip,
    // log or per-row; the colour bar's label says which. Diverging maps ignore it: they are read against 0.
    void setColorScale(ColorScale scale);
    ColorScale colorScale() const;
    // Diverging maps: differences smaller than `floor` in magnitude drawn as 0 (the stated numerical
    // tolerance), and the colour bar says so. 0: none.
    void setNoiseFloor(double floor);
    double noiseFloor() const;
    // The colour a cell is drawn in now (its stored cell's, under the current scale); the mask colour's
    // "no value" colour where masked.
    QColor cellColor(int row, int col) const;
    void setAxisTitles(const QString &rows, const QString &cols);
    // Small multiples that share one range show the scale once (on the last panel); the others hide theirs.
    void setColorScaleVisible(bool visible);
    // This heatmap as a figure: square-ish cells, large enough for their numbers on short inputs and a matrix no
    // larger than a page on long ones, with room for the title, the token labels, the axis titles and the colour
    // bar. Logical pixels. Small multiples ask for smaller cells and matrices (maxCell, maxSide); cells stay at
    // least one text line tall where the matrix can hold them, so that every token keeps its label.
    QSize figureSize(int maxCell = 44, int maxSide = 900) const;

    // Zooms to a block of cells, inclusive (what the mouse wheel and drag do; double-click shows all again).
    void showCells(int firstRow, int lastRow, int firstCol, int lastCol);

    // The cell under a point in this widget's coordinates; nothing outside the matrix.
    std::optional<HeatmapCell> cellAt(QPointF pos) const;
    QPointF cellCenter(int row, int col) const;           // pixel centre of a cell (for tests and overlays)
    QRect plotArea() const;                               // the matrix area in widget coordinates
    // What the colour map holds for a cell: the value, or NaN where the cell is masked.
    double cellValue(int row, int col) const;
    // The tick labels currently drawn (thinned when there are many tokens), by tick position.
    QStringList rowTickLabels() const;
    QStringList colTickLabels() const;
    QString hoverText(HeatmapCell cell) const;            // the text shown on hover
    // Replaces the attention wording of the hover text (for matrices that are not query × key weights).
    void setHoverFormatter(std::function<QString(HeatmapCell)> formatter);
    // Outlines a cell as hovering does, without a tooltip or signals (linked hover across plots); nothing: none.
    void highlightCell(std::optional<HeatmapCell> cell);
    std::optional<HeatmapCell> highlightedCell() const;

    // Export exactly what is shown, at a chosen size; written through QSaveFile (no half-written files).
    bool savePng(const QString &path, QSize size, double scale = 2.0, QString *error = nullptr);
    bool saveSvg(const QString &path, QSize size, QString *error = nullptr);
    bool savePdf(const QString &path, QSize size, QString *error = nullptr);
    bool saveFigure(const QString &path, QSize size, QString *error = nullptr);   // by suffix: png, svg, pdf

    QWidget *plotWidget() const;   // the widget that receives mouse events

    // The number printed inside a cell: two decimals, but a value under 0.005 that is not 0 in one significant
    // digit ("1e-7", "-3e-8"), so that a round-off difference does not read as "0.00" and an exact 0 reads "0".
    static QString cellText(double value);

signals:
    void dataShown();   // after setData(), or when a setDataAsync() result has been applied
    void cellHovered(int row, int col);
    void hoverLeft();
    void cellClicked(int row, int col);

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct Private;
    struct Prepared;
    static Prepared prepare(HeatmapData data, int maxCells, const HeatmapScaleInputs &scale);
    HeatmapScaleInputs scaleInputs() const;
    void useScaled(ScaledMatrix scaled);   // the colours' range, log or linear, label; UI thread
    void rescale();                        // the scale or the fixed range changed: recolour the data shown
    void updateValueLabel();
    // Cells per axis the colour map stores: kMaxStorageCells, or for a matrix larger than that, about as many as
    // the plot has pixels (nine 4096-token panels at 1024² each cost the UI thread ~30 ms apiece to colour and
    // draw; at their ~300 px they show no more than 300²).
    int storageCap(int rows, int cols) const;
    static int storageCapFor(int rows, int cols, QSize area, qreal dpr);   // the same, for a plot area of `area`
    void apply(Prepared prepared);
    void replotLater();   // a queued replot, unless new data is being prepared
    void scheduleRefine();
    void refineStorage();
    void updateTicks();
    void applyPalette();
    void setHover(std::optional<HeatmapCell> cell, QPoint globalPos);

    // Shared, never null: a zoom's re-pooling reads it on the work pool while the plot may already show newer data.
    std::shared_ptr<const HeatmapData> m_data = std::make_shared<const HeatmapData>();
    ColorMap m_colorMap = ColorMap::Viridis;
    std::function<QString(HeatmapCell)> m_hoverFormatter;
    std::unique_ptr<Private> d;
};

} // namespace attnui
