// SPDX-License-Identifier: GPL-3.0-or-later
#include "kit/matrixpanel.h"
#include "kit/fontscale.h"

#include "plots/heatmapplot.h"

#include <QAbstractTableModel>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace attnui {

namespace {

QString formatValue(double v, MatrixSpec::Kind kind)
{
    if (std::isinf(v)) return v < 0 ? QStringLiteral("−∞") : QStringLiteral("∞");
    if (kind == MatrixSpec::Kind::Weights) return QString::number(v, 'f', 3);
    const double a = std::abs(v);
    QString s = QString::number(v, 'f', a >= 100 ? 0 : a >= 10 ? 1 : 2);
    return s.replace(QLatin1Char('-'), QChar(0x2212));   // a real minus sign lines up with the digits
}

// The colour-scale range of a matrix: [0, weightsMax] for weights, symmetric around 0 for signed values.
std::pair<double, double> valueRange(const MatrixSpec &s)
{
    if (s.kind == MatrixSpec::Kind::Weights) return {0.0, s.weightsMax};
    double a = 0.0;
    if (s.values)
        for (double v : *s.values)
            if (std::isfinite(v)) a = std::max(a, std::abs(v));
    if (a == 0.0) a = 1.0;
    return {-a, a};
}

} // namespace

// The table's model: the first kMaxTableCols columns of the matrix, coloured as the heatmap would be.
class MatrixTableModel : public QAbstractTableModel {
public:
    using QAbstractTableModel::QAbstractTableModel;

    void setMatrix(const MatrixSpec *spec, ColorMap map)
    {
        beginResetModel();
        m_spec = spec;
        m_map = map;
        m_range = spec ? valueRange(*spec) : std::pair<double, double>{0.0, 1.0};
        endResetModel();
    }
    int rowCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() || !m_spec || !m_spec->values ? 0 : m_spec->rows;
    }
    int columnCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() || !m_spec ? 0 : std::min(m_spec->cols, MatrixPanel::kMaxTableCols);
    }
    QVariant data(const QModelIndex &index, int role) const override
    {
        if (!m_spec || !index.isValid()) return {};
        const double v = (*m_spec->values)[std::size_t(index.row()) * std::size_t(m_spec->cols) + std::size_t(index.column())];
        switch (role) {
        case Qt::DisplayRole: return formatValue(v, m_spec->kind);
        case Qt::ToolTipRole:
            return QStringLiteral("%1 [%2, %3] = %4")
                .arg(m_spec->valueName, m_spec->rowLabels.value(index.row()), m_spec->colLabels.value(index.column()),
                     std::isfinite(v) ? QString::number(v, 'g', 8) : formatValue(v, m_spec->kind));
        case Qt::TextAlignmentRole: return int(Qt::AlignRight | Qt::AlignVCenter);
        case Qt::BackgroundRole: return background(v, index);
        case Qt::ForegroundRole: {
            const QColor bg = background(v, index);
            // Perceived luminance (Rec. 601), not HSL lightness: viridis' yellow-greens need dark text.
            const double luma = 0.299 * bg.redF() + 0.587 * bg.greenF() + 0.114 * bg.blueF();
            return QColor(luma > 0.5 ? Qt::black : Qt::white);
        }
        default: return {};
        }
    }
    QVariant headerData(int section, Qt::Orientation o, int role) const override
    {
        if (!m_spec || role != Qt::DisplayRole) return {};
        return o == Qt::Vertical ? m_spec->rowLabels.value(section) : m_spec->colLabels.value(section);
    }

private:
    QColor background(double v, const QModelIndex &index) const
    {
        const std::size_t i = std::size_t(index.row()) * std::size_t(m_spec->cols) + std::size_t(index.column());
        if (!std::isfinite(v) || (m_spec->maskedWhere && std::isinf((*m_spec->maskedWhere)[i]))) return maskedColor(false);
        const auto [lo, hi] = m_range;
        const ColorMap map = m_spec->kind == MatrixSpec::Kind::Weights ? m_map : ColorMap::Diverging;
        return colorAt(map, (v - lo) / (hi - lo));
    }

    const MatrixSpec *m_spec = nullptr;
    ColorMap m_map = ColorMap::Viridis;
    std::pair<double, double> m_range{0.0, 1.0};
};

