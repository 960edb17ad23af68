// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/explore/datasetheadspanel.h"
#include "export/figureexport.h"

#include "kit/numbering.h"
#include "kit/subject.h"
#include "plots/heatmapplot.h"
#include "workspaces/faithfulness/datasetcontrols.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attnui {

namespace {

struct Statistic {
    const char *metric;
    const char *title;
};
constexpr Statistic kStatistics[] = {
    {"previous_token", "previous-token score"}, {"induction", "induction score"}, {"duplicate_token", "duplicate-token score"},
    {"first_token", "attention sink (weight on the first token)"}, {"self", "self-attention weight"},
    {"entropy", "entropy (nats)"}, {"mean_distance", "mean attention distance (positions)"}};

// "L1 H2" → (1, 2); false for any other method name.
bool parseHeadName(const std::string &name, int &layer, int &head)
{
    return std::sscanf(name.c_str(), "L%d H%d", &layer, &head) == 2;
}

} // namespace

DatasetHeadsPanel::DatasetHeadsPanel(Subject *subject, QWidget *parent) : QWidget(parent), m_subject(subject)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    auto *left = new QVBoxLayout;
    const auto settings = [] {
        attn::DatasetSettings s;
        s.analysis = attn::DatasetAnalysis::Run;
        s.version = ATTNSCOPE_VERSION;
        return s;
    };
    m_controls = new DatasetControls(subject, settings,
                                     {.resultsFile = true,
                                      .idleText = tr("Every head's statistics on every text of the set (the model's own "
                                                     "mask), as attnscope-cli run --dataset computes them.")});
    m_controls->setMaximumWidth(340);
    m_controls->setProperty(kExcludeFromFigure, true);   // figures show the result: the top heads and the map
    left->addWidget(m_controls);
    m_top = new QLabel;
    m_top->setWordWrap(true);
    m_top->setMaximumWidth(340);
    m_top->setTextInteractionFlags(Qt::TextSelectableByMouse);
    left->addWidget(m_top);
    left->addStretch(1);
    layout->addLayout(left);

    auto *right = new QVBoxLayout;
    auto *pick = new QHBoxLayout;
    auto *label = new QLabel(tr("&Mean over the examples of"));
    m_statistic = new QComboBox;
    for (const Statistic &s : kStatistics) m_statistic->addItem(tr(s.title), QString::fromLatin1(s.metric));
    label->setBuddy(m_statistic);
    pick->addWidget(label);
    pick->addWidget(m_statistic, 1);
    right->addLayout(pick);
    m_plot = new HeatmapPlot;
    m_plot->setAxisTitles(tr("layer"), tr("head"));
    m_plot->setHoverFormatter([this](HeatmapCell cell) {
        const SummaryStat *s = headStat(cell.row, cell.col);
        if (!s) return headName(cell.row, cell.col);
        return tr("%1 · %2\nmean %3, 95 % CI [%4, %5]\nmedian %6 · sd %7 · n = %8")
            .arg(headName(cell.row, cell.col), m_statistic->currentText())
            .arg(s->mean, 0, 'f', 3).arg(s->ciLo, 0, 'f', 3).arg(s->ciHi, 0, 'f', 3)
            .arg(s->median, 0, 'f', 3).arg(s->sd, 0, 'f', 3).arg(s->n);
    });
    right->addWidget(m_plot, 1);
    layout->addLayout(right, 1);

    connect(m_controls, &DatasetControls::resultReady, this, &DatasetHeadsPanel::refresh);
    connect(m_statistic, &QComboBox::currentIndexChanged, this, &DatasetHeadsPanel::refresh);
    connect(m_plot, &HeatmapPlot::cellClicked, this, [this](int row, int col) { emit headActivated(row, col); });
}

void DatasetHeadsPanel::setStatistic(const std::string &metric)
{
    const int i = m_statistic->findData(QString::fromStdString(metric));
    if (i >= 0) m_statistic->setCurrentIndex(i);
}

