// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/plottext.h"

#include "plots/heatmapitems.h"

#include <qcustomplot.h>

#include <QFontMetrics>

#include <algorithm>
#include <functional>
#include <vector>

namespace attnui::plottext {

QString wrap(const QString &text, const QFont &font, int width)
{
    const QFontMetrics fm(font);
    if (width <= 0 || fm.horizontalAdvance(text) <= width) return text;
    QStringList lines;
    QString line;
    for (const QString &word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QString candidate = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (!line.isEmpty() && fm.horizontalAdvance(candidate) > width) {
            lines << line;
            line = word;
        } else {
            line = candidate;
        }
    }
    if (!line.isEmpty()) lines << line;
    return lines.join(QLatin1Char('\n'));
}

bool fitTitle(QCPTextElement *title, const QString &full, int width)
{
    const QString shown = wrap(full, title->font(), width - 8);
    if (shown == title->text()) return false;
    title->setText(shown);
    return true;
}

bool fitLegend(QCPLegend *legend, int width)
{
    std::vector<int> widths;
    // itemCount() counts the grid's cells, empty ones too (a wrapped legend leaves some).
    for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPLayoutElement *item = legend->item(i)) widths.push_back(item->minimumOuterSizeHint().width());
    if (widths.empty()) return false;
    // As many columns as the widest entries allow: every row then fits, whichever entries it holds.
    std::sort(widths.begin(), widths.end(), std::greater<>());
    int used = legend->margins().left() + legend->margins().right(), columns = 0;
    for (int w : widths) {
        const int next = used + w + (columns > 0 ? legend->columnSpacing() : 0);
        if (columns > 0 && next > width) break;
        used = next;
        ++columns;
    }
    if (legend->wrap() == columns) return false;
    legend->setWrap(columns);
    legend->setFillOrder(QCPLegend::foColumnsFirst, true);
    return true;
}

QStringList clippedTexts(QCustomPlot *plot)
{
    QStringList out;
    const auto tooLong = [](const QString &text, const QFont &font, int room) {
        const QFontMetrics fm(font);
        for (const QString &line : text.split(QLatin1Char('\n')))
            if (fm.horizontalAdvance(line) > room) return true;
        return false;
    };
    for (QCPLayoutElement *e : plot->plotLayout()->elements(true)) {
        if (auto *l = qobject_cast<QCPLegend *>(e)) {
            if (!l->visible() || l->outerRect().width() <= 0) continue;
            if (l->minimumOuterSizeHint().width() > l->outerRect().width() + 1)
                for (int i = 0; i < l->itemCount(); ++i)
                    if (auto *item = qobject_cast<QCPPlottableLegendItem *>(l->item(i))) out << item->plottable()->name();
        } else if (auto *t = qobject_cast<QCPTextElement *>(e)) {
            // Its own cell of the layout, which may be narrower than the plot.
            if (!t->text().isEmpty() && tooLong(t->text(), t->font(), t->outerRect().width())) out << t->text();
        } else if (auto *r = qobject_cast<QCPAxisRect *>(e)) {
            for (QCPAxis *axis : r->axes()) {
                if (!axis->visible() || axis->label().isEmpty()) continue;
                const int room = axis->orientation() == Qt::Horizontal ? r->width() : r->height();
                if (tooLong(axis->label(), axis->labelFont(), room)) out << axis->label();
            }
        } else if (auto *s = qobject_cast<QCPColorScale *>(e)) {
            QCPAxis *axis = s->axis();
            if (!axis->label().isEmpty() && tooLong(axis->label(), axis->labelFont(), s->rect().height()))
                out << axis->label();
        }
    }
    return out;
}

void applyAxesPalette(QCustomPlot *p, const QPalette &pal, const QFont &font)
{
    const QColor fg = pal.color(QPalette::WindowText);
    p->setBackground(pal.brush(QPalette::Window));
    p->axisRect()->setBackground(pal.brush(QPalette::Base));
    const QColor grid = isDark(pal) ? QColor(255, 255, 255, 40) : QColor(0, 0, 0, 30);
    for (QCPAxis *axis : {p->xAxis, p->yAxis}) {
        axis->setBasePen(QPen(fg, 1));
        axis->setTickPen(QPen(fg, 1));
        axis->setSubTickPen(QPen(fg, 1));
        axis->setTickLabelColor(fg);
        axis->setLabelColor(fg);
        axis->setTickLabelFont(font);
        QFont lf = font;
        lf.setItalic(true);
        axis->setLabelFont(lf);
        axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
    }
}

} // namespace attnui::plottext
