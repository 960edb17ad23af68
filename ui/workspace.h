// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The interface a workspace (Explore, Pipeline, Masks, ...) offers the main window: a title, the figure that
// File ▸ Export Figure writes, and reactions to the View menu. Background work goes through the EngineRunner
// the main window owns.

#include "plots/colormaps.h"

#include <QWidget>

class QSettings;

namespace attnui {

class HeatmapPlot;

class Workspace : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;

    virtual QString title() const = 0;
    virtual HeatmapPlot *currentFigure() const = 0;      // what Export Figure writes; may be null
    virtual void setColorMap(ColorMap map) = 0;
    virtual void rerun() {}                              // View ▸ Run again
    virtual void saveSettings(QSettings &) const {}      // inside the workspace's own settings group
    virtual void restoreSettings(const QSettings &) {}

signals:
    void figureChanged();                                // currentFigure() now shows something else
};

} // namespace attnui
