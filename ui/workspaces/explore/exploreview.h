// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Explore: a model (a bundled sample, a recent or dropped Hugging Face folder) or the raw experiment (one
// random attention layer over word-hash embeddings), a text and its tokens as chips; beside them, tabs for one
// head at full size, the layer's token lines (BertViz-style), the head statistics, rollout and flow, and the
// model's outputs. Every edit re-runs, debounced, through the EngineRunner — models are opened and run only
// there. The last good result stays on screen while a new one is computed or when a run fails; a model that
// fails to open leaves the previous one.

#include "workspaces/explore/modelrun.h"
#include "kit/workspace.h"

#include <memory>

class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QScrollArea;
class QSpinBox;
class QSplitter;
class QTabWidget;

namespace attnui {

class AggregationPanel;
class TextEditor;
class HeadGrid;
class DatasetHeadsPanel;
class HeadStatsPanel;
class HeatmapPlot;
class LineView;
class OutputsPanel;
class TokenChips;

class ExploreView : public Workspace {
    Q_OBJECT
public:
    enum Tab { HeadTab, LinesTab, StatisticsTab, AggregationTab, OutputsTab, DatasetTab };

    explicit ExploreView(Subject *subject, QWidget *parent = nullptr);
    ~ExploreView() override;

    QString title() const override { return tr("Explore"); }
    QString explanation() const override;
    QString guide() const override;
    QWidget *figureWidget() const override;
    QString figureCaption() const override;
    FigureLayout figureLayout() const override;
    HeatmapPlot *currentFigure() const override;
    // JSON (a model's result): the run document with the captured heads and the analyses on screen
    // (exploreexport.cpp); CSV: the heatmap on screen.
    QStringList dataFormats() const override;
    bool exportData(const QString &path, QString *error) const override;
    void setColorMap(ColorMap map) override;
    void saveSettings(QSettings &settings) const override;
    void restoreSettings(const QSettings &settings) override;
    // Sessions and headless figures (exploreviewstate.cpp): the tab, the head, the raw layer's settings; views
    // grid, head:L.H, lines:L, statistics, rollout, outputs (layers and heads count from 0, as in `run --heads`).
    QJsonObject sessionState() const override;
    bool restoreSessionState(const QJsonObject &state, QString *error) override;
    QStringList viewPrefixes() const override;
    bool honoursRunOptions() const override { return true; }
    bool showView(const QString &spec, QString *error) override;

    // Opens a model ("sample:NAME", a folder, "random:...") off the UI thread and runs it on its first example
    // (or on the current text when it has none). On failure the banner says why and the current model stays.
    void openModel(const QString &spec);
    // The same, keeping `text` as the input instead of the model's first example (sessions, lessons).
    void openModel(const QString &spec, const QString &text);
    void useRawExperiment();                        // the random attention layer over word-hash embeddings
    bool isRawExperiment() const { return m_raw; }
    TextModelPtr currentModel() const { return m_model; }
    bool isLoading() const { return !m_loadingSpec.isEmpty(); }

    ExperimentRequest request() const;              // what the raw-experiment controls say now
    void setText(const QString &text);
    QString text() const;
    void selectHead(int layer, int head);
    void setCurrentTab(Tab tab);
    std::shared_ptr<const ExploreSnapshot> snapshot() const { return m_snapshot; }
    HeadGrid *headGrid() const { return m_grid; }
    TokenChips *chips() const { return m_chips; }
    QComboBox *modelPicker() const { return m_modelCombo; }
    HeadStatsPanel *statisticsPanel() const { return m_stats; }
    AggregationPanel *aggregationPanel() const { return m_aggregation; }
    OutputsPanel *outputsPanel() const { return m_outputs; }
    DatasetHeadsPanel *datasetHeadsPanel() const { return m_datasetHeads; }
    LineView *lineView() const { return m_lines; }
    HeatmapPlot *headPlot() const { return m_plot; }

