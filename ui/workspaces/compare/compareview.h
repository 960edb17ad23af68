// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Compare: two attention matrices of the Subject's model side by side with their difference A − B (diverging
// colours, symmetric range) — two texts (the Subject's and a second one, same head), two heads (same text), or
// two settings (same head and text; mask and positional information). Hover is linked: the cell under the
// mouse is outlined in all three panels and the read-out shows A, B and A − B. Texts of different lengths are
// compared only where both have positions (aligned by position, the common top-left block); the note says so.
//
// Views (attnscope-cli figure --view, showView); layers and heads count from 0:
//   compare                              the current comparison
//   compare:heads:L.H,L.H                two heads on the Subject's text
//   compare:text:TEXT                    the Subject's text vs TEXT, current head (TEXT may contain ':' and ',')
//   compare:settings:SPEC,SPEC           SPEC = model | bidirectional | causal | window:W, optionally "/nopos"
//
// Session state, every field optional:
//   mode                "texts" | "heads" | "settings"
//   text_b              string (the second text)
//   head_a, head_b      "L.H" from 0; absent (and not saved until chosen): the first head against the model's last
//   settings_a, settings_b   a SPEC as above

#include "workspaces/compare/comparerun.h"
#include "kit/workspace.h"

#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QStackedWidget;

namespace attnui {

class HeatmapPlot;

class CompareView : public Workspace {
    Q_OBJECT
public:
    explicit CompareView(Subject *subject, QWidget *parent = nullptr);
    ~CompareView() override;

    QString title() const override { return tr("Compare"); }
    QString explanation() const override;
    QString guide() const override;
    QWidget *figureWidget() const override;
    QString figureCaption() const override;
    FigureLayout figureLayout() const override;
    HeatmapPlot *currentFigure() const override { return m_diffPlot; }
    // JSON: the workspace's document (docs/json-format.md, "The compare export"); CSV: the heatmap on screen.
    QStringList dataFormats() const override;
    bool exportData(const QString &path, QString *error) const override;
    void setColorMap(ColorMap map) override;
    QJsonObject sessionState() const override;
    bool restoreSessionState(const QJsonObject &state, QString *error) override;
    QStringList viewPrefixes() const override { return {QStringLiteral("compare")}; }
    bool showView(const QString &spec, QString *error) override;

    void setMode(CompareMode mode);
    void setTextB(const QString &text);
    void setHeads(attn::HeadRef a, attn::HeadRef b);
    void setSettings(const CompareSettings &a, const CompareSettings &b);

    const CompareRequest &request() const { return m_request; }
    std::shared_ptr<const CompareSnapshot> snapshot() const { return m_snapshot; }
    HeatmapPlot *plotA() const { return m_plotA; }
    HeatmapPlot *plotB() const { return m_plotB; }
    HeatmapPlot *diffPlot() const { return m_diffPlot; }
    QString readout() const;                 // the linked-hover read-out line
    QString cellText(int row, int col) const;   // A, B and A − B at a cell (the read-out and every tooltip)
    QString noteText() const;
    // Linked hover, as the mouse does it: outlines (row, col) in every panel that has it and fills the read-out.
    void hoverCell(int row, int col);
    // The heads the view shows: the ones chosen, or (defaultHeads()) the first head against the model's last.
    bool defaultHeads() const { return m_defaultHeads; }

protected:
    void submit() override;
    bool onResult(const SnapshotPtr &snapshot) override;
    bool hasResult() const override { return m_snapshot != nullptr; }
    void onModelChanged() override;

private:
    void buildUi();
    void showSnapshot();
    void syncControls();
    void clearHover();

    CompareRequest m_request;
    // Heads not chosen (by the user, a session or a view): the first head against the model's last, resolved by
    // each run. It stays so when a result arrives, so the session state does not depend on whether a run finished.
    bool m_defaultHeads = true;
    std::shared_ptr<const CompareSnapshot> m_snapshot;
    ColorMap m_colorMap = ColorMap::Viridis;

    QComboBox *m_mode = nullptr;
    QStackedWidget *m_modeControls = nullptr;
    QComboBox *m_headA = nullptr;        // Heads mode: A; other modes: the head
    QComboBox *m_headB = nullptr;
    QComboBox *m_headShared = nullptr;   // Texts and Settings modes: the head both sides show
    QLabel *m_headSharedLabel = nullptr;
    QLineEdit *m_textB = nullptr;
    QComboBox *m_settingsA = nullptr;
    QComboBox *m_settingsB = nullptr;
    QWidget *m_figure = nullptr;
    HeatmapPlot *m_plotA = nullptr;
    HeatmapPlot *m_plotB = nullptr;
    HeatmapPlot *m_diffPlot = nullptr;
    QLabel *m_readout = nullptr;
    QLabel *m_note = nullptr;
};

} // namespace attnui
