// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Vision: a Vision Transformer (ViT or DeiT folder, model_type "vit" or "deit") on one image. The image is cut into
// patches that become tokens after a CLS token; the overlay tints each patch by how much a query token attends to
// it — the CLS token (whose final state the classifier reads) or a clicked patch — for one head, the mean of a
// layer's heads, or the rollout through every layer; beside it the patch × patch map of the same attention, and a
// classifier's top predictions. A bundled sample's examples open with their true region outlined.
// The model is the workspace's own (a ViT is no text model: Explore and the others cannot run it).
//
// Views (attnscope-cli figure --image F --view, showView); layers, heads and tokens count from 0:
//   overlay:L.H, overlay:L.mean, overlay:rollout    the overlay alone (the CLS token's row)
//   patches:L.H, patches:L.mean, patches:rollout    the [1 + P, 1 + P] map alone
//
// Session state, every field optional: model (a folder or sample:NAME), image (a file), source ("head" | "mean" |
// "rollout" | "occlusion"), layer, head, query (0: CLS; 1 + p: patch p), opacity (0 … 1), view ("both" | "overlay" |
// "patches"), perturb (the perturbation checks on a classifier: occlusion, deletion / insertion curves of each
// layer's mean attention, the rollout and occlusion beside a random baseline).

#include "workspaces/vision/visionrun.h"
#include "kit/workspace.h"

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;

namespace attnui {

class HeatmapPlot;
class ImageOverlay;
class XYPlot;

class VisionView : public Workspace {
    Q_OBJECT
public:
    enum class View { Both, Overlay, Patches };

    explicit VisionView(Subject *subject, QWidget *parent = nullptr);
    ~VisionView() override;

    QString title() const override { return tr("Vision"); }
    QString explanation() const override;
    QString guide() const override;
    QWidget *figureWidget() const override;
    QString figureCaption() const override;
    FigureLayout figureLayout() const override;
    HeatmapPlot *currentFigure() const override;
    void setColorMap(ColorMap map) override;
    QJsonObject sessionState() const override;
    bool restoreSessionState(const QJsonObject &state, QString *error) override;
    QStringList viewPrefixes() const override { return {QStringLiteral("overlay"), QStringLiteral("patches")}; }
    bool showView(const QString &spec, QString *error) override;
    bool opensVisionModels() const override { return true; }
    // JSON: the document `attnscope-cli run --image` writes (docs/json-format.md, "Vision runs") with the
    // workspace's analyses — each layer's mean of heads, the rollout, the true region and the perturbation checks
    // when they ran; CSV: the matrix on screen.
    QStringList dataFormats() const override;
    bool exportData(const QString &path, QString *error) const override;

    void setModelFolder(const QString &folder);
    void setImage(const QString &path);
    void setSource(VisionSource source);
    void setHead(int layer, int head);
    void setQuery(int token);           // 0: the CLS token; 1 + p: patch p
    void setView(View view);
    void setPerturbationChecks(bool on);   // occlusion and deletion / insertion curves (runs again)
    bool perturbationChecks() const { return m_request.perturb; }
    void setSubstrate(attn::PatchSubstrate substrate);   // what a removed patch becomes (runs again with the checks on)
    attn::PatchSubstrate substrate() const { return m_request.substrate; }

    QString modelFolder() const { return m_request.folder; }
    QString image() const { return m_request.image; }
    VisionSource source() const { return m_source; }
    int layer() const { return m_layer; }
    int head() const { return m_head; }
    int query() const { return m_query; }
    View view() const { return m_view; }
    std::shared_ptr<const VisionSnapshot> snapshot() const { return m_snapshot; }
    ImageOverlay *overlay() const { return m_overlay; }
    HeatmapPlot *patchMap() const { return m_plot; }
    XYPlot *deletionPlot() const { return m_deletion; }
    XYPlot *insertionPlot() const { return m_insertion; }
    QString perturbationText() const;      // the AUC table (rich text); empty without the checks
    QString predictionText() const;
    // The true region's patches of the image on screen, when it is one of the sample's examples with a mask.
    std::vector<std::uint8_t> truthPatches() const;

protected:
    void submit() override;
    bool onResult(const SnapshotPtr &snapshot) override;
    bool hasResult() const override { return m_snapshot != nullptr; }
    void onModelChanged() override;
    void onTextChanged() override {}

private:
    void buildUi();
    void fillModels();
    void fillExamples();
    void syncControls();
    void refreshViews();
    int shownLayer() const;
    QString sourceText() const;         // "L2 H1", "L2, mean of heads", "rollout"

    VisionRequest m_request;
    std::shared_ptr<const VisionSnapshot> m_snapshot;
    ColorMap m_colorMap = ColorMap::Viridis;
    VisionSource m_source = VisionSource::Mean;
    int m_layer = -1;   // −1: the last layer, until chosen
    int m_head = 0;
    int m_query = 0;
    double m_opacity = 0.6;
    View m_view = View::Both;
    struct Example {
        QString image, mask, label, hint;
    };
    QList<Example> m_examples;

    QComboBox *m_model = nullptr;
    QLabel *m_imageLabel = nullptr;
    QComboBox *m_exampleBox = nullptr;
    QLabel *m_hint = nullptr;
    QComboBox *m_sourceBox = nullptr;
    QSpinBox *m_layerBox = nullptr;
    QComboBox *m_headBox = nullptr;
    QLabel *m_queryLabel = nullptr;
    QPushButton *m_clsButton = nullptr;
    QSlider *m_opacitySlider = nullptr;
    QComboBox *m_viewBox = nullptr;
    QLabel *m_predictions = nullptr;
    QCheckBox *m_perturb = nullptr;
    QComboBox *m_substrateBox = nullptr;
    QLabel *m_aucTable = nullptr;
    QWidget *m_curves = nullptr;
    XYPlot *m_deletion = nullptr;
    XYPlot *m_insertion = nullptr;
    QWidget *m_page = nullptr;
    ImageOverlay *m_overlay = nullptr;
    HeatmapPlot *m_plot = nullptr;
};

} // namespace attnui
