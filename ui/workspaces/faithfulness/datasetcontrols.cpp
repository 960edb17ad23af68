// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/faithfulness/datasetcontrols.h"

#include "kit/subject.h"
#include "workspaces/faithfulness/faithfulnessrun.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>

namespace attnui {

namespace {

QString duration(double seconds)
{
    if (seconds < 0) return QObject::tr("?");
    if (seconds < 90) return QObject::tr("%1 s").arg(seconds, 0, 'f', 0);
    if (seconds < 5400) return QObject::tr("%1 min").arg(seconds / 60.0, 0, 'f', 1);
    return QObject::tr("%1 h").arg(seconds / 3600.0, 0, 'f', 1);
}

} // namespace

DatasetControls::DatasetControls(Subject *subject, std::function<attn::DatasetSettings()> settings, Options options, QWidget *parent)
    : QGroupBox(tr("Dataset"), parent), m_subject(subject), m_settings(std::move(settings)), m_runner(new EngineRunner(this))
{
    auto *form = new QFormLayout(this);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);   // a narrow column puts labels above their fields
    auto *sourceRow = new QHBoxLayout;
    m_source = new QComboBox;
    m_source->setToolTip(tr("JSONL (one object per line: text, label, rationale, …), CSV/TSV, or the model folder's "
                            "bundled rationale set (docs/datasets.md)"));
    auto *browse = new QPushButton(tr("Open…"));
    sourceRow->addWidget(m_source, 1);
    sourceRow->addWidget(browse);
    form->addRow(tr("From:"), sourceRow);
    m_columnsLabel = new QLabel(tr("Columns:"));
    m_columns = new QLineEdit;
    m_columns->setPlaceholderText(tr("text=review,label=sentiment"));
    m_columns->setToolTip(tr("CSV/TSV: which column holds each field; unmapped fields are read from a column of their own name"));
    form->addRow(m_columnsLabel, m_columns);
    m_limit = new QSpinBox;
    m_limit->setRange(0, 1000000);
    m_limit->setSpecialValueText(tr("all"));
    m_limit->setPrefix(tr("first "));
    m_limit->setToolTip(tr("Run only the first N examples (a quick look before the whole set)"));
    form->addRow(tr("Run:"), m_limit);
    m_resultsFile = new QLineEdit;
    m_resultsFile->setPlaceholderText(tr("(optional) results.jsonl"));
    m_resultsFile->setToolTip(tr("Also write each example to this results file as it finishes, as attnscope-cli does "
                                 "(so a long run survives a crash; Resume continues it)"));
    m_resume = new QCheckBox(tr("Resume it"));
    if (options.resultsFile) {
        form->addRow(tr("Results file:"), m_resultsFile);
        form->addRow(m_resume);
    } else {
        m_resultsFile->hide();
        m_resume->hide();
    }
    auto *buttons = new QHBoxLayout;
    m_run = new QPushButton(tr("Run dataset"));
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setEnabled(false);
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    form->addRow(buttons);
    m_progress = new QProgressBar;
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_progress->hide();
    form->addRow(m_progress);
    m_status = new QLabel(options.idleText);
    m_status->setWordWrap(true);
    form->addRow(m_status);

    connect(m_source, &QComboBox::currentIndexChanged, this, &DatasetControls::updateColumns);
    updateColumns();
    connect(browse, &QPushButton::clicked, this, &DatasetControls::browse);
    connect(m_run, &QPushButton::clicked, this, &DatasetControls::run);
    connect(m_cancel, &QPushButton::clicked, this, &DatasetControls::cancel);
    connect(m_runner, &EngineRunner::started, this, [this] {
        m_progress->setValue(0);
        m_progress->show();
        m_cancel->setEnabled(true);
        m_status->setText(tr("Preparing the dataset…"));
    });
    connect(m_runner, &EngineRunner::progress, this, [this](double f) { m_progress->setValue(int(f * 1000)); });
    connect(m_runner, &EngineRunner::idle, this, [this] {
        m_progress->hide();
        m_cancel->setEnabled(false);
    });
    connect(m_runner, &EngineRunner::cancelled, this, [this] { m_status->setText(tr("Cancelled before the first example finished.")); });
    connect(m_runner, &EngineRunner::failed, this, [this](const QString &message) {
        m_status->setText(tr("<b>Could not run the dataset:</b> %1").arg(message.toHtmlEscaped()));
    });
    connect(m_runner, &EngineRunner::finished, this, [this](const SnapshotPtr &snapshot) {
        auto s = std::dynamic_pointer_cast<const DatasetSnapshot>(snapshot);
        if (!s) return;
        m_snapshot = std::move(s);
        const QString note = m_snapshot->resumed ? tr(" (%1 read back from the results file)").arg(m_snapshot->resumed) : QString();
        if (m_snapshot->cancelled)
            m_status->setText(tr("<b>Cancelled</b> after %1 of %2 examples%3; the figures and the summary cover those.")
                                  .arg(m_snapshot->records.size()).arg(m_snapshot->total).arg(note));
        else
            m_status->setText(tr("%1 examples in %2%3.").arg(m_snapshot->records.size()).arg(duration(m_snapshot->elapsedMs / 1000.0), note) +
                              (m_snapshot->testCount ? tr(" %1 paired tests, Holm-adjusted together.").arg(m_snapshot->testCount) : QString()));
        emit resultReady();
    });
    connect(m_subject, &Subject::modelChanged, this, &DatasetControls::onModelChanged);
    onModelChanged();
}

