// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/plotexport.h"

#include <qcustomplot.h>

#include <QCoreApplication>
#include <QFileInfo>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

namespace attnui::plotexport {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("PlotExport", text);
}

bool openFile(QSaveFile &file, const QString &path, QString *error)
{
    if (file.open(QIODevice::WriteOnly)) return true;
    if (error) *error = tr("cannot write %1: %2").arg(path, file.errorString());
    return false;
}

bool commit(QSaveFile &file, const QString &path, QString *error)
{
    if (file.commit()) return true;
    if (error) *error = tr("cannot write %1: %2").arg(path, file.errorString());
    return false;
}

// Draws the plot as vectors: labels as text, not cached pixmaps; cells as rectangles (VectorColorMap).
bool paintVectors(QCustomPlot *plot, QPaintDevice *device, QSize size, const QString &what, QString *error)
{
    QCPPainter painter;
    if (!painter.begin(device)) {
        if (error) *error = tr("cannot start %1").arg(what);
        return false;
    }
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    plot->toPainter(&painter, size.width(), size.height());
    painter.end();
    return true;
}

} // namespace

bool savePng(QCustomPlot *plot, const QString &path, QSize size, double scale, QString *error)
{
    QSaveFile file(path);
    if (!openFile(file, path, error)) return false;
    const QPixmap pixmap = plot->toPixmap(size.width(), size.height(), scale);
    if (!pixmap.save(&file, "PNG")) {
        if (error) *error = tr("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return commit(file, path, error);
}

bool saveSvg(QCustomPlot *plot, const QString &path, QSize size, const QString &title, QString *error)
{
    QSaveFile file(path);
    if (!openFile(file, path, error)) return false;
    {
        QSvgGenerator gen;
        gen.setOutputDevice(&file);
        gen.setSize(size);
        gen.setViewBox(QRect(QPoint(0, 0), size));
        gen.setTitle(title);
        gen.setDescription(QStringLiteral("AttnScope figure"));
        if (!paintVectors(plot, &gen, size, tr("SVG output for %1").arg(path), error)) return false;
    }
    return commit(file, path, error);
}

bool savePdf(QCustomPlot *plot, const QString &path, QSize size, const QString &title, QString *error)
{
    QSaveFile file(path);
    if (!openFile(file, path, error)) return false;
    {
        // One page exactly the figure's size, 1 px = 1 pt, no margins.
        QPdfWriter writer(&file);
        writer.setResolution(72);
        writer.setPageSize(QPageSize(QSizeF(size), QPageSize::Point, QString(), QPageSize::ExactMatch));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0));
        writer.setTitle(title);
        writer.setCreator(QStringLiteral("AttnScope"));
        if (!paintVectors(plot, &writer, size, tr("PDF output for %1").arg(path), error)) return false;
    }
    return commit(file, path, error);
}

bool saveFigure(QCustomPlot *plot, const QString &path, QSize size, const QString &title, QString *error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png")) return savePng(plot, path, size, 2.0, error);
    if (suffix == QLatin1String("svg")) return saveSvg(plot, path, size, title, error);
    if (suffix == QLatin1String("pdf")) return savePdf(plot, path, size, title, error);
    if (error) *error = tr("%1: unknown figure format “%2” (use .png, .svg or .pdf)").arg(path, suffix);
    return false;
}

} // namespace attnui::plotexport
