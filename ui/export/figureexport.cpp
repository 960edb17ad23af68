// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/figureexport.h"

#include "plots/vectorpaint.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QLayout>
#include <QPageSize>
#include <QPainter>
#include <QPointer>
#include <QPdfWriter>
#include <QSaveFile>
#include <QScrollArea>
#include <QSvgGenerator>
#include <QTableView>
#include <QWidget>

#include <cmath>

namespace attnui {

namespace {

constexpr double kLogicalDpi = 96.0;           // a logical pixel is 1/96 inch, as on a 100 % screen
const QSize kFallbackSize(1000, 720);          // a figure that was never shown (headless exports, tests)

QString tr(const char *text)
{
    return QCoreApplication::translate("FigureExport", text);
}

int captionHeight(const QWidget *figure, const QString &caption)
{
    return caption.isEmpty() ? 0 : int(std::ceil(QFontMetricsF(figure->font()).height() * 1.8));
}

// Lays every layout under `root` out again at its widget's current size, parents first. Visible widgets do this
// on their own when resized; hidden ones (a headless figure) only when shown, so do it here for both.
void relayout(QWidget *root)
{
    QList<QWidget *> widgets{root};
    widgets += root->findChildren<QWidget *>();
    for (QWidget *w : widgets)
        if (QLayout *layout = w->layout()) {
            layout->activate();
            layout->setGeometry(w->rect());
        }
}

// Tables that size themselves to their content (AdjustToContents) know it only once their headers have measured
// the cells, which a figure never shown on screen has not done: without this they are drawn clipped, with scroll
// bars.
void measureTables(QWidget *figure)
{
    for (QTableView *t : figure->findChildren<QTableView *>()) {
        t->resizeColumnsToContents();
        t->resizeRowsToContents();
        t->updateGeometry();
    }
    relayout(figure);
}

// The figure at `size` for the duration of an export, then back to its own size.
class ExportGeometry {
public:
    ExportGeometry(QWidget *figure, QSize size) : m_figure(figure), m_old(figure->size())
    {
        for (QWidget *w : figure->findChildren<QWidget *>())
            if (w->property(kExcludeFromFigure).toBool() && w->isVisibleTo(figure)) {
                w->hide();
                m_hidden.append(w);
            }
        // A figure shows no scroll bars: what they would scroll to is what defaultFigureSize() made room for.
        for (QAbstractScrollArea *area : figure->findChildren<QAbstractScrollArea *>()) {
            m_scrollBars.append({area, area->horizontalScrollBarPolicy(), area->verticalScrollBarPolicy()});
            area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
            area->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        }
        measureTables(figure);
        m_figure->resize(size);
        relayout(m_figure);
        relayout(m_figure);   // again: the tables' new size hints reach the layouts above them on the first pass
        preparePlotsForExport(m_figure);
    }
    ~ExportGeometry()
    {
        for (QWidget *w : m_hidden) w->show();
        for (const ScrollBars &b : m_scrollBars) {
            if (!b.area) continue;
            b.area->setHorizontalScrollBarPolicy(b.horizontal);
            b.area->setVerticalScrollBarPolicy(b.vertical);
        }
        m_figure->resize(m_old);
        relayout(m_figure);
        preparePlotsForExport(m_figure);
    }

private:
    QWidget *m_figure;
    QSize m_old;
    QList<QWidget *> m_hidden;
    struct ScrollBars {
        QPointer<QAbstractScrollArea> area;
        Qt::ScrollBarPolicy horizontal, vertical;
    };
    QList<ScrollBars> m_scrollBars;
};

// Paints the figure and its caption into `painter`, whose coordinates are logical pixels of a `total`-sized page.
void paintFigure(QPainter &painter, QWidget *figure, QSize total, const QString &caption)
{
    const int capH = captionHeight(figure, caption);
    const QSize figSize(total.width(), std::max(1, total.height() - capH));
    ExportGeometry geometry(figure, figSize);
    painter.fillRect(QRect(QPoint(0, 0), total), figure->palette().window());
    {
        const VectorPaintScope vectors(figure);
        figure->render(&painter, QPoint(0, 0), QRegion(), QWidget::DrawChildren | QWidget::DrawWindowBackground);
    }
    if (capH > 0) {
        painter.save();
        painter.setFont(figure->font());
        painter.setPen(figure->palette().color(QPalette::WindowText));
        const QRect box(10, figSize.height(), total.width() - 20, capH);
        const QString text = painter.fontMetrics().elidedText(caption, Qt::ElideRight, box.width());
        painter.drawText(box, Qt::AlignLeft | Qt::AlignVCenter, text);
        painter.restore();
    }
}

bool fail(QString *error, const QString &message)
{
    if (error) *error = message;
    return false;
}

} // namespace

std::optional<FigureFormat> figureFormatForPath(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png")) return FigureFormat::Png;
    if (suffix == QLatin1String("svg")) return FigureFormat::Svg;
    if (suffix == QLatin1String("pdf")) return FigureFormat::Pdf;
    return std::nullopt;
}

QSize defaultFigureSize(const QWidget *figure, const QString &caption)
{
    if (!figure) return kFallbackSize;
    QSize onScreen = figure->size();
    if (!figure->isVisible() || onScreen.width() < 300 || onScreen.height() < 200) return kFallbackSize;
    // A figure that fills a scroll area (the head grid) is only as tall as its content, which it says itself
    // (heightForWidth of a widget without a layout). A layout's height for width counts only what wraps (labels):
    // taken for Equivariance's figure, it squeezed the lower row of plots out of the picture.
    int shrink = 0;
    if (!figure->layout() && figure->hasHeightForWidth()) {
        const int h = figure->heightForWidth(onScreen.width());
        if (h >= 100 && h < onScreen.height()) shrink = onScreen.height() - h;
    }
    // A figure with a scroll area inside (Pipeline's matrices) grows by what the area would hide at that size, so
    // that the picture shows all of it and no scroll bars (ExportGeometry turns them off).
    measureTables(const_cast<QWidget *>(figure));
    QSize grow(0, 0);
    for (const QScrollArea *area : figure->findChildren<QScrollArea *>()) {
        if (!area->isVisibleTo(figure) || !area->widget() || !area->widgetResizable()) continue;
        const QSize need = area->widget()->sizeHint().expandedTo(area->widget()->minimumSizeHint());
        const QSize have = area->viewport()->size() - QSize(0, shrink);
        grow = grow.expandedTo(need - have);
    }
    onScreen = QSize(onScreen.width(), onScreen.height() - shrink) + grow;
    return onScreen + QSize(0, captionHeight(figure, caption));
}

QImage renderFigureImage(QWidget *figure, const FigureOptions &options)
{
    if (!figure) return {};
    const QSize total = options.size.isEmpty() ? defaultFigureSize(figure, options.caption) : options.size;
    const double scale = std::clamp(options.dpi, kMinFigureDpi, kMaxFigureDpi) / kLogicalDpi;
    QImage image((QSizeF(total) * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
    if (image.isNull()) return {};
    // Painted at the screen's DPI (point-sized fonts keep their pixel size) and scaled; tagged with the real DPI.
    image.setDotsPerMeterX(qRound(kLogicalDpi / 0.0254));
    image.setDotsPerMeterY(qRound(kLogicalDpi / 0.0254));
    {
        QPainter painter(&image);
        painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
        painter.scale(scale, scale);
        paintFigure(painter, figure, total, options.caption);
    }
    image.setDotsPerMeterX(qRound(options.dpi / 0.0254));
    image.setDotsPerMeterY(qRound(options.dpi / 0.0254));
    return image;
}

bool exportFigure(QWidget *figure, const QString &path, const FigureOptions &options, QString *error)
{
    if (!figure) return fail(error, tr("there is no figure to export yet"));
    const std::optional<FigureFormat> format = figureFormatForPath(path);
    if (!format)
        return fail(error, tr("%1: unknown figure format '%2' (use .png, .svg or .pdf)")
                               .arg(path, QFileInfo(path).suffix()));
    if (options.dpi < kMinFigureDpi || options.dpi > kMaxFigureDpi)
        return fail(error, tr("DPI %1 is outside %2..%3").arg(options.dpi).arg(kMinFigureDpi).arg(kMaxFigureDpi));
    const QSize total = options.size.isEmpty() ? defaultFigureSize(figure, options.caption) : options.size;
    if (total.width() < 50 || total.height() < 50 || total.width() > 20000 || total.height() > 20000)
        return fail(error, tr("size %1x%2 is outside 50..20000 pixels").arg(total.width()).arg(total.height()));

    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return fail(error, tr("cannot write %1: %2").arg(path, file.errorString()));
    const QString title = options.caption.isEmpty() ? QStringLiteral("AttnScope figure") : options.caption;
    switch (*format) {
    case FigureFormat::Png: {
        const QImage image = renderFigureImage(figure, {total, options.dpi, options.caption});
        if (image.isNull() || !image.save(&file, "PNG"))
            return fail(error, tr("cannot write %1: the image could not be encoded").arg(path));
        break;
    }
    case FigureFormat::Svg: {
        QSvgGenerator generator;
        generator.setOutputDevice(&file);
        generator.setSize(total);
        generator.setViewBox(QRect(QPoint(0, 0), total));
        generator.setResolution(int(kLogicalDpi));
        generator.setTitle(title);
        generator.setDescription(QStringLiteral("AttnScope figure"));
        QPainter painter;
        if (!painter.begin(&generator)) return fail(error, tr("cannot start SVG output for %1").arg(path));
        paintFigure(painter, figure, total, options.caption);
        painter.end();
        break;
    }
    case FigureFormat::Pdf: {
        // One page exactly the figure's size; a logical pixel is 1/96 inch, so 9 pt type stays 9 pt.
        QPdfWriter writer(&file);
        writer.setResolution(int(kLogicalDpi));
        writer.setPageSize(QPageSize(QSizeF(total) * 72.0 / kLogicalDpi, QPageSize::Point, QString(),
                                     QPageSize::ExactMatch));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0));
        writer.setTitle(title);
        writer.setCreator(QStringLiteral("AttnScope"));
        QPainter painter;
        if (!painter.begin(&writer)) return fail(error, tr("cannot start PDF output for %1").arg(path));
        paintFigure(painter, figure, total, options.caption);
        painter.end();
        break;
    }
    }
    if (!file.commit()) return fail(error, tr("cannot write %1: %2").arg(path, file.errorString()));
    return true;
}

} // namespace attnui
