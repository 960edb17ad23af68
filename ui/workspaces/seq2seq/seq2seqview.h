// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Encoder–Decoder: the three attention kinds of an encoder–decoder model (T5, BART, Marian) on a source sentence and its target
// — encoder self-attention (source × source), decoder causal self-attention (target × target) and cross-attention
// (target × source: the decoder's queries over the encoder's keys and values). The target is typed (teacher
// forcing) or, left empty, generated greedily by the model. Three views:
//   alignment    cross-attention as lines between the two sentences (BertViz style) beside its target × source map
//   heatmap      one kind's map for a head or the mean of a layer's heads
//   generation   step by step: the token each step produced and where it looked in the source (Play walks on)
// The model is the workspace's own (encoder–decoders are not text models: Explore and the others cannot run them);
// the bundled samples of this kind are listed, others open from a folder.
//
// Views (attnscope-cli figure --view, showView); layers, heads and steps count from 0:
//   head:enc:L.H, head:dec:L.H, head:cross:L.H    one head's map (H may be "mean": the layer's mean over heads)
//   align:L.H                                     the alignment view of cross-attention
//   generation:STEP[:L.H]                          step STEP of the generation view (default: the last layer's mean)
//
// Session state, every field optional: model (a spec), source, target, max_new_tokens (1..512), view
// ("alignment" | "heatmap" | "generation"), kind ("enc" | "dec" | "cross"), layer, head (−1: mean), step.

#include "workspaces/seq2seq/seq2seqrun.h"
#include "kit/workspace.h"

#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSlider;
class QSpinBox;
class QStackedWidget;
class QTimer;

namespace attnui {

class AlignmentView;
class HeatmapPlot;

class Seq2SeqView : public Workspace {
    Q_OBJECT
public:
    enum class View { Alignment, Heatmap, Generation };

    explicit Seq2SeqView(Subject *subject, QWidget *parent = nullptr);
    ~Seq2SeqView() override;

    QString title() const override { return tr("Encoder–Decoder"); }
    QString explanation() const override;
    QString guide() const override;
    QWidget *figureWidget() const override;
    QString figureCaption() const override;
    FigureLayout figureLayout() const override;
    HeatmapPlot *currentFigure() const override;
    void setColorMap(ColorMap map) override;
    QJsonObject sessionState() const override;
    bool restoreSessionState(const QJsonObject &state, QString *error) override;
    QStringList viewPrefixes() const override;
    bool showView(const QString &spec, QString *error) override;
    bool opensEncoderDecoderModels() const override { return true; }

    void setModelSpec(const QString &spec);
    void setSource(const QString &text);
    void setTarget(const QString &text);
    void setView(View view);
    void setKind(AttentionKind kind);
    void setHead(int layer, int head);   // head −1: the mean over the layer's heads
    void setStep(int step);

    View view() const { return m_view; }
    AttentionKind kind() const { return m_kind; }
    int layer() const { return m_layer; }
    int head() const { return m_head; }
    int step() const { return m_step; }
    QString modelSpec() const { return m_request.spec; }
    std::shared_ptr<const Seq2SeqSnapshot> snapshot() const { return m_snapshot; }
    AlignmentView *alignmentView() const { return m_align; }
    AlignmentView *generationView() const { return m_steps; }
    HeatmapPlot *heatmap() const { return m_plot; }
    HeatmapPlot *alignmentHeatmap() const { return m_alignPlot; }
    QString outputText() const;   // the line under the controls: the translation, or what was teacher-forced

protected:
    void submit() override;
    bool onResult(const SnapshotPtr &snapshot) override;
    bool hasResult() const override { return m_snapshot != nullptr; }
    void onModelChanged() override;
    void onTextChanged() override {}

private:
    void buildUi();
    void fillModels();
    void showSnapshot();
    void syncControls();
    void refreshViews();
    void stepBy(int delta);
    // What is on screen: the chosen layer (the last until one is chosen) of the kind shown, within the model; the
    // chosen head, or the mean where the model has no such head.
    AttentionKind shownKind() const;
    int shownLayer() const;
    int shownHead() const { return m_snapshot && m_head >= m_snapshot->heads(shownKind()) ? -1 : m_head; }

    Seq2SeqRequest m_request;
    std::shared_ptr<const Seq2SeqSnapshot> m_snapshot;
    ColorMap m_colorMap = ColorMap::Viridis;
    View m_view = View::Alignment;
    AttentionKind m_kind = AttentionKind::Cross;
    int m_layer = -1;   // −1: the last layer, until chosen
    int m_head = -1;    // −1: the mean of heads
    int m_step = 0;

    QComboBox *m_model = nullptr;
    QLineEdit *m_source = nullptr;
    QComboBox *m_examples = nullptr;
    QLineEdit *m_target = nullptr;
    QSpinBox *m_maxNew = nullptr;
    QComboBox *m_viewBox = nullptr;
    QComboBox *m_kindBox = nullptr;
    QLabel *m_kindLabel = nullptr;
    QSpinBox *m_layerBox = nullptr;
    QComboBox *m_headBox = nullptr;
    QWidget *m_stepRow = nullptr;
    QSlider *m_stepSlider = nullptr;
    QLabel *m_stepLabel = nullptr;
    QPushButton *m_play = nullptr;
    QTimer *m_playTimer = nullptr;
    QLabel *m_output = nullptr;
    QLabel *m_hint = nullptr;

    QStackedWidget *m_pages = nullptr;
    QWidget *m_alignPage = nullptr;
    AlignmentView *m_align = nullptr;
    HeatmapPlot *m_alignPlot = nullptr;
    HeatmapPlot *m_plot = nullptr;
    QWidget *m_stepsPage = nullptr;
    AlignmentView *m_steps = nullptr;
    QLabel *m_stepCaption = nullptr;
};

} // namespace attnui
