// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/equivariance/equivariancefigure.h"
#include "kit/fontscale.h"

#include "plots/heatmapplot.h"
#include "kit/numbering.h"

#include <QBoxLayout>
#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace attnui {

namespace {

QLabel *bigLabel()
{
    auto *label = new QLabel;
    setRelativeFont(label, 1.6, true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

// A symmetric colour range that never collapses to zero width.
double symmetricRange(double m) { return m > 0.0 ? m : 1e-12; }

QStringList indexLabels(int n)
{
    QStringList out;
    for (int i = 0; i < n; ++i) out << QString::number(i);
    return out;
}

constexpr int kHeadlineGap = 24;   // px between the two headlines side by side

} // namespace

EquivarianceFigure::EquivarianceFigure(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_errors = new QBoxLayout(QBoxLayout::LeftToRight);
    m_errors->setSpacing(kHeadlineGap);
    m_errA = bigLabel();
    m_errY = bigLabel();
    // Their width does not set the figure's: where both do not fit side by side they go one under the other.
    m_errA->setMinimumWidth(1);
    m_errY->setMinimumWidth(1);
    // Each at its own width (an equal share could cut the longer one), the rest of the row empty.
    m_errors->addWidget(m_errA);
    m_errors->addWidget(m_errY);
    m_errors->addStretch(1);
    layout->addLayout(m_errors);
    m_reason = new QLabel;
    m_reason->setWordWrap(true);
    m_reason->setTextFormat(Qt::RichText);
    layout->addWidget(m_reason);

    auto *grid = new QGridLayout;
    grid->setSpacing(4);
    const auto make = [this] { auto *p = new HeatmapPlot(this); p->setMinimumSize(260, 220); return p; };
    m_aPX = make();
    m_aX = make();
    m_aDiff = make();
    m_yPX = make();
    m_yX = make();
    m_yDiff = make();
    grid->addWidget(m_aPX, 0, 0);
    grid->addWidget(m_aX, 0, 1);
    grid->addWidget(m_aDiff, 0, 2);
    grid->addWidget(m_yPX, 1, 0);
    grid->addWidget(m_yX, 1, 1);
    grid->addWidget(m_yDiff, 1, 2);
    for (HeatmapPlot *p : {m_aPX, m_aX}) {
        p->setValueLabel(tr("attention weight"));
        p->setAxisTitles(tr("query (permuted order)"), tr("key (permuted order)"));
    }
    m_aDiff->setColorMap(ColorMap::Diverging);
    m_aDiff->setAxisTitles(tr("query (permuted order)"), tr("key (permuted order)"));
    for (HeatmapPlot *p : {m_yPX, m_yX, m_yDiff}) {
        p->setColorMap(ColorMap::Diverging);
        p->setAxisTitles(tr("token (permuted order)"), tr("hidden dimension"));
    }
    m_aPX->setTitle(tr("A(PX): attention of the permuted input"));
    m_aX->setTitle(tr("P·A(X)·Pᵀ: attention of the input, permuted"));
    m_aDiff->setTitle(tr("A(PX) − P·A(X)·Pᵀ"));
    m_yPX->setTitle(tr("Y(PX): final hidden states of the permuted input"));
    m_yX->setTitle(tr("P·Y(X): final hidden states, rows permuted"));
    m_yDiff->setTitle(tr("Y(PX) − P·Y(X)"));
    grid->setRowStretch(0, 1);
    grid->setRowStretch(1, 1);
    layout->addLayout(grid, 1);
}

QString EquivarianceFigure::formatError(double err)
{
    if (!std::isfinite(err)) return QStringLiteral("—");
    if (err == 0.0) return QStringLiteral("0");
    return QString::number(err, 'e', 1);
}

void EquivarianceFigure::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    arrangeHeadlines();
}

void EquivarianceFigure::arrangeHeadlines()
{
    const int need = m_errA->sizeHint().width() + kHeadlineGap + m_errY->sizeHint().width();
    const auto direction = need <= width() ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
    if (m_errors->direction() == direction) return;
    m_errors->setDirection(direction);
    m_errors->setSpacing(direction == QBoxLayout::LeftToRight ? kHeadlineGap : 0);
}

QSize EquivarianceFigure::figureSize() const
{
    QSize top(0, 0), bottom(0, 0);
    for (const HeatmapPlot *p : {m_aPX, m_aX, m_aDiff}) {
        const QSize s = p->figureSize(24, 300);
        top = QSize(top.width() + s.width(), std::max(top.height(), s.height()));
    }
    for (const HeatmapPlot *p : {m_yPX, m_yX, m_yDiff}) {
        const QSize s = p->figureSize(24, 300);
        bottom = QSize(bottom.width() + s.width(), std::max(bottom.height(), s.height()));
    }
    const int width = std::max(top.width(), bottom.width()) + 24;
    const int headline = std::max(m_errA->sizeHint().height(), m_errY->sizeHint().height()) +
                         (m_errA->sizeHint().width() + m_errY->sizeHint().width() + kHeadlineGap > width
                              ? m_errY->sizeHint().height() : 0);
    const int reason = m_reason->isVisibleTo(this) ? m_reason->heightForWidth(width) + 6 : 0;
    return QSize(width, headline + reason + top.height() + bottom.height() + 24);
}

QString EquivarianceFigure::weightsErrorText() const { return m_errA->text(); }
QString EquivarianceFigure::outputsErrorText() const { return m_errY->text(); }
QString EquivarianceFigure::reasonText() const { return m_reason->text(); }

void EquivarianceFigure::setColorMap(ColorMap map)
{
    m_aPX->setColorMap(map);
    m_aX->setColorMap(map);
}

void EquivarianceFigure::setSnapshot(const std::shared_ptr<const EquivarianceSnapshot> &s, const QString &reason,
                                     const ShowMatrix &show)
{
    if (!s) return;
    const attn::EquivarianceResult &r = s->result;
    const QString head = headName(int(s->focus.layer), int(s->focus.head));
    // The scope's numbers (the engine's) in large text; the head on screen in the titles.
    m_errA->setText(tr("weights: max |A(PX) − P·A(X)·Pᵀ| = %1").arg(formatError(r.maxAbsErrWeights)));
    m_errA->setToolTip(tr("Largest absolute difference of attention weights (probabilities) over the %1 head(s) in "
                          "scope; %2 on screen: %3")
                           .arg(r.heads.size()).arg(head, formatError(s->focusErrWeights)));
    m_errY->setText(tr("outputs: max |Y(PX) − P·Y(X)| = %1").arg(formatError(r.maxAbsErrOutputs)));
    m_errY->setToolTip(tr("Largest absolute difference of the final hidden states (model units)"));
    arrangeHeadlines();   // the numbers' width changed
    const bool holds = r.expectedEquivariant;
    const QString colour = holds ? QStringLiteral("#2e7d32") : QStringLiteral("#c62828");
    m_reason->setText(QStringLiteral("<b style='color:%1'>%2</b> %3")
                          .arg(colour, holds ? tr("Equivariant.") : tr("Not equivariant."), reason.toHtmlEscaped()));

    // The matrices are built where they are prepared (showMatrix), from the snapshot; their colour ranges were
    // found by the job, so nothing here is proportional to the input's size.
    const int L = s->length, D = s->dModel;
    const std::size_t weightCells = std::size_t(L) * std::size_t(L), outputCells = std::size_t(L) * std::size_t(D);
    using Weights = std::vector<float> EquivarianceSnapshot::*;
    using Masks = std::vector<std::uint8_t> EquivarianceSnapshot::*;
    const auto weights = [&](HeatmapPlot *plot, Weights values, Masks masked) {
        show(plot, weightCells, [s, values, masked] {
            HeatmapData d;
            d.rows = d.cols = s->length;
            d.values = (*s).*values;
            d.masked = (*s).*masked;
            d.rowLabels = d.colLabels = s->permutedLabels;
            return d;
        });
    };
    // One colour scale for both maps, up to their largest weight, so that flat heads still show their structure.
    const double topA = std::max(s->weightsTop, 1e-6);
    m_aPX->setValueRange(0.0, topA);
    m_aX->setValueRange(0.0, topA);
    weights(m_aPX, &EquivarianceSnapshot::weightsPX, &EquivarianceSnapshot::maskedPX);
    weights(m_aX, &EquivarianceSnapshot::weightsXPermuted, &EquivarianceSnapshot::maskedXPermuted);
    m_aPX->setTitle(tr("A(PX): %1 on the permuted input").arg(head));
    m_aX->setTitle(tr("P·A(X)·Pᵀ: %1 on the input, permuted").arg(head));

    const auto difference = [](const std::vector<float> &a, const std::vector<float> &b) {
        std::vector<float> d(a.size());
        for (std::size_t k = 0; k < d.size(); ++k) d[k] = a[k] - b[k];
        return d;
    };
    // The scale spans at least the round-off level, and says so when that is what sets it.
    const auto diffLabel = [](double range, bool floored) {
        return floored ? tr("difference (±%1, round-off level)").arg(formatError(range))
                       : tr("difference (±%1)").arg(formatError(range));
    };
    const double rangeA = std::max(symmetricRange(s->focusErrWeights), kRoundOff);
    m_aDiff->setValueRange(-rangeA, rangeA);
    m_aDiff->setValueLabel(diffLabel(rangeA, s->focusErrWeights < kRoundOff));
    m_aDiff->setNoiseFloor(kRoundOff);   // round-off is no difference: drawn as 0, its number still in the cell
    show(m_aDiff, weightCells, [s, difference] {
        HeatmapData d;
        d.rows = d.cols = s->length;
        d.values = difference(s->weightsPX, s->weightsXPermuted);
        d.rowLabels = d.colLabels = s->permutedLabels;
        return d;
    });
    m_aDiff->setTitle(tr("A(PX) − P·A(X)·Pᵀ  (max %1)").arg(formatError(s->focusErrWeights)));

    const double rangeY = symmetricRange(s->outputsTop);
    const auto outputs = [&](HeatmapPlot *plot, Weights values) {
        plot->setValueRange(-rangeY, rangeY);
        plot->setValueLabel(tr("hidden state value"));
        show(plot, outputCells, [s, values] {
            HeatmapData d;
            d.rows = s->length;
            d.cols = s->dModel;
            d.values = (*s).*values;
            d.rowLabels = s->permutedLabels;
            d.colLabels = indexLabels(s->dModel);
            return d;
        });
    };
    outputs(m_yPX, &EquivarianceSnapshot::outputsPX);
    outputs(m_yX, &EquivarianceSnapshot::outputsXPermuted);

    const double outputsRoundOff = kRoundOff * std::max(1.0, s->outputsTop);
    const double rangeDY = std::max(symmetricRange(s->focusErrOutputs), outputsRoundOff);
    m_yDiff->setValueRange(-rangeDY, rangeDY);
    m_yDiff->setValueLabel(diffLabel(rangeDY, s->focusErrOutputs < outputsRoundOff));
    m_yDiff->setNoiseFloor(outputsRoundOff);
    show(m_yDiff, outputCells, [s, difference] {
        HeatmapData d;
        d.rows = s->length;
        d.cols = s->dModel;
        d.values = difference(s->outputsPX, s->outputsXPermuted);
        d.rowLabels = s->permutedLabels;
        d.colLabels = indexLabels(s->dModel);
        return d;
    });
    m_yDiff->setTitle(tr("Y(PX) − P·Y(X)  (max %1)").arg(formatError(s->focusErrOutputs)));
    for (HeatmapPlot *p : {m_yPX, m_yX, m_yDiff}) {
        p->setHoverFormatter([p](HeatmapCell c) {
            const HeatmapData &d = p->data();
            return QObject::tr("token “%1” (row %2), dimension %3: %4")
                .arg(d.rowLabels.value(c.row)).arg(c.row).arg(c.col)
                .arg(QString::number(double(d.values[std::size_t(c.row * d.cols + c.col)]), 'g', 5));
        });
    }
    m_aDiff->setHoverFormatter([this](HeatmapCell c) {
        const HeatmapData &d = m_aDiff->data();
        return QObject::tr("query “%1”, key “%2”: difference %3")
            .arg(d.rowLabels.value(c.row), d.colLabels.value(c.col))
            .arg(QString::number(double(d.values[std::size_t(c.row * d.cols + c.col)]), 'e', 2));
    });
}

} // namespace attnui
