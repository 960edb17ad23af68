// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Faithfulness: does attention point at the tokens the model actually uses? Attention-based importance (a head,
// the mean of heads, rollout, flow) beside perturbation-based importance (leave-one-out by deletion or key
// knockout, occlusion with a baseline), their rank agreement, ERASER / AOPC, deletion and insertion curves,
// per-head permutation, uniform-attention and ablation tests and a sanity check — every number with its unit and
// its random baseline, every seed shown. Runs attn::runFaithfulness on the shared Subject through this
// workspace's runner; long suites wait for Run, with the number of forward passes shown first.
// Mode ▸ Dataset (datasetmode.h) runs the same suite over a whole evaluation set on its own runner.

#include "workspaces/faithfulness/faithfulnessrun.h"
#include "kit/stateio.h"
#include "kit/workspace.h"

#include <attnscope/dataset.h>

#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStackedWidget;

namespace attnui {

class DatasetMode;
class FaithfulnessFigure;

class FaithfulnessView : public Workspace {
    Q_OBJECT
public:
    // Suites up to this many forward passes start by themselves; longer ones wait for Run.
    static constexpr std::int64_t kAutoRunPasses = 20000;

    explicit FaithfulnessView(Subject *subject, QWidget *parent = nullptr);
    ~FaithfulnessView() override;

    QString title() const override { return tr("Faithfulness"); }
    QString explanation() const override;
    QString guide() const override;
    QWidget *figureWidget() const override;
    QString figureCaption() const override;
    FigureLayout figureLayout() const override;
    void setColorMap(ColorMap map) override;
    QStringList dataFormats() const override;
    bool exportData(const QString &path, QString *error) const override;
    QJsonObject sessionState() const override;
    bool restoreSessionState(const QJsonObject &state, QString *error) override;
    QStringList viewPrefixes() const override { return {QStringLiteral("faithfulness")}; }
    bool showView(const QString &spec, QString *error) override;

    attn::FaithfulnessSettings settings() const;
    std::string attentionMethod() const;       // shown in the bars, scatter and curves
    std::string perturbationMethod() const;
    void setAttentionMethod(const std::string &name);
    void setPerturbationMethod(const std::string &name);
    std::int64_t estimatedPasses() const { return m_estimate; }
    // The ground-truth evidence tokens of the current text, when it is a rationale example.
    std::vector<std::int64_t> goldTokens() const;
    const QList<RationaleExample> &rationaleExamples() const { return m_rationales; }
    void useRationaleExample(int index);       // sets the Subject's text

    std::shared_ptr<const FaithfulnessSnapshot> snapshot() const { return m_snapshot; }
    FaithfulnessFigure *figure() const { return m_figure; }
    QString estimateText() const;

    // One example (the Subject's text) or a whole dataset.
    bool isDatasetMode() const;
    void setDatasetMode(bool on);
    DatasetMode *datasetMode() const { return m_dataset; }
    // The dataset run's settings: the suite as set up here, the run seed, the target.
    attn::DatasetSettings datasetSettings() const;

protected:
    void submit() override;
    bool onResult(const SnapshotPtr &snapshot) override;
    bool hasResult() const override { return m_snapshot != nullptr; }
    // Edits re-run by themselves only while the suite is short; a long one waits for Run.
    bool autoRunAllowed() const override { return !isDatasetMode() && m_estimate >= 0 && m_estimate <= kAutoRunPasses; }
    void onModelChanged() override;
    void onTextChanged() override { onSettingChanged(); }

private:
    void buildUi();
    void onSettingChanged();
    void updateEstimate();
    void refreshFigure();
    void openDatasetExample(const QString &text, const QList<qint64> &gold);

    std::shared_ptr<const FaithfulnessSnapshot> m_snapshot;
    QList<RationaleExample> m_rationales;
    std::int64_t m_estimate = -1;
    std::optional<attn::HeadRef> m_sessionHead;   // from a session, until a model it fits is open
    std::optional<int> m_sessionTarget;           // likewise the target class
    StateBindings m_bindings;                     // session fields that are a control's value
    // The gold tokens of a text opened from a dataset (its rationale), used while the Subject's text is `first`.
    std::pair<QString, std::vector<std::int64_t>> m_datasetGold;

    QComboBox *m_mode = nullptr;
    DatasetMode *m_dataset = nullptr;
    QStackedWidget *m_figures = nullptr;
    QWidget *m_singleRun = nullptr;               // the single-example Run row, estimate and progress

    QComboBox *m_example = nullptr;
    QLabel *m_exampleLabel = nullptr;
    QComboBox *m_attention = nullptr;
    QSpinBox *m_layer = nullptr;
    QSpinBox *m_head = nullptr;
    QComboBox *m_perturbation = nullptr;
    QComboBox *m_baseline = nullptr;
    QComboBox *m_removal = nullptr;
    QComboBox *m_target = nullptr;
    QSpinBox *m_seed = nullptr;
    QSpinBox *m_randomSeeds = nullptr;
    QSpinBox *m_permutations = nullptr;
    QCheckBox *m_permTest = nullptr;
    QCheckBox *m_uniformTest = nullptr;
    QCheckBox *m_ablationTest = nullptr;
    QComboBox *m_ablationView = nullptr;
    QCheckBox *m_sanity = nullptr;
    QLabel *m_estimateLabel = nullptr;
    QPushButton *m_run = nullptr;
    QPushButton *m_cancel = nullptr;
    QProgressBar *m_progress = nullptr;
    FaithfulnessFigure *m_figure = nullptr;
};

} // namespace attnui
