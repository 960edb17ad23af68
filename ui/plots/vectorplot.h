// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// VectorColorMap: the heatmap's QCPColorMap, drawn on SVG and PDF devices as one rectangle per cell rather than
// one scaled image, so an exported heatmap stays sharp at any zoom. Figure export itself (every QCustomPlot drawn
// as vectors) lives in vectorplot.cpp behind plots/vectorpaint.h. Only ui/plots/ includes this header.

#include "plots/vectorpaint.h"

#include <qcustomplot.h>

namespace attnui {

class VectorColorMap : public QCPColorMap {
    Q_OBJECT
public:
    using QCPColorMap::QCPColorMap;
    // Above this many visible cells a vector device still gets the map as one (data-resolution) image.
    static constexpr int kMaxVectorCells = 128 * 128;

protected:
    void draw(QCPPainter *painter) override;
};

} // namespace attnui
