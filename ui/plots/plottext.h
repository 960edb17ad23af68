// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Text inside a QCustomPlot that must never be clipped: titles wrap to the plot's width (at spaces), and the
// layout tests ask which texts still do not fit. Shared by the plot wrappers in plots/; only their .cpp files
// include it (it names QCustomPlot).

#include <QString>
#include <QStringList>

class QCPLegend;
class QCPTextElement;
class QCustomPlot;
class QFont;
class QPalette;

namespace attnui::plottext {

// Breaks `text` at spaces so that no line is wider than `width` pixels in `font` (a word longer than a line stays
// whole on its own line).
QString wrap(const QString &text, const QFont &font, int width);
// Sets `title` to `full` wrapped to `width`; true when the shown text changed (the layout needs a replot).
bool fitTitle(QCPTextElement *title, const QString &full, int width);
// Lays a horizontal legend out in as many rows as it needs so that no row is wider than `width` pixels; true
// when it changed (the layout needs a replot).
bool fitLegend(QCPLegend *legend, int width);
// The texts of `plot` that do not fit where they are drawn: a title line wider than the plot, an axis label
// longer than its axis, legend entries wider than the legend's room.
QStringList clippedTexts(QCustomPlot *plot);
// The look every x/y plot shares: window background, base-coloured axis rect, both axes (pens, tick labels in
// `font`, italic axis labels, dotted grid) in the palette's text colour.
void applyAxesPalette(QCustomPlot *plot, const QPalette &palette, const QFont &font);

} // namespace attnui::plottext
