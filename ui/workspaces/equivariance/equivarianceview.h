// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Equivariance: permute the input's tokens (reverse, random with a seed, swap two, or drag them into an order)
// and compare A(PX) with P·A(X)·Pᵀ and Y(PX) with P·Y(X). Without positional information and with a bidirectional
// mask the two agree to float round-off; positional encodings or the causal mask break it, and the panel says
// why. Runs on the shared Subject (model + text), debounced, through this workspace's runner.

#include "workspaces/equivariance/equivariancerun.h"
#include "kit/workspace.h"

#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace attnui {

class EquivarianceFigure;
class HeatmapPlot;
class PermutationStrip;

class EquivarianceView : public Workspace {
    Q_OBJECT
public:
    explicit EquivarianceView(Subject *subject, QWidget *parent = nullptr);
    ~EquivarianceView() override;

    QString title() const override { return tr("Equivariance"); }
    QString explanation() const override;
    QString guide() const override;
    QWidget *figureWidget() const override;
    QString figureCaption() const override;
    FigureLayout figureLayout() const override;
    HeatmapPlot *currentFigure() const override;
    void setColorMap(ColorMap map) override;
    QStringList dataFormats() const override;
    bool exportData(const QString &path, QString *error) const override;
    QJsonObject sessionState() const override;
    bool restoreSessionState(const QJsonObject &state, QString *error) override;
    QStringList viewPrefixes() const override { return {QStringLiteral("equivariance")}; }
    bool showView(const QString &spec, QString *error) override;

    // What the controls say now (the request's settings and the head on screen).
    attn::EquivarianceSettings settings() const;
    attn::HeadRef focusHead() const;
    void setFocusHead(int layer, int head);
    void setPermutation(const attn::PermutationSpec &spec);
    void setPositional(attn::PositionalChoice choice);
    void setMask(attn::MaskChoice::Kind kind);
    void setScope(attn::EquivarianceScope::Kind kind);

    std::shared_ptr<const EquivarianceSnapshot> snapshot() const { return m_snapshot; }
    EquivarianceFigure *figure() const { return m_figure; }
    PermutationStrip *strip() const { return m_strip; }
    HeatmapPlot *headErrors() const { return m_headErrors; }

protected:
    void submit() override;
    bool onResult(const SnapshotPtr &snapshot) override;
    void onRunFailed(const QString &message) override;
    bool hasResult() const override { return m_snapshot != nullptr; }
    void onModelChanged() override { onSubjectChanged(); }
    void onTextChanged() override { onSubjectChanged(); }

private:
    void buildUi();
    void onSubjectChanged();
    void showSnapshot();
    void updateControls();
    void onStripEdited(const std::vector<std::int64_t> &order);

    std::shared_ptr<const EquivarianceSnapshot> m_snapshot;
    std::vector<std::int64_t> m_custom;    // the dragged order (Explicit)
    TextModelPtr m_rangeModel;             // the model the head spin boxes are ranged for
    std::optional<attn::HeadRef> m_sessionHead;   // from a session, until a model it fits is open
    ColorMap m_colorMap = ColorMap::Viridis;

    QComboBox *m_permKind = nullptr;
    QSpinBox *m_seed = nullptr;
    QSpinBox *m_swapA = nullptr;
    QSpinBox *m_swapB = nullptr;
    QCheckBox *m_keepSpecial = nullptr;
    PermutationStrip *m_strip = nullptr;
    QComboBox *m_positional = nullptr;
    QComboBox *m_mask = nullptr;
    QPushButton *m_makeEquivariant = nullptr;
    QComboBox *m_scope = nullptr;
    QSpinBox *m_layer = nullptr;
    QSpinBox *m_head = nullptr;
    HeatmapPlot *m_headErrors = nullptr;
    QLabel *m_status = nullptr;
    EquivarianceFigure *m_figure = nullptr;
};

} // namespace attnui
