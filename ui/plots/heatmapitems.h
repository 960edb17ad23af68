// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// HeatmapPlot's QCustomPlot pieces (private to plots/heatmap*.cpp): its private state, the hatching over masked cells, the numbers printed in
// cells large enough to read them, the colour gradient, and the colour map's storage built from a pooled level.

#include "plots/colormaps.h"
#include "plots/colorscale.h"
#include "plots/heatmaplod.h"
#include "plots/heatmapplot.h"

#include <qcustomplot.h>

#include <memory>
#include <optional>
#include <vector>

class QTimer;

namespace attnui {

bool isDark(const QPalette &palette);

// Hatching over masked cells, drawn as one rectangle per run of masked cells in a row, so a causal mask over
// thousands of tokens costs one rectangle per visible row, not one per cell.
class MaskHatch : public QCPAbstractItem {
public:
    struct Run {
        int row, first, last;
    };

    explicit MaskHatch(QCustomPlot *plot);
    void setRuns(std::vector<Run> runs) { m_runs = std::move(runs); }
    void setColor(const QColor &color) { m_color = color; }
    double selectTest(const QPointF &, bool, QVariant *) const override { return -1.0; }

protected:
    void draw(QCPPainter *painter) override;

private:
    std::vector<Run> m_runs;
    QColor m_color;
};

// The weight printed inside each cell when cells are large enough to read it (short inputs, or zoomed in):
// the exact number is on screen and in exported figures, not only on hover.
class CellValues : public QCPAbstractItem {
public:
    // shown: the values the colours come from when a colour scale or noise floor changes them (null: data's).
    CellValues(QCustomPlot *plot, const std::shared_ptr<const HeatmapData> *data,
               const std::shared_ptr<const std::vector<float>> *shown, const QCPColorMap *map);
    double selectTest(const QPointF &, bool, QVariant *) const override { return -1.0; }

protected:
    void draw(QCPPainter *painter) override;

private:
    const std::shared_ptr<const HeatmapData> *m_data;   // the plot's, which it replaces when new data comes
    const std::shared_ptr<const std::vector<float>> *m_shown;
    const QCPColorMap *m_map;
};

QCPColorGradient makeGradient(ColorMap map, bool dark);
std::unique_ptr<QCPColorMapData> makeCells(const HeatmapLevel &level);
std::vector<MaskHatch::Run> maskRuns(const HeatmapData &data);

// HeatmapPlot's state behind its d-pointer (shared by heatmapplot.cpp and heatmaphover.cpp).
struct HeatmapPlot::Private {
    QCustomPlot *plot = nullptr;
    QCPColorMap *map = nullptr;
    QCPColorScale *scale = nullptr;
    QCPLayoutGrid *body = nullptr;         // the matrix and its scale in one row under the title
    QCPTextElement *title = nullptr;
    QString fullTitle;                     // as set; the element shows it wrapped to the plot's width
    MaskHatch *hatch = nullptr;
    QCPItemRect *hoverRect = nullptr;
    QSharedPointer<QCPAxisTickerText> rowTicker, colTicker;
    std::optional<HeatmapCell> hover;
    QPoint pressPos;
    double lower = 0.0, upper = 1.0;
    bool updatingTicks = false;
    HeatmapWindow window;                  // what the colour map stores now (see heatmaplod.h)
    int rowStride = 1, colStride = 1;
    QTimer *refine = nullptr;              // re-pools the visible window after zooming a large matrix
    quint64 generation = 0;                // of setData / setDataAsync calls; stale async results are dropped
    quint64 applied = 0;                   // of data put on screen; a re-pooling for older data is dropped
    bool preparing = false;
    bool refining = false;                 // a re-pooling runs on the work pool
    bool refineAgain = false;              // the view moved meanwhile: re-pool once more when it is done
    int widestColLabel = -1;               // pixels; −1: to be measured
    // The colour scale (weight maps) and noise floor (diverging maps), and what they made of the data: the
    // values the colours come from where they differ from the data's (null: the data's own), log or linear.
    ColorScale colorScale;
    double noiseFloor = 0.0;
    std::shared_ptr<const std::vector<float>> shown;
    QString baseLabel;                     // as set; the colour bar adds what the scale did (labelSuffix)
    QString labelSuffix;
    QSharedPointer<QCPAxisTicker> linearTicker;
};

// What prepare() needs to know of the colour scale, captured on the UI thread.
struct HeatmapScaleInputs {
    ColorScale scale;
    bool diverging = false;
    double noiseFloor = 0.0;
    double fixedLower = 0.0, fixedUpper = 1.0;   // the view's own range, unless the data brings one
};
// The colours of `data` under `in`.
ScaledMatrix scaleHeatmap(const HeatmapData &data, const HeatmapScaleInputs &in);

struct HeatmapPlot::Prepared {
    HeatmapData data;                         // empty in a re-pooling (refineStorage)
    std::unique_ptr<QCPColorMapData> cells;   // null: nothing to show
    std::vector<MaskHatch::Run> runs;
    HeatmapLevel level;                       // without its cells (moved into `cells`)
    ScaledMatrix scaled;                      // the colours' values and range
};

} // namespace attnui