std::string DatasetHeadsPanel::statistic() const { return m_statistic->currentData().toString().toStdString(); }

const SummaryStat *DatasetHeadsPanel::headStat(int layer, int head) const
{
    if (layer < 0 || head < 0 || layer >= m_layers || head >= m_heads) return nullptr;
    return m_cells[std::size_t(layer * m_heads + head)];
}

QSize DatasetHeadsPanel::figureSize() const
{
    const QSize plot = m_plot->figureSize();
    const int top = m_top->text().isEmpty() ? 0 : m_top->heightForWidth(340);
    return QSize((top > 0 ? 340 + 12 : 0) + plot.width(), std::max(plot.height(), top) + 4);
}

QString DatasetHeadsPanel::topHeadsText() const { return m_top->text(); }
void DatasetHeadsPanel::setColorMap(ColorMap map) { m_plot->setColorMap(map); }

void DatasetHeadsPanel::refresh()
{
    const auto snap = m_controls->snapshot();
    m_cells.clear();
    m_layers = m_heads = 0;
    const SummaryMetric *metric = snap ? snap->metric(statistic()) : nullptr;
    if (!snap || !metric) {
        m_plot->clear();
        m_top->clear();
        return;
    }
    const attn::ModelConfig &c = snap->model->model().config();
    m_layers = int(c.layers);
    m_heads = int(c.heads);
    m_cells.assign(std::size_t(m_layers * m_heads), nullptr);
    for (const SummaryStat &s : metric->methods) {
        int layer = -1, head = -1;
        if (parseHeadName(s.method, layer, head) && layer >= 0 && head >= 0 && layer < m_layers && head < m_heads)
            m_cells[std::size_t(layer * m_heads + head)] = &s;
    }
    HeatmapData data;
    data.rows = m_layers;
    data.cols = m_heads;
    double lo = INFINITY, hi = -INFINITY;
    for (const SummaryStat *s : m_cells) {
        const bool ok = s && std::isfinite(s->mean);
        data.values.push_back(ok ? float(s->mean) : 0.0f);
        data.masked.push_back(ok ? 0 : 1);
        if (ok) lo = std::min(lo, s->mean), hi = std::max(hi, s->mean);
    }
    for (int l = 0; l < m_layers; ++l) data.rowLabels << tr("L%1").arg(l);
    for (int h = 0; h < m_heads; ++h) data.colLabels << tr("H%1").arg(h);
    m_plot->setData(std::move(data));
    // Scores in [0, 1] keep that scale (comparable across models); entropy and distance use their own range.
    const bool unit = lo >= 0.0 && hi <= 1.0;
    m_plot->setValueRange(unit ? 0.0 : std::min(lo, hi), unit ? 1.0 : std::max(hi, lo + 1e-9));
    m_plot->setValueLabel(tr("mean %1").arg(m_statistic->currentText()));
    m_plot->setTitle(tr("%1 over %2 examples").arg(m_statistic->currentText()).arg(snap->records.size()));

    std::vector<const SummaryStat *> ranked;
    for (const SummaryStat *s : m_cells)
        if (s && std::isfinite(s->mean)) ranked.push_back(s);
    std::stable_sort(ranked.begin(), ranked.end(), [](const SummaryStat *a, const SummaryStat *b) { return a->mean > b->mean; });
    QStringList lines;
    for (std::size_t i = 0; i < std::min<std::size_t>(5, ranked.size()); ++i)
        lines << tr("%1: %2 [%3, %4]").arg(QString::fromStdString(ranked[i]->method)).arg(ranked[i]->mean, 0, 'f', 3)
                     .arg(ranked[i]->ciLo, 0, 'f', 3).arg(ranked[i]->ciHi, 0, 'f', 3);
    m_top->setText(tr("<b>Highest means</b> (95 % bootstrap CI):<br>%1").arg(lines.join(QStringLiteral("<br>"))));
}

} // namespace attnui