    static QString defaultText();                   // the raw experiment's sentence
    // sample:induction-gpt2, else the first sample, else empty (the raw experiment).
    static QString defaultModelSpec();
    static QStringList recentModels();              // folders, newest first (QSettings)
    static void addRecentModel(const QString &folder);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void submit() override;
    // resultShown follows once the head heatmap is on screen (prepared off the UI thread for long inputs).
    bool onResult(const SnapshotPtr &snapshot) override;
    void onRunFailed(const QString &message) override;
    bool hasResult() const override { return m_snapshot != nullptr; }
    void onModelChanged() override;
    void onTextChanged() override;
    void onTokenizeOptionsChanged() override;
    void syncPairWidgets();

private:
    void fitChips();
    void buildUi();
    QWidget *buildRawControls();
    void rebuildModelPicker();
    void syncModelPicker();
    void onModelActivated(int index);
    void scheduleEditRun();         // debounced: short inputs re-run after a short pause, long ones after a longer one
    bool wantsFlow() const;
    ModelRequest modelRequest() const;
    void adoptModel(const TextModelPtr &model, const ExploreSnapshot &s);
    void showSnapshot();
    void showHead();
    void onCellHovered(int row, int col);
    void onHoverLeft();
    void updateWindowEnabled();
    void updateModeWidgets();
    void updateExampleHint();                       // the hint of the example the text is, if it is one
    void adoptSubjectModel();
    void updateExplanation();
    QPair<int, int> modelShape() const;   // layers × heads of the model (or raw layer) now in use

    std::shared_ptr<const ExploreSnapshot> m_snapshot;
    int m_layer = 0, m_head = 0;
    ColorMap m_colorMap = ColorMap::Viridis;
    TextModelPtr m_model;
    bool m_raw = false;
    QString m_loadingSpec;          // a model being opened; empty when none
    QString m_openFailure;          // the notice of the last model that did not open (hidden once another opens)
    bool m_useFirstExample = false;
    bool m_shownPending = false;    // resultShown waits for the head heatmap prepared off the UI thread

    QComboBox *m_modelCombo = nullptr;
    QLabel *m_modelInfo = nullptr;
    QComboBox *m_examples = nullptr;
    QLabel *m_examplesLabel = nullptr;
    QLabel *m_exampleHint = nullptr;
    QLabel *m_intro = nullptr;
    TextEditor *m_text = nullptr;
    QCheckBox *m_pairBox = nullptr;     // a sentence pair: shows m_pair
    QLineEdit *m_pair = nullptr;        // the second text (Subject::textPair())
    QCheckBox *m_truncateBox = nullptr; // Subject::truncate()
    QLabel *m_inputNote = nullptr;      // what truncation kept
    TokenChips *m_chips = nullptr;
    QScrollArea *m_chipsScroll = nullptr;
    QGroupBox *m_rawBox = nullptr;
    QSpinBox *m_heads = nullptr;
    QComboBox *m_dModel = nullptr;
    QSpinBox *m_seed = nullptr;
    QComboBox *m_mask = nullptr;
    QSpinBox *m_window = nullptr;
    QComboBox *m_positional = nullptr;
    QComboBox *m_backend = nullptr;
    QLabel *m_gridNote = nullptr;
    HeadGrid *m_grid = nullptr;
    QTabWidget *m_tabs = nullptr;
    HeatmapPlot *m_plot = nullptr;
    QLabel *m_readout = nullptr;
    HeadStatsPanel *m_stats = nullptr;
    AggregationPanel *m_aggregation = nullptr;
    OutputsPanel *m_outputs = nullptr;
    DatasetHeadsPanel *m_datasetHeads = nullptr;   // head statistics over a dataset (its own runner)
    LineView *m_lines = nullptr;
    QSplitter *m_splitter = nullptr;
    QWidget *m_viewFigure = nullptr;   // a figure shown by showView() outside the tabs (the grid); else null
};

} // namespace attnui
