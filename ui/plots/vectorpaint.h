// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What figure export and presentation mode ask of the plots, without QCustomPlot in sight:
// - VectorPaintScope: while one exists, every QCustomPlot under its root paints itself afresh through whatever
//   painter QWidget::render() hands it (vectors: axes, tick labels as text) instead of blitting its screen buffer.
//   It works on any QCustomPlot, so a new plot wrapper needs nothing for export;
// - preparePlotsForExport(): re-lays out every plot under a widget at its current size (tick thinning included),
//   so a figure resized for export is drawn as it would be on screen at that size;
// - the presentation style: thicker lines for plots that read plotLineWidth(). UI thread only.

#include <QList>
#include <QPointer>
#include <QWidget>

namespace attnui {

class VectorPaintScope {
public:
    explicit VectorPaintScope(QWidget *root);
    ~VectorPaintScope();
    VectorPaintScope(const VectorPaintScope &) = delete;
    VectorPaintScope &operator=(const VectorPaintScope &) = delete;

private:
    QList<QPointer<QWidget>> m_plots;
};


void preparePlotsForExport(QWidget *root);

// True while a VectorPaintScope exists: a figure is being drawn. Widgets leave out what only the screen needs
// (a selection outline, a hover highlight) while it is.
bool paintingFigure();

void setPresentationStyle(bool on);
bool presentationStyle();
double plotLineWidth();   // 1 normally, thicker in presentation mode

} // namespace attnui
