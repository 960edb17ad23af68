// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Writing a QCustomPlot to PNG, SVG or PDF at a chosen size, through QSaveFile (no half-written files). Shared
// by the plot wrappers in plots/; only their .cpp files include it (it names QCustomPlot).

#include <QSize>
#include <QString>

class QCustomPlot;

namespace attnui::plotexport {

bool savePng(QCustomPlot *plot, const QString &path, QSize size, double scale, QString *error);
bool saveSvg(QCustomPlot *plot, const QString &path, QSize size, const QString &title, QString *error);
bool savePdf(QCustomPlot *plot, const QString &path, QSize size, const QString &title, QString *error);
// By suffix: png (at scale 2), svg, pdf; an unknown suffix is an error naming it.
bool saveFigure(QCustomPlot *plot, const QString &path, QSize size, const QString &title, QString *error);

} // namespace attnui::plotexport
