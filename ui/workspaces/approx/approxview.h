// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Approximate: one head of the Subject's model under exact softmax attention beside an approximation that the
// long-sequence literature answers the n² cost with — a sparse pattern (local window, block-local, strided,
// dilated) or a kernel form in linear time (elu + 1, Performer's random features) — with the difference map, the
// errors (max |ΔY|, max |ΔP|, the worst row's total variation) and the FLOPs and memory of both as n grows.
// Teaching only: no exact view of AttnScope ever uses an approximation.
//
// Views (attnscope-cli figure --view, showView); layers and heads count from 0:
//   approx:L.H[:KIND[:P]]   KIND window | block | strided | dilated | linear-elu | random-features, P its parameter
//
// Session state, every field optional: layer, head, kind (as above), parameter (1 … 4096; features 1 … 4096),
// seed (random features).

#include "workspaces/approx/approxrun.h"
#include "kit/workspace.h"

#include <memory>

class QComboBox;
class QLabel;
class QSpinBox;

namespace attnui {

class HeatmapPlot;
class XYPlot;

class ApproxView : public Workspace {
    Q_OBJECT
public:
    explicit ApproxView(Subject *subject, QWidget *parent = nullptr);
    ~ApproxView() override;

    QString title() const override { return tr("Approximate"); }
    QString explanation() const override;
    QString guide() const override;
    QWidget *figureWidget() const override;
    QString figureCaption() const override;
    FigureLayout figureLayout() const override;
    HeatmapPlot *currentFigure() const override { return m_diffPlot; }
    void setColorMap(ColorMap map) override;
    QJsonObject sessionState() const override;
    bool restoreSessionState(const QJsonObject &state, QString *error) override;
    QStringList viewPrefixes() const override { return {QStringLiteral("approx")}; }
    bool showView(const QString &spec, QString *error) override;

    void setHead(int layer, int head);
    void setSpec(const attn::ApproxSpec &spec);   // kind, parameter, seed (scale and causal are the model's)
    const ApproxRequest &request() const { return m_request; }
    std::shared_ptr<const ApproxSnapshot> snapshot() const { return m_snapshot; }
    HeatmapPlot *exactPlot() const { return m_exactPlot; }
    HeatmapPlot *approxPlot() const { return m_approxPlot; }
    HeatmapPlot *diffPlot() const { return m_diffPlot; }
    XYPlot *flopsPlot() const { return m_flops; }
    XYPlot *memoryPlot() const { return m_memory; }
    QString readout() const;

protected:
    void submit() override;
    bool onResult(const SnapshotPtr &snapshot) override;
    bool hasResult() const override { return m_snapshot != nullptr; }

private:
    void buildUi();
    void syncControls();
    void showSnapshot();

    ApproxRequest m_request;
    std::shared_ptr<const ApproxSnapshot> m_snapshot;
    ColorMap m_colorMap = ColorMap::Viridis;
    QSpinBox *m_layer = nullptr;
    QSpinBox *m_head = nullptr;
    QComboBox *m_kind = nullptr;
    QLabel *m_parameterLabel = nullptr;
    QSpinBox *m_parameter = nullptr;
    QLabel *m_seedLabel = nullptr;
    QSpinBox *m_seed = nullptr;
    QWidget *m_figure = nullptr;
    HeatmapPlot *m_exactPlot = nullptr;
    HeatmapPlot *m_approxPlot = nullptr;
    HeatmapPlot *m_diffPlot = nullptr;
    QLabel *m_readout = nullptr;
    XYPlot *m_flops = nullptr;
    XYPlot *m_memory = nullptr;
};

} // namespace attnui
