// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Pipeline (teaching): one head of the Subject's model on the Subject's text, X → Q, K, V → QKᵀ → ÷√d_k → + M →
// softmax → ·V, with the real numbers of a forward pass. Each stage shows its inputs and its result (tables
// with values in the cells up to 12 tokens, heatmaps beyond), a one-line formula and a sentence; ← / → or the
// buttons step through the stages. Toggles on the right change scaling, temperature, mask and positions, the score
// function (dot, general, additive beside the Transformer's) and show attention dropout on the weights; a
// check line compares the fp64 recomputation with the weights and scores the engine captured.
//
// With no model in the Subject (Explore's raw experiment), it shows a small synthetic model instead and says so.

#include "workspaces/pipeline/pipelinestages.h"
#include "kit/workspace.h"

#include <QList>

#include <memory>

class QAbstractButton;
class QButtonGroup;
class QComboBox;
class QLabel;
class QScrollArea;
class QSpinBox;
class QTimer;
class QToolButton;

namespace attnui {

class MatrixPanel;
class PipelineControls;

class PipelineView : public Workspace {
    Q_OBJECT
public:
    static constexpr const char *kFallbackSpec = "random:layers=1,heads=2,d_model=16,seed=7,pe=sinusoidal";

    explicit PipelineView(Subject *subject, QWidget *parent = nullptr);
    ~PipelineView() override;

    QString title() const override { return tr("Pipeline"); }
    QString explanation() const override;
    QString guide() const override;
    QWidget *figureWidget() const override;
    QString figureCaption() const override;
    FigureLayout figureLayout() const override;
    HeatmapPlot *currentFigure() const override;
    void setColorMap(ColorMap map) override;

    // layer, head (from 0), stage (input, qkv, dot, scale, mask, softmax, output, tiled, heads), tile_keys (0: auto)
    // and tile_block (the tiled stage's step), scale, temperature,
    // mask (model, bidirectional, causal, window), window, positional (model, none), score (scaled-dot, dot, general,
    // additive), score_seed, dropout (p, 0 … 0.9), dropout_seed (0 … 999999), and with the toy on, toy:
    // {n, d_model, d_k (1 … 8), x, w_q, w_k, w_v: the matrices row-major; q, k, v [n × d_k] when typed directly}.
    QJsonObject sessionState() const override;
    bool restoreSessionState(const QJsonObject &state, QString *error) override;
    QStringList viewPrefixes() const override { return {QStringLiteral("pipeline")}; }
    bool showView(const QString &spec, QString *error) override;

    PipelineSettings settings() const { return m_settings; }
    void setSettings(const PipelineSettings &settings);   // runs again
    PipelineStage stage() const { return m_stage; }
    void setStage(PipelineStage stage);
    void stepForward();
    void stepBack();
    // Play: the stages one after another on a timer (slow, normal, fast: 4, 2.5, 1.2 s each), from X again after
    // ·V, until paused (the button, Space). playInterval(): the chosen speed's time per stage, in ms.
    void setPlaying(bool on);
    bool isPlaying() const;
    int playInterval() const;
    QComboBox *speedBox() const { return m_speed; }

    // The toy (the side panel's "Toy" group): a head whose numbers the student types, shown instead of the
    // model's; sessions keep it as "toy". setToy sets the numbers and switches it on or off.
    bool isToy() const;
    void setToy(const ToyHead &toy, bool on = true);

    // The tiled stage's step: keys per block (0: ⌈n / 4⌉) and the key block shown (0-based, clamped to the blocks
    // the input has); sessions keep them as tile_keys and tile_block. Shown up to kTiledMaxTokens tokens.
    static constexpr int kTiledMaxTokens = 512;
    void setTileStep(int keysPerBlock, int block);
    int tileKeys() const { return m_tileKeys; }
    int tileBlock() const { return m_tileBlock; }
    std::shared_ptr<const TiledStep> tiledStepShown() const { return m_tiled; }

    std::shared_ptr<const PipelineSnapshot> snapshot() const { return m_snapshot; }
    QList<MatrixPanel *> panels() const;     // the panels the current stage shows, left to right
    PipelineControls *controls() const { return m_controls; }
    QAbstractButton *stageButton(PipelineStage stage) const;   // the stage's label in the stepper
    QString formulaText() const;
    QString checkText() const;

protected:
    void changeEvent(QEvent *event) override;
    void submit() override;
    bool onResult(const SnapshotPtr &snapshot) override;
    void onRunFailed(const QString &message) override;
    bool hasResult() const override { return m_snapshot != nullptr; }
    void onModelChanged() override;

private:
    void buildUi();
    QJsonObject baseSessionState() const;
    void fitControlsWidth();
    void enableModelControls(bool on);
    void showStage();
    void onControlsChanged();
    int effectiveTileKeys() const;

    PipelineSettings m_settings;
    PipelineStage m_stage = PipelineStage::Dot;
    std::shared_ptr<const PipelineSnapshot> m_snapshot;
    TextModelPtr m_fallback;          // the synthetic model shown when the Subject has none
    ColorMap m_colorMap = ColorMap::Viridis;

    QLabel *m_info = nullptr;
    QSpinBox *m_layer = nullptr;
    QSpinBox *m_head = nullptr;
    QToolButton *m_back = nullptr;
    QToolButton *m_next = nullptr;
    QButtonGroup *m_stageButtons = nullptr;
    QWidget *m_figure = nullptr;
    QLabel *m_formula = nullptr;
    QLabel *m_stageText = nullptr;
    QList<MatrixPanel *> m_panels;    // three, reused; hidden when a stage needs fewer
    QList<QLabel *> m_operators;      // between the panels
    QLabel *m_check = nullptr;
    QWidget *m_tileBar = nullptr;     // the tiled stage's block stepper
    QToolButton *m_tilePrev = nullptr;
    QToolButton *m_tileNext = nullptr;
    QLabel *m_tileLabel = nullptr;
    QSpinBox *m_tileKeysBox = nullptr;
    int m_tileKeys = 0;
    int m_tileBlock = 0;
    std::shared_ptr<const TiledStep> m_tiled;   // the step on screen
    PipelineControls *m_controls = nullptr;
    QScrollArea *m_controlsScroll = nullptr;
    QToolButton *m_play = nullptr;
    QComboBox *m_speed = nullptr;
    QTimer *m_playTimer = nullptr;
};

} // namespace attnui
