// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// XYPlot: a 2-D chart for everything that is not a matrix — grouped bars over category labels (Δoutput per
// token), a scatter with point labels and an optional least-squares line (attention vs perturbation
// importance), and line series with a legend (deletion / insertion curves). Title, axis labels, the exact value
// on hover, series colours drawn from the current colour map, palette-aware (light/dark), and the same export
// API as HeatmapPlot. Like HeatmapPlot, the header keeps QCustomPlot out of sight.

#include "plots/colormaps.h"

#include <QSize>
#include <QString>
#include <QStringList>
#include <QRect>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QCustomPlot;
class QCPItemText;

namespace attnui {

// One series. Bars: y per category (x is ignored). Scatter and lines: x and y of equal length; labels
// (optional, one per point) are drawn next to scatter points and shown on hover.
struct XYSeries {
    QString name;
    std::vector<double> x;
    std::vector<double> y;
    QStringList labels;
    Qt::PenStyle style = Qt::SolidLine;   // lines: the pen's style (a baseline drawn dashed, say)
};

enum class XYKind { None, Bars, Scatter, Lines };

struct XYPoint {
    int series = -1;
    int index = -1;
    bool operator==(const XYPoint &) const = default;
};

class XYPlot : public QWidget {
    Q_OBJECT
public:
    explicit XYPlot(QWidget *parent = nullptr);
    ~XYPlot() override;

    // Grouped bars: one group per category, one bar per series (series[i].y.size() == categories.size()).
    void setBars(const QStringList &categories, const QList<XYSeries> &series);
    // A scatter of one series; with fitLine, the least-squares line y = a + b·x is drawn and named in the legend.
    // Point labels are drawn for at most kMaxPointLabels points, the most prominent first (largest x or y relative
    // to the data's range), and only where they overlap no other label; every point's label is in its hover text.
    void setScatter(const XYSeries &points, bool fitLine = false);
    void setLines(const QList<XYSeries> &series);
    void clear();

    XYKind kind() const { return m_kind; }
    const QList<XYSeries> &series() const { return m_series; }
    const QStringList &categories() const { return m_categories; }
    // The fitted line of the last setScatter(…, true): intercept and slope; nothing without one.
    std::optional<std::pair<double, double>> fit() const { return m_fit; }

    void setTitle(const QString &title);
    QString title() const;
    // Texts drawn in the plot that do not fit (see HeatmapPlot::clippedTexts).
    QStringList clippedTexts() const;
    QRect plotArea() const;                               // the axes' area in widget coordinates
    void setAxisLabels(const QString &x, const QString &y);
    // Fixes the value axis (y) range; without it the range follows the data (bars always include 0).
    void setYRange(double lower, double upper);
    void setColorMap(ColorMap map);
    ColorMap colorMap() const { return m_colorMap; }
    QColor seriesColor(int series) const;

    static constexpr int kMaxPointLabels = 12;
    QList<int> labelledPoints() const;          // indices of the scatter points whose labels are drawn
    QList<QRect> pointLabelRects() const;       // where those labels are drawn (this widget's coordinates)

    QString hoverText(XYPoint point) const;     // the text shown on hover
    std::optional<XYPoint> pointAt(QPointF pos) const;   // nearest point/bar under pos (this widget's coordinates)
    QPointF pointCenter(XYPoint point) const;   // pixel position of a point or the top of a bar (for tests)
    // A bar chart labels every k-th category when there are more than fit along the axis (1: every one).
    int barTickStride() const;
    // A bar chart with more categories than fit (under about 3 px each) draws one line from 0 per category,
    // sampled per pixel column, instead of a filled bar each; the hover then names every series' value.
    bool denseBars() const;

    // Export exactly what is shown, at a chosen size; written through QSaveFile (no half-written files).
    bool savePng(const QString &path, QSize size, double scale = 2.0, QString *error = nullptr);
    bool saveSvg(const QString &path, QSize size, QString *error = nullptr);
    bool savePdf(const QString &path, QSize size, QString *error = nullptr);
    bool saveFigure(const QString &path, QSize size, QString *error = nullptr);   // by suffix: png, svg, pdf

    QWidget *plotWidget() const;   // the widget that receives mouse events

signals:
    void pointHovered(int series, int index);
    void hoverLeft();
    void pointClicked(int series, int index);

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct Private;
    void rebuild();
    void updateBarTicks();
    void placePointLabels();
    QRectF labelRect(const QCPItemText *label) const;
    bool wantsDenseBars() const;
    double denseLineWidth() const;
    double barWidth() const;
    double barOffset(int series) const;   // of a series' bars from the category's centre, in category units
    void applyPalette();

    XYKind m_kind = XYKind::None;
    QList<XYSeries> m_series;
    QStringList m_categories;
    bool m_fitLine = false;
    std::optional<std::pair<double, double>> m_fit;
    std::optional<std::pair<double, double>> m_yRange;
    ColorMap m_colorMap = ColorMap::Viridis;
    std::unique_ptr<Private> d;
};

} // namespace attnui