DatasetControls::~DatasetControls()
{
    delete m_runner;   // cancels and waits: the job's progress callbacks name this object
    m_runner = nullptr;
}

void DatasetControls::updateColumns()
{
    const QString spec = dataset();
    const bool delimited = spec.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive) || spec.endsWith(QLatin1String(".tsv"), Qt::CaseInsensitive);
    m_columns->setVisible(delimited);
    m_columnsLabel->setVisible(delimited);
}

void DatasetControls::onModelChanged()
{
    const QString current = dataset();
    const QList<RationaleExample> bundled = readRationales(modelFolder(m_subject->modelSpec()));
    {
        const QSignalBlocker block(m_source);
        const int sample = m_source->findData(QStringLiteral("sample"));
        if (sample >= 0) m_source->removeItem(sample);
        if (!bundled.isEmpty()) m_source->insertItem(0, tr("bundled set (%1 examples)").arg(bundled.size()), QStringLiteral("sample"));
        const int keep = m_source->findData(current);
        m_source->setCurrentIndex(keep >= 0 ? keep : 0);
    }
    m_run->setEnabled(m_source->count() > 0);
    updateColumns();
}

void DatasetControls::browse()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a dataset"), QString(),
                                                      tr("Datasets (*.jsonl *.json *.csv *.tsv);;All files (*)"));
    if (!path.isEmpty()) setDataset(path);
}

void DatasetControls::setDataset(const QString &spec)
{
    int i = m_source->findData(spec);
    if (i < 0) {
        m_source->addItem(QFileInfo(spec).fileName(), spec);
        i = m_source->count() - 1;
        m_source->setItemData(i, spec, Qt::ToolTipRole);
    }
    m_source->setCurrentIndex(i);
    m_run->setEnabled(true);
}

QString DatasetControls::dataset() const { return m_source->currentData().toString(); }
void DatasetControls::setColumns(const QString &mapping) { m_columns->setText(mapping); }
void DatasetControls::setLimit(int firstN) { m_limit->setValue(firstN); }

void DatasetControls::setResultsFile(const QString &path, bool resume)
{
    m_resultsFile->setText(path);
    m_resume->setChecked(resume);
}

void DatasetControls::run()
{
    const TextModelPtr model = m_subject->model();
    if (!model) {
        m_status->setText(tr("Open a model in Explore first."));
        return;
    }
    if (dataset().isEmpty()) {
        m_status->setText(tr("Open a dataset first (Open…)."));
        return;
    }
    DatasetRequest r;
    r.model = model;
    r.datasetSpec = dataset();
    r.modelFolder = modelFolder(m_subject->modelSpec());
    r.columns = m_columnsLabel->isHidden() ? QString() : m_columns->text();
    r.settings = m_settings();
    r.options.outPath = m_resultsFile->text().trimmed().toStdString();
    r.options.resume = m_resume->isChecked();
    r.options.limit = m_limit->value() > 0 ? m_limit->value() : -1;
    // The status line follows the examples as they finish (the bar follows every forward pass).
    // `this` outlives the job: the destructor deletes the runner first, which waits for it.
    DatasetControls *self = this;
    const quint64 generation = m_runner->currentGeneration() + 1;
    r.onExample = [self, generation](const attn::DatasetProgress &p) {
        QMetaObject::invokeMethod(self, [self, generation, p] {
            if (self->m_runner->currentGeneration() != generation || !self->m_runner->isBusy()) return;
            self->m_status->setText(tr("%1 of %2 examples · %3 elapsed · ETA %4")
                                        .arg(p.done).arg(p.total).arg(duration(p.elapsedSeconds), duration(p.etaSeconds)));
        }, Qt::QueuedConnection);
    };
    m_runner->submit([r](const JobContext &ctx) { return runDatasetJob(r, ctx); });
}

void DatasetControls::cancel() { m_runner->cancel(); }
QString DatasetControls::statusText() const { return m_status->text(); }

} // namespace attnui
