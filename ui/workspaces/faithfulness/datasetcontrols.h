// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The controls of a dataset run, shared by Faithfulness ▸ Dataset and Explore's head statistics over a dataset:
// where the examples come from (the model folder's bundled rationale set, or a JSONL / CSV / TSV file with a
// column mapping), how many to run, an optional results file (written as each example finishes, resumable, in
// attnscope-cli's format), Run and Cancel, the progress bar and a status line with the examples done and the ETA.
// It owns the EngineRunner the run goes through (runDatasetJob, datasetrun.h) — its own, so that a run in the
// workspace's single-text views never cancels it.

#include "workspaces/faithfulness/datasetrun.h"

#include <QGroupBox>

#include <functional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace attnui {

class Subject;

class DatasetControls : public QGroupBox {
    Q_OBJECT
public:
    struct Options {
        bool resultsFile = true;   // offer a results file and Resume
        QString idleText;          // the status line before the first run
    };
    // `settings`: the analysis as the workspace has it set up, asked for at each Run.
    DatasetControls(Subject *subject, std::function<attn::DatasetSettings()> settings, Options options, QWidget *parent = nullptr);
    ~DatasetControls() override;

    EngineRunner *runner() const { return m_runner; }
    std::shared_ptr<const DatasetSnapshot> snapshot() const { return m_snapshot; }

    void setDataset(const QString &spec);   // "sample" (the bundled rationale set) or a file
    QString dataset() const;
    void setColumns(const QString &mapping);
    void setLimit(int firstN);              // 0: every example
    void setResultsFile(const QString &path, bool resume);
    void run();                             // starts (a running one is replaced)
    void cancel();
    QString statusText() const;
    void onModelChanged();                  // the bundled set follows the Subject's model (connected)

signals:
    void resultReady();                     // snapshot() holds a new result

private:
    void browse();
    void updateColumns();                   // the column mapping only for CSV/TSV

    Subject *m_subject = nullptr;
    std::function<attn::DatasetSettings()> m_settings;
    EngineRunner *m_runner = nullptr;
    std::shared_ptr<const DatasetSnapshot> m_snapshot;
    QComboBox *m_source = nullptr;
    QLineEdit *m_columns = nullptr;
    QLabel *m_columnsLabel = nullptr;
    QSpinBox *m_limit = nullptr;
    QLineEdit *m_resultsFile = nullptr;
    QCheckBox *m_resume = nullptr;
    QPushButton *m_run = nullptr;
    QPushButton *m_cancel = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_status = nullptr;
};

} // namespace attnui
