// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/figureexport.h"

#include "plots/vectorpaint.h"

#include <QAbstractButton>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QFileInfo>
#include <QHeaderView>
#include <QTableView>
#include <QLayout>
#include <QPageSize>
#include <QPainter>
#include <QPointer>
#include <QPdfWriter>
#include <QSaveFile>
#include <QScrollArea>
#include <QSplitter>
#include <QStyle>
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

constexpr int kCaptionMargin = 10;             // left and right of the caption

QRectF captionText(const QWidget *figure, const QString &caption, int width)
{
    const QFontMetricsF fm(figure->font());
    return fm.boundingRect(QRectF(0, 0, std::max(40, width - 2 * kCaptionMargin), 1e6),
                           Qt::AlignLeft | Qt::TextWordWrap, caption);
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
        const QList<QWidget *> children = figure->findChildren<QWidget *>();
        for (QWidget *w : children)
            if (w->property(kFigureOnly).toBool() && !w->isVisibleTo(figure) && w->parentWidget()->isVisibleTo(figure)) {
                w->show();
                m_shown.append(w);
            }
        for (QWidget *w : children)
            if ((w->property(kExcludeFromFigure).toBool() || isControl(w)) && w->isVisibleTo(figure)) {
                w->hide();
                m_hidden.append(w);
            }
        // A figure shows no scroll bars: what they would scroll to is what defaultFigureSize() made room for.
        for (QAbstractScrollArea *area : figure->findChildren<QAbstractScrollArea *>()) {
            m_scrollBars.append({area, area->horizontalScrollBarPolicy(), area->verticalScrollBarPolicy()});
            area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
            area->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        }
        // A sort indicator is a control's state, not data; a last column stretched to the window's width would
        // keep that width (tableFigureSize() measures every column to its content).
        for (QTableView *table : figure->findChildren<QTableView *>()) {
            QHeaderView *h = table->horizontalHeader();
            m_headers.append({h, h->isSortIndicatorShown(), h->stretchLastSection()});
            h->setSortIndicatorShown(false);
            h->setStretchLastSection(false);
        }
        measureTables(figure);
        // A table no taller than its rows: an empty white box under the last row reads as missing data.
        for (QTableView *table : figure->findChildren<QTableView *>()) {
            m_tableHeights.append({table, table->maximumHeight()});
            table->setMaximumHeight(tableFigureSize(table).height());
        }
        // A figure that is the widget of a resizable scroll area (the overview grid) would be sized back to the
        // viewport as soon as render() delivers its resize event.
        for (QWidget *p = figure->parentWidget(); p; p = p->parentWidget())
            if (auto *area = qobject_cast<QScrollArea *>(p); area && area->widget() == figure) {
                if (area->widgetResizable()) {
                    m_resizableArea = area;
                    area->setWidgetResizable(false);
                }
                break;
            }
        m_figure->resize(size);
        relayout(m_figure);
        for (QSplitter *split : figure->findChildren<QSplitter *>()) {
            const QVariant sizes = split->property(kFigureSizes);
            if (!sizes.isValid()) continue;
            m_splitters.append({split, split->sizes()});
            split->setSizes(sizes.value<QList<int>>());
        }
        relayout(m_figure);   // again: the tables' new size hints reach the layouts above them on the first pass
        preparePlotsForExport(m_figure);
    }
    ~ExportGeometry()
    {
        if (m_resizableArea) m_resizableArea->setWidgetResizable(true);
        for (const Splitter &s : m_splitters)
            if (s.split) s.split->setSizes(s.sizes);
        for (const TableHeight &t : m_tableHeights)
            if (t.table) t.table->setMaximumHeight(t.maximum);
        for (const Header &h : m_headers) {
            if (!h.header) continue;
            h.header->setSortIndicatorShown(h.sortIndicator);
            h.header->setStretchLastSection(h.stretchLast);
        }
        for (QWidget *w : m_hidden)
            if (w) w->show();
        for (QWidget *w : m_shown)
            if (w) w->hide();
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
    // A control, or the label that names one (its buddy); never a scroll bar (the scroll areas handle those).
    static bool isControl(const QWidget *w)
    {
        if (qobject_cast<const QScrollBar *>(w)) return false;
        if (const auto *label = qobject_cast<const QLabel *>(w)) return label->buddy() && isControl(label->buddy());
        return qobject_cast<const QAbstractButton *>(w) || qobject_cast<const QComboBox *>(w) ||
               qobject_cast<const QAbstractSpinBox *>(w) || qobject_cast<const QAbstractSlider *>(w) ||
               qobject_cast<const QLineEdit *>(w);
    }

    QWidget *m_figure;
    QSize m_old;
    QList<QPointer<QWidget>> m_hidden, m_shown;
    QPointer<QScrollArea> m_resizableArea;
    struct ScrollBars {
        QPointer<QAbstractScrollArea> area;
        Qt::ScrollBarPolicy horizontal, vertical;
    };
    QList<ScrollBars> m_scrollBars;
    struct Splitter {
        QPointer<QSplitter> split;
        QList<int> sizes;
    };
    QList<Splitter> m_splitters;
    struct Header {
        QPointer<QHeaderView> header;
        bool sortIndicator, stretchLast;
    };
    QList<Header> m_headers;
    struct TableHeight {
        QPointer<QTableView> table;
        int maximum;
    };
    QList<TableHeight> m_tableHeights;
};

