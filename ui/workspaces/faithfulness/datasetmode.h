// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Faithfulness ▸ Dataset: the whole faithfulness suite over an evaluation set (a JSONL or CSV/TSV file, or the
// model folder's bundled rationale set), run in the background on its own EngineRunner (so an edit in the
// single-example view never cancels it) with progress, an ETA and Cancel (the examples finished by then are
// kept and summarized). It shows, for a chosen metric, a box plot per method with the random baseline beside
// it, the summary (mean with its bootstrap interval, Wilcoxon against random, Holm, rank-biserial) and the
// per-example table (sortable; double-click or Enter opens the example in the single-example view).
// The suite's settings are the single-example view's; the run is the engine's (datasetrun.h), the same as
// `attnscope-cli faithfulness --dataset`.

#include "workspaces/faithfulness/datasetmodels.h"
#include "workspaces/faithfulness/datasetrun.h"

#include <QObject>
#include <QPointer>

#include <functional>
#include <memory>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;
class QWidget;

namespace attnui {

class BoxPlot;
class DatasetControls;
class Subject;

class DatasetMode : public QObject {
    Q_OBJECT
public:
    // `settings`: the suite as the single-example view has it set up (run seed, target, tests, head).
    DatasetMode(Subject *subject, std::function<attn::DatasetSettings()> settings, QObject *parent = nullptr);
    ~DatasetMode() override;

    QWidget *controls() const;        // the Dataset group of the controls column
    QWidget *view() const;            // the right-hand side: figure and the per-example table
    QWidget *figure() const;          // what Export Figure writes: metric, box plot, summary; null before a result

    DatasetControls *datasetControls() const { return m_controls; }
    EngineRunner *runner() const;
    std::shared_ptr<const DatasetSnapshot> snapshot() const;
    DatasetExampleModel *exampleModel() const { return m_examples; }
    DatasetSummaryModel *summaryModel() const { return m_summary; }
    QSortFilterProxyModel *exampleProxy() const { return m_proxy; }
    QTableView *exampleTable() const { return m_exampleTable; }
    BoxPlot *boxPlot() const { return m_box; }

    void setMetric(const std::string &metric);
    std::string metric() const;

    QString caption() const;

    QStringList dataFormats() const;
    bool exportData(const QString &path, QString *error) const;

signals:
    // Double-click or Enter on an example: its text and its gold rationale tokens (may be empty).
    void exampleRequested(const QString &text, const QList<qint64> &gold);
    void figureChanged();
    void resultShown();

private:
    void buildView();
    void refresh();
    void openExampleAt(const QModelIndex &proxyIndex);

    Subject *m_subject = nullptr;
    DatasetControls *m_controls = nullptr;   // owns the runner and the latest result
    DatasetExampleModel *m_examples = nullptr;
    DatasetSummaryModel *m_summary = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;

    QPointer<QWidget> m_view;
    QWidget *m_figure = nullptr;
    QComboBox *m_metric = nullptr;
    QLabel *m_metricNote = nullptr;
    BoxPlot *m_box = nullptr;
    QTableView *m_summaryTable = nullptr;
    QTableView *m_exampleTable = nullptr;
    std::string m_wantedMetric = "aopc_comprehensiveness";
};

} // namespace attnui