MatrixPanel::MatrixPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_title = new QLabel;
    m_title->setTextFormat(Qt::PlainText);
    setRelativeFont(m_title, 1.0, true);
    layout->addWidget(m_title);
    m_table = new QTableView;
    m_model = new MatrixTableModel(this);
    m_table->setModel(m_model);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setShowGrid(true);
    m_table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_table->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);   // the content size; the view scrolls
    m_table->setStyleSheet(QStringLiteral("QTableView::item { padding: 0px 1px; }"));
    setRelativeFont(m_table, 0.9);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setMinimumSectionSize(20);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_plot = new HeatmapPlot;
    m_plot->hide();
    // A table keeps its natural height (the stretch below takes the rest); a heatmap takes all the room.
    layout->addWidget(m_table, 0);
    layout->addWidget(m_plot, 1);
    m_note = new QLabel;
    m_note->setForegroundRole(QPalette::PlaceholderText);
    m_note->hide();
    layout->addWidget(m_note);
    layout->addStretch(1);
}

MatrixPanel::~MatrixPanel()
{
    m_model->setMatrix(nullptr, m_colorMap);   // the model points into m_spec
}

std::function<HeatmapData()> MatrixPanel::setMatrix(MatrixSpec spec)
{
    m_model->setMatrix(nullptr, m_colorMap);
    m_spec = std::move(spec);
    if (!m_spec.values || m_spec.values->size() != std::size_t(m_spec.rows) * std::size_t(m_spec.cols)) {
        m_spec.rows = m_spec.cols = 0;   // nothing (or a malformed matrix): an empty table
        m_spec.values = std::make_shared<const std::vector<double>>();
    }
    m_title->setText(m_spec.title);
    const bool table = !m_spec.asHeatmap && m_spec.rows <= kMaxTableRows;
    if (table) {
        m_model->setMatrix(&m_spec, m_colorMap);
        m_plot->hide();
        m_table->show();
        static_cast<QBoxLayout *>(layout())->setStretch(4, 1);
        const int hidden = m_spec.cols - kMaxTableCols;
        m_note->setText(hidden > 0 ? tr("… and %n more column(s) not shown", nullptr, hidden) : QString());
        m_note->setVisible(hidden > 0);
        return {};
    }
    m_note->hide();
    m_plot->setColorMap(m_spec.kind == MatrixSpec::Kind::Weights ? m_colorMap : ColorMap::Diverging);
    m_plot->setValueLabel(m_spec.valueName);
    m_plot->setAxisTitles(m_spec.rowTitle, m_spec.colTitle);
    m_plot->setHoverFormatter([this](HeatmapCell c) {
        const double v = (*m_spec.values)[std::size_t(c.row) * std::size_t(m_spec.cols) + std::size_t(c.col)];
        return QStringLiteral("%1 [%2, %3] = %4")
            .arg(m_spec.valueName, m_spec.rowLabels.value(c.row), m_spec.colLabels.value(c.col),
                 std::isfinite(v) ? QString::number(v, 'g', 6) : formatValue(v, m_spec.kind));
    });
    m_table->hide();
    m_plot->show();
    static_cast<QBoxLayout *>(layout())->setStretch(4, 0);
    // Everything proportional to the matrix (conversion, masks, the colour range) happens in the builder.
    return [spec = m_spec] {
        HeatmapData d;
        d.rows = spec.rows;
        d.cols = spec.cols;
        const std::vector<double> &values = *spec.values;
        d.values.resize(values.size());
        bool anyMasked = false;
        std::vector<std::uint8_t> masked(values.size(), 0);
        for (std::size_t i = 0; i < values.size(); ++i) {
            const double v = values[i];
            d.values[i] = std::isfinite(v) ? float(v) : 0.0f;
            if (!std::isfinite(v) || (spec.maskedWhere && std::isinf((*spec.maskedWhere)[i]))) masked[i] = 1, anyMasked = true;
        }
        if (anyMasked) d.masked = std::move(masked);
        d.rowLabels = spec.rowLabels;
        d.colLabels = spec.colLabels;
        d.valueRange = valueRange(spec);
        return d;
    };
}

void MatrixPanel::setColorMap(ColorMap map)
{
    m_colorMap = map;
    if (m_spec.rows == 0) return;
    if (showsTable()) m_model->setMatrix(&m_spec, map);
    else if (m_spec.kind == MatrixSpec::Kind::Weights) m_plot->setColorMap(map);
}

bool MatrixPanel::showsTable() const
{
    return !m_table->isHidden();
}

QString MatrixPanel::cellText(int row, int col) const
{
    if (!showsTable() || row < 0 || row >= m_spec.rows || col < 0 || col >= std::min(m_spec.cols, kMaxTableCols))
        return {};
    return m_model->data(m_model->index(row, col), Qt::DisplayRole).toString();
}

} // namespace attnui
