// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Equivariance workspace's figure: the two maximum errors in large text with the reason they are ~0 or not,
// then A(PX) | P·A(X)·Pᵀ | difference and Y(PX) | P·Y(X) | difference, every heatmap labelled with the tokens in
// the permuted order. What Export Figure writes.

#include "workspaces/equivariance/equivariancerun.h"
#include "plots/colormaps.h"

#include <QWidget>

#include <cstddef>
#include <functional>
#include <memory>

class QBoxLayout;
class QLabel;

namespace attnui {

class HeatmapPlot;
struct HeatmapData;

class EquivarianceFigure : public QWidget {
    Q_OBJECT
public:
    explicit EquivarianceFigure(QWidget *parent = nullptr);

    // How a matrix reaches its plot: Workspace::showMatrix (at once when small, else prepared off the UI thread).
    using ShowMatrix = std::function<void(HeatmapPlot *, std::size_t cells, std::function<HeatmapData()>)>;
    void setSnapshot(const std::shared_ptr<const EquivarianceSnapshot> &snapshot, const QString &reason,
                     const ShowMatrix &show);
    void setColorMap(ColorMap map);

    HeatmapPlot *weightsPermutedInput() const { return m_aPX; }    // A(PX)
    HeatmapPlot *weightsPermutedOutput() const { return m_aX; }    // P·A(X)·Pᵀ
    HeatmapPlot *weightsDifference() const { return m_aDiff; }
    HeatmapPlot *outputsPermutedInput() const { return m_yPX; }    // Y(PX)
    HeatmapPlot *outputsPermutedOutput() const { return m_yX; }    // P·Y(X)
    HeatmapPlot *outputsDifference() const { return m_yDiff; }
    // Two rows of three maps, cells of up to 24 px, under the headlines and the reason.
    QSize figureSize() const;
    QString weightsErrorText() const;
    QString outputsErrorText() const;
    QString reasonText() const;

    static QString formatError(double err);   // "3.1e-08"
    // Float32 round-off: differences of attention weights (probabilities) up to this are what an exactly
    // equivariant computation gives, so the colour scales never span less; round-off of 1e-8 is then drawn
    // near white, not as the scale's brightest red. Hidden states use it relative to their largest value.
    static constexpr double kRoundOff = 1e-5;

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void arrangeHeadlines();   // side by side where both fit, else one under the other
    QBoxLayout *m_errors = nullptr;
    QLabel *m_errA = nullptr;
    QLabel *m_errY = nullptr;
    QLabel *m_reason = nullptr;
    HeatmapPlot *m_aPX = nullptr, *m_aX = nullptr, *m_aDiff = nullptr;
    HeatmapPlot *m_yPX = nullptr, *m_yX = nullptr, *m_yDiff = nullptr;
};

} // namespace attnui
