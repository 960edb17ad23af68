// SPDX-License-Identifier: GPL-3.0-or-later
// HeatmapPlot, reading the matrix back: the cell under the mouse, its value and hover text, the outline of a
// hovered (or linked) cell, the tick labels drawn, and the mouse events that drive them.

#include "plots/heatmapplot.h"
#include "plots/heatmapitems.h"

#include <QMouseEvent>
#include <QToolTip>

#include <cmath>
#include <limits>

namespace attnui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

} // namespace

std::optional<HeatmapCell> HeatmapPlot::cellAt(QPointF pos) const
{
    if (m_data->rows <= 0 || m_data->cols <= 0) return std::nullopt;
    const QPointF local = d->plot->mapFrom(this, pos);
    if (!d->plot->axisRect()->rect().contains(local.toPoint())) return std::nullopt;
    // Cell i spans [i - 0.5, i + 0.5) on each axis.
    const double kx = d->plot->xAxis->pixelToCoord(local.x());
    const double vy = d->plot->yAxis->pixelToCoord(local.y());
    const int col = int(std::floor(kx + 0.5)), row = int(std::floor(vy + 0.5));
    if (col < 0 || col >= m_data->cols || row < 0 || row >= m_data->rows) return std::nullopt;
    return HeatmapCell{row, col};
}

QPointF HeatmapPlot::cellCenter(int row, int col) const
{
    const QPointF local(d->plot->xAxis->coordToPixel(col), d->plot->yAxis->coordToPixel(row));
    return d->plot->mapTo(this, local);
}

QRect HeatmapPlot::plotArea() const
{
    const QRect r = d->plot->axisRect()->rect();
    return QRect(d->plot->mapTo(this, r.topLeft()), r.size());
}

double HeatmapPlot::cellValue(int row, int col) const
{
    if (row < 0 || row >= m_data->rows || col < 0 || col >= m_data->cols) return kNaN;
    const std::size_t ij = std::size_t(row) * std::size_t(m_data->cols) + std::size_t(col);
    if (ij >= m_data->values.size() || (m_data->masked.size() == m_data->values.size() && m_data->masked[ij])) return kNaN;
    return m_data->values[ij];
}

QStringList HeatmapPlot::rowTickLabels() const
{
    return d->rowTicker->ticks().values();
}

QStringList HeatmapPlot::colTickLabels() const
{
    return d->colTicker->ticks().values();
}

void HeatmapPlot::setHoverFormatter(std::function<QString(HeatmapCell)> formatter)
{
    m_hoverFormatter = std::move(formatter);
}

QString HeatmapPlot::hoverText(HeatmapCell cell) const
{
    if (cell.row < 0 || cell.row >= m_data->rows || cell.col < 0 || cell.col >= m_data->cols) return {};
    if (m_hoverFormatter) return m_hoverFormatter(cell);
    const std::size_t ij = std::size_t(cell.row) * std::size_t(m_data->cols) + std::size_t(cell.col);
    const QString q = cell.row < m_data->rowLabels.size() ? m_data->rowLabels[cell.row] : QString();
    const QString k = cell.col < m_data->colLabels.size() ? m_data->colLabels[cell.col] : QString();
    QString text = tr("query %1 “%2” → key %3 “%4”").arg(cell.row).arg(q).arg(cell.col).arg(k);
    const bool masked = m_data->masked.size() == m_data->values.size() && m_data->masked[ij];
    if (masked) return text + QLatin1Char('\n') + tr("masked: weight 0, score −∞");
    text += QLatin1Char('\n') + tr("weight %1").arg(double(m_data->values[ij]), 0, 'f', 4);
    if (m_data->scores.size() == m_data->values.size())
        text += tr("   score %1").arg(double(m_data->scores[ij]), 0, 'f', 3);
    return text;
}

void HeatmapPlot::highlightCell(std::optional<HeatmapCell> cell)
{
    if (cell && (cell->row < 0 || cell->row >= m_data->rows || cell->col < 0 || cell->col >= m_data->cols)) cell.reset();
    if (cell) {
        d->hoverRect->topLeft->setCoords(cell->col - 0.5, cell->row - 0.5);
        d->hoverRect->bottomRight->setCoords(cell->col + 0.5, cell->row + 0.5);
    }
    d->hoverRect->setVisible(cell.has_value());
    d->plot->layer(QStringLiteral("hover"))->replot();
}

std::optional<HeatmapCell> HeatmapPlot::highlightedCell() const
{
    if (!d->hoverRect->visible()) return std::nullopt;
    return HeatmapCell{int(std::lround(d->hoverRect->topLeft->coords().y() + 0.5)),
                       int(std::lround(d->hoverRect->topLeft->coords().x() + 0.5))};
}

void HeatmapPlot::setHover(std::optional<HeatmapCell> cell, QPoint globalPos)
{
    if (cell == d->hover) return;
    d->hover = cell;
    if (cell) {
        d->hoverRect->topLeft->setCoords(cell->col - 0.5, cell->row - 0.5);
        d->hoverRect->bottomRight->setCoords(cell->col + 0.5, cell->row + 0.5);
        d->hoverRect->setVisible(true);
        QToolTip::showText(globalPos, hoverText(*cell), d->plot);
        emit cellHovered(cell->row, cell->col);
    } else {
        d->hoverRect->setVisible(false);
        QToolTip::hideText();
        emit hoverLeft();
    }
    d->plot->layer(QStringLiteral("hover"))->replot();
}

bool HeatmapPlot::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == d->plot) {
        switch (event->type()) {
        case QEvent::MouseMove: {
            auto *e = static_cast<QMouseEvent *>(event);
            if (!(e->buttons() & Qt::LeftButton))
                setHover(cellAt(d->plot->mapTo(this, e->position())), e->globalPosition().toPoint());
            break;
        }
        case QEvent::MouseButtonPress:
            d->pressPos = static_cast<QMouseEvent *>(event)->position().toPoint();
            break;
        case QEvent::MouseButtonRelease: {
            auto *e = static_cast<QMouseEvent *>(event);
            if (e->button() == Qt::LeftButton && (e->position().toPoint() - d->pressPos).manhattanLength() < 4)
                if (auto cell = cellAt(d->plot->mapTo(this, e->position()))) emit cellClicked(cell->row, cell->col);
            break;
        }
        case QEvent::Leave:
            setHover(std::nullopt, {});
            break;
        default:
            break;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace attnui
