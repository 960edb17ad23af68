// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Masks: one head of the Subject's model on the Subject's text, recomputed from its captured Q, K, V under
// several masks — the model's own (the baseline), bidirectional, causal, key padding, a sliding window and the
// user's own — side by side: the weights on top, the difference from the baseline below (diverging colours,
// symmetric range shared by all panels), and ‖Δoutput‖ per token as bars. Two proofs under them: perturbing
// token j leaves every position < j unchanged under a causal mask (and not under a bidirectional one), and
// appended padding leaves the real tokens unchanged when it is masked (and not when it is visible).
//
// Editing: click or drag over the custom panel's cells to toggle allowed/blocked (it starts as causal); click
// a token in the padding strip to mark it as a padding key. Every change re-runs, debounced, on runner().
//
// Views (attnscope-cli figure --view, showView): "masks" (the current head) or "masks:L.H" with layer and head
// counted from 0, as in `run --heads L.H`.
//
// Session state (sessionState/restoreSessionState), every field optional:
// Fields left out are automatic (and a session saves only what was chosen): layer/head absent picks the head where
// the masks differ most, perturb absent the middle token, padding absent two default keys, custom absent a mask
// that starts as causal; masks, window, replacement and pads absent keep their current values.
//   layer, head         integers from 0 (a head outside the model is clamped when the model is known)
//   masks               array of "bidirectional", "causal", "padding", "window", "custom" (the baseline always shows)
//   window              integer 0..4096
//   padding             array of token positions (integers ≥ 0)
//   custom              {"length": L, "allowed": [L strings of L '0'/'1' characters]}
//   perturb             token j of the leakage proof (integer ≥ 0)
//   replacement         token id put at j (−1: the next id)
//   pads                padding tokens appended for the padding proof, 1..64

#include "workspaces/masks/masksrun.h"
#include "kit/paddingstrip.h"
#include "kit/workspace.h"

#include <QPointer>

#include <memory>

class QCheckBox;
class QComboBox;
class QGridLayout;
class QLabel;
class QPushButton;
class QSpinBox;
class QToolButton;

namespace attnui {

class HeatmapPlot;
class MasksBody;
class XYPlot;

class MasksView : public Workspace {
    Q_OBJECT
public:
    explicit MasksView(Subject *subject, QWidget *parent = nullptr);
    ~MasksView() override;

    QString title() const override { return tr("Masks"); }
    QString explanation() const override;
    QString guide() const override;
    QWidget *figureWidget() const override;
    QString figureCaption() const override;
    FigureLayout figureLayout() const override;
    HeatmapPlot *currentFigure() const override;   // the first non-baseline weights panel
    // JSON: the workspace's document (docs/json-format.md, "The masks export"); CSV: the heatmap on screen.
    QStringList dataFormats() const override;
    bool exportData(const QString &path, QString *error) const override;
    void setColorMap(ColorMap map) override;
    QJsonObject sessionState() const override;
    bool restoreSessionState(const QJsonObject &state, QString *error) override;
    QStringList viewPrefixes() const override { return {QStringLiteral("masks")}; }
    bool showView(const QString &spec, QString *error) override;

    void selectHead(int layer, int head);
    void setChoices(const std::vector<MaskChoice> &choices);
    void setPerturbedToken(int j);
    void togglePadding(int position);
    void toggleCustomCell(int row, int col);   // allowed ⇄ blocked, then re-runs
    void resetCustomMask();

    std::shared_ptr<const MasksSnapshot> snapshot() const { return m_snapshot; }
    const MasksRequest &request() const { return m_request; }
    // The panels of the snapshot on screen, in variant order (baseline first); the baseline has no difference map.
    int panelCount() const { return int(m_weightPlots.size()); }
    HeatmapPlot *weightsPanel(int i) const { return m_weightPlots.value(i); }
    HeatmapPlot *differencePanel(int i) const { return m_diffPlots.value(i); }
    int customPanel() const;                   // index of the custom panel, −1 when not shown
    // The custom mask at a size the mouse can edit (beside the small multiples): drag paints a rectangle of cells.
    HeatmapPlot *customEditor() const { return m_editor; }
    XYPlot *deltaPlot() const { return m_deltaPlot; }
    XYPlot *leakagePlot() const { return m_leakPlot; }
    QString leakageText() const;
    QString paddingText() const;
    PaddingStrip *paddingStrip() const { return m_padStrip; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void submit() override;
    bool onResult(const SnapshotPtr &snapshot) override;
    bool hasResult() const override { return m_snapshot != nullptr; }
    void onModelChanged() override;

private:
    void buildUi();
    void showSnapshot();
    void rebuildPanels(int count);
    void sizeEditor(int tokens);   // cells of kEditorCellPx for this many tokens
    void syncControls();
    // m_request's custom mask, taken from the result of its length on the first edit (a run that starts it as
    // causal leaves the request's empty); empty while no such result is there.
    std::vector<std::uint8_t> &editableCustomMask();

    MasksRequest m_request;
    std::shared_ptr<const MasksSnapshot> m_snapshot;
    ColorMap m_colorMap = ColorMap::Viridis;
    // Dragging over the custom mask paints the rectangle from the first cell to the current one with one state
    // (the opposite of the first cell's); the mask as it was at the press is kept to repaint from.
    // What the user (or a session, lesson or view) chose, as opposed to what a run resolved: the session saves only
    // these, so a session saved before or after a result reads the same (the automatic head, the middle token j
    // and the causal start of the custom mask are resolved again by the next run).
    bool m_headChosen = false;
    bool m_perturbChosen = false;
    bool m_customEdited = false;
    bool m_painting = false;
    std::uint8_t m_paintValue = 0;
    int m_anchorRow = -1, m_anchorCol = -1, m_lastRow = -1, m_lastCol = -1;
    std::vector<std::uint8_t> m_paintBase;
    HeatmapPlot *m_editor = nullptr;
    QWidget *m_editorBox = nullptr;

    QComboBox *m_headCombo = nullptr;
    QList<QToolButton *> m_choiceButtons;
    QSpinBox *m_window = nullptr;
    PaddingStrip *m_padStrip = nullptr;
    QPushButton *m_resetCustom = nullptr;
    QWidget *m_figure = nullptr;
    MasksBody *m_body = nullptr;
    QGridLayout *m_grid = nullptr;
    QList<HeatmapPlot *> m_weightPlots;
    QList<HeatmapPlot *> m_diffPlots;
    QList<QLabel *> m_panelNotes;
    QLabel *m_baselineNote = nullptr;
    XYPlot *m_deltaPlot = nullptr;
    XYPlot *m_leakPlot = nullptr;
    QSpinBox *m_perturb = nullptr;
    QSpinBox *m_replacement = nullptr;
    QSpinBox *m_pads = nullptr;
    QLabel *m_leakText = nullptr;
    QLabel *m_padText = nullptr;
};

} // namespace attnui