// Paints the figure and its caption into `painter`, whose coordinates are logical pixels of a `total`-sized page.
void paintFigure(QPainter &painter, QWidget *figure, QSize total, const QString &caption)
{
    const int capH = figureCaptionHeight(figure, caption, total.width());
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
        const QRect box(kCaptionMargin, figSize.height(), total.width() - 2 * kCaptionMargin, capH);
        painter.drawText(box, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, caption);
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
    return onScreen + QSize(0, figureCaptionHeight(figure, caption, onScreen.width()));
}

QSize columnFigureSize(QWidget *figure, int minWidth)
{
    if (!figure || !figure->layout()) return {};
    measureTables(figure);
    QLayout *layout = figure->layout();
    const auto shown = [figure](const QWidget *w) {
        return w && w->isVisibleTo(figure) && !w->property(kExcludeFromFigure).toBool();
    };
    const auto need = [](QWidget *w) {
        if (const auto *area = qobject_cast<QScrollArea *>(w); area && area->widget())
            return area->widget()->sizeHint().expandedTo(area->widget()->minimumSizeHint());
        return w->sizeHint();
    };
    int width = minWidth;
    for (int i = 0; i < layout->count(); ++i)
        if (QWidget *w = layout->itemAt(i)->widget(); shown(w) && !w->hasHeightForWidth())
            width = std::max(width, need(w).width());
        else if (QLayout *inner = layout->itemAt(i)->layout())
            width = std::max(width, inner->sizeHint().width());
    int height = 0, items = 0;
    for (int i = 0; i < layout->count(); ++i) {
        QLayoutItem *item = layout->itemAt(i);
        if (QWidget *w = item->widget()) {
            if (!shown(w)) continue;
            height += w->hasHeightForWidth() ? w->heightForWidth(width) : need(w).height();
        } else if (QLayout *inner = item->layout()) {
            height += inner->hasHeightForWidth() ? inner->heightForWidth(width) : inner->sizeHint().height();
        } else {
            continue;
        }
        ++items;
    }
    const QMargins m = layout->contentsMargins();
    return QSize(width + m.left() + m.right(),
                 height + std::max(0, items - 1) * std::max(0, layout->spacing()) + m.top() + m.bottom());
}

QSize tableFigureSize(const QTableView *table)
{
    if (!table) return {};
    const int frame = 2 * table->frameWidth();
    const QHeaderView *h = table->horizontalHeader(), *v = table->verticalHeader();
    // Each column as wide as its content or title needs (the header's length would include a last section
    // stretched to whatever width the window had), without the sort indicator, which exports leave out.
    const auto *view = static_cast<const QAbstractItemView *>(table);
    // The titles' hints as exports measure them, without the indicator (set back at once; QHeaderView only
    // schedules a repaint).
    auto *header = const_cast<QHeaderView *>(h);
    const bool indicator = header->isSortIndicatorShown();
    header->setSortIndicatorShown(false);
    int columns = 0;
    for (int c = 0; table->model() && c < table->model()->columnCount(); ++c)
        if (!table->isColumnHidden(c)) columns += std::max(header->sectionSizeHint(c), view->sizeHintForColumn(c));
    header->setSortIndicatorShown(indicator);
    const int w = columns + (v->isVisible() ? v->width() : 0) + frame;
    // The rows as measureTables() will size them to their content (the header's own length is still the default
    // section size for a table never shown).
    int rows = 0;
    for (int r = 0; table->model() && r < table->model()->rowCount(); ++r)
        if (!table->isRowHidden(r)) rows += std::max(view->sizeHintForRow(r), v->minimumSectionSize());
    const int hh = rows + (h->isHidden() ? 0 : h->sizeHint().height()) + frame;
    return QSize(w, hh);
}

int figureCaptionHeight(const QWidget *figure, const QString &caption, int width)
{
    if (caption.isEmpty() || !figure) return 0;
    const double line = QFontMetricsF(figure->font()).height();
    return int(std::ceil(captionText(figure, caption, width).height() + line * 0.8));
}

