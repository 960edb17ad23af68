// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// BoxPlot: distributions side by side, one box per category (a method over a dataset's examples) with a
// baseline category drawn apart (grey): the box spans the quartiles with the median across it, the whiskers
// reach the furthest values within 1.5 IQR of the box (Tukey), values beyond are drawn as points, and beside
// each box a diamond with a bar marks the mean and its interval (given by the caller: the dataset summary's
// bootstrap interval, so the figure shows the same numbers as the table). Hover names the numbers. Same export
// API as XYPlot; the header keeps QCustomPlot out of sight.

#include <QRect>
#include <QSize>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

namespace attnui {

struct BoxSeries {
    QString name;
    std::vector<double> values;    // NaN values are left out (undefined for that example)
    double mean = 0.0;             // as the caller computed it; NaN: not drawn
    double ciLo = 0.0, ciHi = 0.0; // the mean's interval; NaN: no bar
    bool baseline = false;         // the random baseline: grey
};

// Quartiles with NumPy's default linear interpolation; whiskers at the extreme values within 1.5 IQR.
struct BoxStats {
    int n = 0;
    double q1 = 0, median = 0, q3 = 0, lowWhisker = 0, highWhisker = 0;
    std::vector<double> outliers;
};
BoxStats computeBoxStats(std::vector<double> values);   // n = 0 for no finite value

class BoxPlot : public QWidget {
    Q_OBJECT
public:
    explicit BoxPlot(QWidget *parent = nullptr);
    ~BoxPlot() override;

    void setBoxes(const QList<BoxSeries> &boxes);
    void clear() { setBoxes({}); }
    const QList<BoxSeries> &boxes() const { return m_boxes; }
    const std::vector<BoxStats> &stats() const { return m_stats; }

    void setTitle(const QString &title);
    QString title() const;
    void setValueLabel(const QString &label);

    QString hoverText(int box) const;
    std::optional<int> boxAt(QPointF pos) const;     // this widget's coordinates
    QPointF boxCenter(int box) const;                // pixel position of a box's median (for tests)
    QRect plotArea() const;                          // the axes' area in widget coordinates
    QStringList clippedTexts() const;                // texts that do not fit (plottext::clippedTexts)

    bool saveFigure(const QString &path, QSize size, QString *error = nullptr);   // by suffix: png, svg, pdf
    QWidget *plotWidget() const;

protected:
    void changeEvent(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct Private;
    void rebuild();
    void applyPalette();

    QList<BoxSeries> m_boxes;
    std::vector<BoxStats> m_stats;
    std::unique_ptr<Private> d;
};

} // namespace attnui
