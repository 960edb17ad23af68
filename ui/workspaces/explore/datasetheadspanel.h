// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Explore ▸ Heads over a dataset: the head statistics of the Head statistics tab (entropy, attention sink,
// previous-token, duplicate-token, induction, …) over a whole set of texts rather than one — which heads are
// previous-token, induction or sink heads across the set. The engine's `run` dataset analysis (the same as
// `attnscope-cli run --dataset`) on its own runner, then a layer × head map of one statistic's mean over the
// examples, each head's bootstrap 95 % interval on hover and the heads with the highest means listed with theirs.

#include "plots/colormaps.h"
#include "workspaces/faithfulness/datasetrun.h"

#include <QWidget>

class QComboBox;
class QLabel;

namespace attnui {

class DatasetControls;
class HeatmapPlot;
class Subject;

class DatasetHeadsPanel : public QWidget {
    Q_OBJECT
public:
    explicit DatasetHeadsPanel(Subject *subject, QWidget *parent = nullptr);

    DatasetControls *datasetControls() const { return m_controls; }
    HeatmapPlot *plot() const { return m_plot; }
    void setStatistic(const std::string &metric);   // "previous_token", "induction", "first_token", ...
    std::string statistic() const;
    // The summary line of head `layer`, `head` for the shown statistic; null before a result.
    const SummaryStat *headStat(int layer, int head) const;
    QSize figureSize() const;   // the top heads beside the map; the dataset's controls are left out
    QString topHeadsText() const;
    void setColorMap(ColorMap map);

signals:
    void headActivated(int layer, int head);

private:
    void refresh();

    Subject *m_subject = nullptr;
    DatasetControls *m_controls = nullptr;
    QComboBox *m_statistic = nullptr;
    HeatmapPlot *m_plot = nullptr;
    QLabel *m_top = nullptr;
    int m_layers = 0, m_heads = 0;
    std::vector<const SummaryStat *> m_cells;   // [layer·heads + head] into the snapshot's summary
};

} // namespace attnui