FigurePage resolveFigurePage(const QWidget *figure, const FigureOptions &options)
{
    if (!options.size.isEmpty()) return {options.size, 1.0};
    const QSize content = !options.layout.size.isEmpty() ? options.layout.size
                                                         : defaultFigureSize(figure, QString());
    if (options.widthInches <= 0)
        return {content + QSize(0, figureCaptionHeight(figure, options.caption, content.width())), 1.0};
    // Printed at a given width: laid out at the content's own width where that is within what the text can be
    // scaled by, else at the nearest width that is; the height keeps the content's aspect.
    const double print = options.widthInches * kLogicalDpi;
    const double width = std::clamp(double(content.width()), print, print / kMinTextScale);
    const int w = qRound(width), h = qRound(width * content.height() / std::max(1, content.width()));
    return {QSize(w, h + figureCaptionHeight(figure, options.caption, w)), print / width};
}

QImage renderFigureImage(QWidget *figure, const FigureOptions &options)
{
    if (!figure) return {};
    const FigurePage page = resolveFigurePage(figure, options);
    const double scale = std::clamp(options.dpi, kMinFigureDpi, kMaxFigureDpi) / kLogicalDpi;
    QImage image((QSizeF(page.page()) * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
    if (image.isNull()) return {};
    // Painted at the screen's DPI (point-sized fonts keep their pixel size) and scaled; tagged with the real DPI.
    image.setDotsPerMeterX(qRound(kLogicalDpi / 0.0254));
    image.setDotsPerMeterY(qRound(kLogicalDpi / 0.0254));
    {
        QPainter painter(&image);
        painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
        painter.scale(scale * page.scale, scale * page.scale);
        paintFigure(painter, figure, page.layout, options.caption);
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
    const FigurePage page = resolveFigurePage(figure, options);
    const QSize total = page.page();
    for (const QSize s : {total, page.layout})
        if (s.width() < 50 || s.height() < 50 || s.width() > 20000 || s.height() > 20000)
            return fail(error, tr("size %1x%2 is outside 50..20000 pixels").arg(s.width()).arg(s.height()));

    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return fail(error, tr("cannot write %1: %2").arg(path, file.errorString()));
    const QString title = options.caption.isEmpty() ? QStringLiteral("AttnScope figure") : options.caption;
    const QString provenanceLine = options.provenance ? QString::fromStdString(attn::provenanceLine(*options.provenance)) : QString();
    const QString provenanceJson = options.provenance ? QString::fromStdString(attn::provenanceJson(*options.provenance)) : QString();
    const QString software = QStringLiteral("AttnScope %1").arg(QString::fromStdString(attn::attnscopeVersion()));
    switch (*format) {
    case FigureFormat::Png: {
        QImage image = renderFigureImage(figure, options);
        image.setText(QStringLiteral("Software"), software);
        image.setText(QStringLiteral("Title"), title);
        if (options.provenance) {
            image.setText(QStringLiteral("Description"), provenanceLine);
            image.setText(QStringLiteral("AttnScope provenance"), provenanceJson);
        }
        if (image.isNull() || !image.save(&file, "PNG"))
            return fail(error, tr("cannot write %1: the image could not be encoded").arg(path));
        break;
    }
    case FigureFormat::Svg: {
        QSvgGenerator generator;
        generator.setOutputDevice(&file);
        generator.setSize(total);                                  // the printed size
        generator.setViewBox(QRect(QPoint(0, 0), page.layout));    // the coordinates it is drawn in
        generator.setResolution(int(kLogicalDpi));
        generator.setTitle(title);
        generator.setDescription(options.provenance ? provenanceLine + QStringLiteral("\n") + provenanceJson
                                                    : QStringLiteral("AttnScope figure"));
        QPainter painter;
        if (!painter.begin(&generator)) return fail(error, tr("cannot start SVG output for %1").arg(path));
        paintFigure(painter, figure, page.layout, options.caption);
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
        writer.setCreator(options.provenance ? provenanceLine : software);
        if (options.provenance)
            writer.addFileAttachment(QStringLiteral("attnscope-provenance.json"), provenanceJson.toUtf8(),
                                     QStringLiteral("application/json"));
        QPainter painter;
        if (!painter.begin(&writer)) return fail(error, tr("cannot start PDF output for %1").arg(path));
        painter.scale(page.scale, page.scale);
        paintFigure(painter, figure, page.layout, options.caption);
        painter.end();
        break;
    }
    }
    if (!file.commit()) return fail(error, tr("cannot write %1: %2").arg(path, file.errorString()));
    return true;
}

} // namespace attnui
