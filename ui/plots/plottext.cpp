// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/plottext.h"

#include "plots/heatmapitems.h"

#include <qcustomplot.h>

#include <QFontMetrics>

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
        if (auto *t = qobject_cast<QCPTextElement *>(e)) {
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
