// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/vision/visionview.h"

#include "workspaces/vision/imageoverlay.h"

#include "kit/numbering.h"
#include "kit/ownmodels.h"
#include "kit/stateio.h"
#include "plots/heatmapplot.h"
#include "plots/xyplot.h"

#include <attnscope/textmodel.h>
#include <attnscope/visionexport.h>

#include "kit/dataexport.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSlider>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <algorithm>

namespace attnui {

namespace {

constexpr int kDebounceMs = 200;
constexpr int kControlsWidth = 300;

const QStringList kSourceNames{QStringLiteral("head"), QStringLiteral("mean"), QStringLiteral("rollout"),
                               QStringLiteral("occlusion")};
const QStringList kViewNames{QStringLiteral("both"), QStringLiteral("overlay"), QStringLiteral("patches")};



// The same file however it was named (relative on the command line, absolute from examples.json).
bool samePath(const QString &a, const QString &b)
{
    if (a == b) return true;
    const QString ca = QFileInfo(a).canonicalFilePath();
    return !ca.isEmpty() && ca == QFileInfo(b).canonicalFilePath();
}

} // namespace

VisionView::VisionView(Subject *subject, QWidget *parent)
    : Workspace(subject, QStringLiteral("vision"), {.debounceMs = kDebounceMs}, parent)
{
    buildUi();
    if (!subject->model() && attn::isVitFolder(specFolder(subject->modelSpec()).toStdString())) onModelChanged();
    else if (const QString spec = firstSampleSpec([](const attn::SampleModelInfo &s) { return s.vision; }); !spec.isEmpty()) setModelFolder(spec);
}

VisionView::~VisionView() = default;

void VisionView::buildUi()
{
    auto *controls = new QWidget;
    auto *form = new QVBoxLayout(controls);
    form->setContentsMargins(0, 0, 0, 0);
    const auto heading = [form](const QString &text) { addHeading(form, text); };

    m_model = addModelRow(form, this,
                          tr("Open a Vision Transformer folder (config.json with model_type \"vit\" or \"deit\", model.safetensors, "
                             "preprocessor_config.json)"),
                          tr("Open a Vision Transformer folder"), [this](const QString &spec) { setModelFolder(spec); });

    heading(tr("Image"));
    auto *imageRow = new QHBoxLayout;
    m_imageLabel = new QLabel;
    m_imageLabel->setTextFormat(Qt::PlainText);
    m_imageLabel->setMinimumWidth(60);
    imageRow->addWidget(m_imageLabel, 1);
    auto *openImage = new QPushButton(tr("Open…"));
    openImage->setToolTip(tr("Open an image (PNG, JPEG, BMP, …); it is resized and normalized as the model's "
                             "preprocessor_config.json says. You can also drop an image on the window."));
    connect(openImage, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, tr("Open an image"), QString(),
                                                          tr("Images (*.png *.jpg *.jpeg *.bmp *.gif *.ppm *.pgm)"));
        if (!file.isEmpty()) setImage(file);
    });
    imageRow->addWidget(openImage);
    form->addLayout(imageRow);
    m_exampleBox = new QComboBox;
    m_exampleBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_exampleBox->setToolTip(tr("Images from the model's card, with their true region"));
    connect(m_exampleBox, &QComboBox::activated, this, [this](int i) {
        if (i > 0 && i <= m_examples.size()) setImage(m_examples[i - 1].image);
    });
    form->addWidget(m_exampleBox);
    m_hint = new QLabel;
    m_hint->setWordWrap(true);
    m_hint->setTextFormat(Qt::PlainText);
    form->addWidget(m_hint);

    heading(tr("Attention"));
    auto *grid = new QFormLayout;
    m_sourceBox = new QComboBox;
    m_sourceBox->addItem(tr("one head"), int(VisionSource::Head));
    m_sourceBox->addItem(tr("mean of the layer's heads"), int(VisionSource::Mean));
    m_sourceBox->addItem(tr("rollout (every layer)"), int(VisionSource::Rollout));
    m_sourceBox->addItem(tr("occlusion (perturbation checks)"), int(VisionSource::Occlusion));
    m_sourceBox->setToolTip(tr("Rollout multiplies the layers' head-averaged attention, each mixed half and half with "
                               "the identity for the residual stream (Abnar & Zuidema 2020)."));
    connect(m_sourceBox, &QComboBox::activated, this, [this] { setSource(VisionSource(m_sourceBox->currentData().toInt())); });
    grid->addRow(tr("Show"), m_sourceBox);
    m_layerBox = makeIndexSpinBox(tr("layer "));
    connect(m_layerBox, &QSpinBox::valueChanged, this, [this](int v) { setHead(v, m_head); });
    grid->addRow(tr("Layer"), m_layerBox);
    m_headBox = new QComboBox;
    connect(m_headBox, &QComboBox::activated, this, [this] { setHead(m_layer < 0 ? shownLayer() : m_layer, m_headBox->currentData().toInt()); });
    grid->addRow(tr("Head"), m_headBox);
    auto *queryRow = new QHBoxLayout;
    m_queryLabel = new QLabel;
    queryRow->addWidget(m_queryLabel, 1);
    m_clsButton = new QPushButton(tr("CLS"));
    m_clsButton->setToolTip(tr("Back to the CLS token's attention (the token the classifier reads)"));
    connect(m_clsButton, &QPushButton::clicked, this, [this] { setQuery(0); });
    queryRow->addWidget(m_clsButton);
    grid->addRow(tr("Query"), queryRow);
    m_opacitySlider = new QSlider(Qt::Horizontal);
    m_opacitySlider->setRange(0, 100);
    m_opacitySlider->setValue(int(std::lround(m_opacity * 100)));
    m_opacitySlider->setToolTip(tr("How strongly the map tints the image"));
    connect(m_opacitySlider, &QSlider::valueChanged, this, [this](int v) {
        m_opacity = v / 100.0;
        m_overlay->setOpacity(m_opacity);
    });
    grid->addRow(tr("Opacity"), m_opacitySlider);
    m_viewBox = new QComboBox;
    m_viewBox->addItem(tr("image and patch map"), int(View::Both));
    m_viewBox->addItem(tr("image only"), int(View::Overlay));
    m_viewBox->addItem(tr("patch map only"), int(View::Patches));
    connect(m_viewBox, &QComboBox::activated, this, [this] { setView(View(m_viewBox->currentData().toInt())); });
    grid->addRow(tr("Figure"), m_viewBox);
    form->addLayout(grid);

    heading(tr("Prediction"));
    m_predictions = new QLabel;
    m_predictions->setWordWrap(true);
    m_predictions->setTextFormat(Qt::RichText);
    form->addWidget(m_predictions);

    heading(tr("Faithfulness"));
    m_perturb = new QCheckBox(tr("Perturbation checks"));
    m_perturb->setToolTip(tr("Remove patches (replace them by the substrate below) and watch the predicted class's "
                             "probability: occlusion removes one patch at a time; the deletion and insertion curves "
                             "remove or add patches in the order each map ranks them, beside random orders. One "
                             "forward pass per point."));
    connect(m_perturb, &QCheckBox::toggled, this, &VisionView::setPerturbationChecks);
    form->addWidget(m_perturb);
    {
        auto *row = new QHBoxLayout;
        auto *label = new QLabel(tr("Removed patch"));
        m_substrateBox = new QComboBox;
        m_substrateBox->addItem(tr("mean colour"), int(attn::PatchSubstrate::Fill));
        m_substrateBox->addItem(tr("blurred image"), int(attn::PatchSubstrate::Blur));
        m_substrateBox->setItemData(0, tr("Every pixel of a removed patch becomes 0, the dataset's mean colour after "
                                          "normalization (RISE's deletion substrate)"), Qt::ToolTipRole);
        m_substrateBox->setItemData(1, tr("A removed patch takes the pixels of a Gaussian-blurred copy of the image "
                                          "(σ = 5 px, 11 taps; RISE's insertion substrate): its coarse colour stays, "
                                          "its detail goes"), Qt::ToolTipRole);
        label->setBuddy(m_substrateBox);
        row->addWidget(label);
        row->addWidget(m_substrateBox, 1);
        form->addLayout(row);
        connect(m_substrateBox, &QComboBox::activated, this,
                [this](int i) { setSubstrate(attn::PatchSubstrate(m_substrateBox->itemData(i).toInt())); });
    }
    m_aucTable = new QLabel;
    m_aucTable->setWordWrap(true);
    m_aucTable->setTextFormat(Qt::RichText);
    form->addWidget(m_aucTable);
    form->addStretch(1);

    m_page = new QWidget;
    auto *pageLayout = new QHBoxLayout(m_page);
    pageLayout->setContentsMargins(0, 0, 0, 0);
    m_overlay = new ImageOverlay;
    m_overlay->setOpacity(m_opacity);
    connect(m_overlay, &ImageOverlay::patchClicked, this,
            [this](int patch) { setQuery((m_snapshot ? m_snapshot->special : 1) + patch); });
    m_plot = new HeatmapPlot;
    m_plot->setValueLabel(tr("attention weight"));
    // A row of the map is a query: clicking it shows that token's attention over the image.
    connect(m_plot, &HeatmapPlot::cellClicked, this, [this](int row, int) { setQuery(row); });
    // Under the picture, with the checks on: the deletion and insertion curves.
    auto *left = new QWidget;
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_overlay, 3);
    m_curves = new QWidget;
    auto *curvesLayout = new QHBoxLayout(m_curves);
    curvesLayout->setContentsMargins(0, 0, 0, 0);
    m_deletion = new XYPlot;
    m_deletion->setTitle(tr("Deletion: most relevant patches removed first (lower is better)"));
    m_deletion->setAxisLabels(tr("fraction of patches removed"), tr("p(predicted class)"));
    m_insertion = new XYPlot;
    m_insertion->setTitle(tr("Insertion: most relevant patches put back first (higher is better)"));
    m_insertion->setAxisLabels(tr("fraction of patches present"), tr("p(predicted class)"));
    for (XYPlot *plot : {m_deletion, m_insertion}) {
        plot->setYRange(0.0, 1.0);
        plot->setMinimumHeight(220);
        curvesLayout->addWidget(plot);
    }
    m_curves->hide();
    leftLayout->addWidget(m_curves, 3);
    pageLayout->addWidget(left, 3);
    pageLayout->addWidget(m_plot, 2);

    makeControlsPage(controls, m_page, kControlsWidth);
    fillModels();
    syncControls();
    refreshExplanation();
}

void VisionView::fillModels()
{
    fillSampleModels(m_model, [](const attn::SampleModelInfo &s) { return s.vision; }, m_request.folder,
                     visionModelName(m_request.folder));
}

void VisionView::fillExamples()
{
    // examples.json of the folder: [{"image", "mask", "label_name", "what_to_look_for"}], paths relative to it.
    m_examples.clear();
    const QString folder = specFolder(m_request.folder);
    QFile f(QDir(folder).filePath(QStringLiteral("examples.json")));
    if (!folder.isEmpty() && f.open(QIODevice::ReadOnly)) {
        const QJsonArray list = QJsonDocument::fromJson(f.readAll()).array();
        for (const QJsonValue &v : list) {
            const QJsonObject o = v.toObject();
            const QString image = o.value(QStringLiteral("image")).toString();
            if (image.isEmpty()) continue;
            const QString mask = o.value(QStringLiteral("mask")).toString();
            m_examples.append({QDir(folder).filePath(image), mask.isEmpty() ? QString() : QDir(folder).filePath(mask),
                               o.value(QStringLiteral("label_name")).toString(),
                               o.value(QStringLiteral("what_to_look_for")).toString()});
        }
    }
    const QSignalBlocker block(m_exampleBox);
    m_exampleBox->clear();
    m_exampleBox->addItem(m_examples.isEmpty() ? tr("(no example images in this folder)") : tr("Examples from the card…"));
    for (const Example &e : m_examples) {
        m_exampleBox->addItem(e.label.isEmpty() ? QFileInfo(e.image).fileName()
                                                : tr("%1 (%2)").arg(QFileInfo(e.image).fileName(), e.label));
        m_exampleBox->setItemData(m_exampleBox->count() - 1, e.hint, Qt::ToolTipRole);
    }
}

QString VisionView::guide() const
{
    return tr("<p><b>Vision</b> shows a Vision Transformer's attention on an image. The image is cut into square "
              "patches; each patch becomes a token, after a special CLS token whose final state the classifier "
              "reads. Attention works between these tokens exactly as between words.</p>"
              "<p>The image on the left is tinted by the attention of the CLS token (or of the patch you click) over "
              "the patches: one head, the mean of a layer's heads, or the <i>rollout</i>, which follows attention "
              "through every layer (each layer mixed with the identity for the residual stream). The map on the "
              "right is the whole [tokens × tokens] matrix: row 0 is the CLS token, column 0 its key.</p>"
              "<p>Try: the bundled sample's examples. The class is decided by one cross-shaped object (its patches "
              "outlined dashed); see which heads, and whether the rollout, point at it — attention is a hint, not "
              "an explanation (the model card scores each against the truth).</p>");
}

QString VisionView::explanation() const
{
    return tr("Each patch of the image is a token; the tint is how much the query token (the CLS token, or a patch you "
              "click) attends to it. The map on the right holds the same attention for every token; click a row to "
              "make it the query.");
}

void VisionView::setModelFolder(const QString &folder)
{
    if (folder == m_request.folder && m_request.model) return;
    // An image of one's own stays; the previous model's example (or none) gives way to this model's first example.
    const bool ownImage = !m_request.image.isEmpty() &&
                          std::none_of(m_examples.begin(), m_examples.end(), [&](const Example &e) { return samePath(e.image, m_request.image); });
    m_request.folder = folder;
    m_request.model.reset();
    fillExamples();
    if (!ownImage && !m_examples.isEmpty()) m_request.image = m_examples.first().image;
    fillModels();
    syncControls();
    scheduleRun();
}

void VisionView::setImage(const QString &path)
{
    m_request.image = path;
    m_query = 0;
    syncControls();
    scheduleRun();
}

void VisionView::setSource(VisionSource source)
{
    m_source = source;
    syncControls();
    refreshViews();
    emit figureChanged();
}

void VisionView::setHead(int layer, int head)
{
    if (layer == m_layer && head == m_head) return;
    m_layer = layer;
    m_head = std::max(0, head);
    syncControls();
    refreshViews();
    emit figureChanged();
}

void VisionView::setQuery(int token)
{
    const int length = m_snapshot ? m_snapshot->length : 1 << 20;
    token = std::clamp(token, 0, std::max(0, length - 1));
    if (token == m_query) return;
    m_query = token;
    syncControls();
    refreshViews();
    emit figureChanged();
}

void VisionView::setPerturbationChecks(bool on)
{
    if (on == m_request.perturb) return;
    m_request.perturb = on;
    if (!on && m_source == VisionSource::Occlusion) m_source = VisionSource::Mean;
    syncControls();
    scheduleRun();
}

void VisionView::setSubstrate(attn::PatchSubstrate substrate)
{
    if (substrate == m_request.substrate) return;
    m_request.substrate = substrate;
    syncControls();
    if (m_request.perturb) scheduleRun();
}

void VisionView::setView(View view)
{
    m_view = view;
    syncControls();
    refreshViews();
    emit figureChanged();
}

int VisionView::shownLayer() const
{
    const int layers = m_snapshot ? m_snapshot->layers : 0;
    if (layers <= 0) return std::max(0, m_layer);
    return m_layer < 0 ? layers - 1 : std::min(m_layer, layers - 1);
}

void VisionView::onModelChanged()
{
    // attnscope-cli figure on a ViT: the Subject names the folder (no text model) and its text is the image path.
    if (!subject()->model() && attn::isVitFolder(specFolder(subject()->modelSpec()).toStdString())) {
        m_request.image = subject()->text();
        setModelFolder(subject()->modelSpec());
    }
}

void VisionView::submit()
{
    if (m_request.folder.isEmpty()) {
        showError(tr("No Vision Transformer: this build has no sample of that kind; open a ViT folder (Open…)."));
        return;
    }
    if (m_request.image.isEmpty()) {
        showError(tr("Open an image (Open…, or drop one on the window)."));
        return;
    }
    VisionRequest request = m_request;
    request.backend = subject()->backend();
    // A card example brings its mask: the job reads it for the true region.
    const auto e = std::find_if(m_examples.begin(), m_examples.end(), [&](const Example &x) { return samePath(x.image, request.image); });
    request.mask = e == m_examples.end() ? QString() : e->mask;
    runner()->submit([request](const JobContext &ctx) { return runVisionJob(request, ctx); });
}

bool VisionView::onResult(const SnapshotPtr &snapshot)
{
    auto snap = snapshotAs<VisionSnapshot>(snapshot);
    if (!snap) return false;
    m_snapshot = snap;
    if (snap->request.folder == m_request.folder) m_request.model = snap->model;   // opened once, run many times
    m_query = std::clamp(m_query, 0, std::max(0, snap->length - 1));
    hideError();
    syncControls();
    refreshViews();
    return true;
}

QString VisionView::sourceText() const
{
    switch (m_source) {
    case VisionSource::Occlusion: return tr("occlusion");
    case VisionSource::Rollout: return tr("rollout through %n layers", nullptr, m_snapshot ? m_snapshot->layers : 0);
    case VisionSource::Mean: return tr("L%1, mean of heads").arg(shownLayer());
    case VisionSource::Head: break;
    }
    return headName(shownLayer(), m_head);
}

std::vector<std::uint8_t> VisionView::truthPatches() const
{
    return m_snapshot ? m_snapshot->truth : std::vector<std::uint8_t>{};
}

void VisionView::syncControls()
{
    const QSignalBlocker b1(m_sourceBox), b2(m_layerBox), b3(m_headBox), b4(m_opacitySlider), b5(m_viewBox), b6(m_exampleBox);
    m_imageLabel->setText(m_request.image.isEmpty() ? tr("(none)") : QFileInfo(m_request.image).fileName());
    m_imageLabel->setToolTip(m_request.image);
    m_sourceBox->setCurrentIndex(m_sourceBox->findData(int(m_source)));
    m_viewBox->setCurrentIndex(m_viewBox->findData(int(m_view)));
    m_opacitySlider->setValue(int(std::lround(m_opacity * 100)));
    const int heads = m_snapshot ? m_snapshot->heads : 0;
    if (m_headBox->count() != heads) {
        m_headBox->clear();
        for (int h = 0; h < heads; ++h) m_headBox->addItem(tr("head %1").arg(h), h);
    }
    m_headBox->setCurrentIndex(std::max(0, m_headBox->findData(std::min(m_head, std::max(0, heads - 1)))));
    m_headBox->setEnabled(m_source == VisionSource::Head);
    m_layerBox->setEnabled(m_source == VisionSource::Head || m_source == VisionSource::Mean);
    {
        const QSignalBlocker b7(m_perturb);
        m_perturb->setChecked(m_request.perturb);
        const QSignalBlocker b8(m_substrateBox);
        m_substrateBox->setCurrentIndex(m_substrateBox->findData(int(m_request.substrate)));
        m_substrateBox->setEnabled(m_request.perturb);
    }
    // Occlusion is there once the checks have run on a classifier.
    if (auto *model = qobject_cast<QStandardItemModel *>(m_sourceBox->model()))
        model->item(m_sourceBox->findData(int(VisionSource::Occlusion)))->setEnabled(m_snapshot && m_snapshot->perturbation);
    m_aucTable->setText(perturbationText());
    m_aucTable->setVisible(!m_aucTable->text().isEmpty());
    if (m_snapshot) {
        setIndexCount(m_layerBox, m_snapshot->layers);
        setIndex(m_layerBox, shownLayer());
    }
    const int special = m_snapshot ? m_snapshot->special : 1;
    m_queryLabel->setText(m_query == 0        ? tr("the CLS token (0)")
                          : !m_snapshot        ? tr("token %1").arg(m_query)
                          : m_query < special  ? tr("the DIST token (1)")
                                               : tr("%1 (token %2)").arg(m_snapshot->queryText(m_query)).arg(m_query));
    m_queryLabel->setToolTip(m_query > 0 && m_query < special ? tr("DeiT's distillation token") : QString());
    m_clsButton->setEnabled(m_query != 0);
    const auto e = std::find_if(m_examples.begin(), m_examples.end(), [&](const Example &x) { return samePath(x.image, m_request.image); });
    m_exampleBox->setCurrentIndex(e == m_examples.end() ? 0 : int(e - m_examples.begin()) + 1);
    m_hint->setText(e == m_examples.end() ? QString() : e->hint);
    m_hint->setVisible(!m_hint->text().isEmpty());
    m_predictions->setText(predictionText());
}

QString VisionView::predictionText() const
{
    if (!m_snapshot) return {};
    const VisionSnapshot &s = *m_snapshot;
    QString text = tr("%1 × %2 pixels → %3 × %4 patches + %5 = %6 tokens%7.")
                       .arg(s.input.width()).arg(s.input.height()).arg(s.rows).arg(s.cols)
                       .arg(s.special == 2 ? tr("CLS + DIST") : tr("CLS")).arg(s.length)
                       .arg(s.interpolated ? tr(" (positions interpolated)") : QString());
    if (s.model && s.model->config().teacher)
        text += tr("<br>Two heads (on CLS and DIST), averaged:");
    if (s.top.empty()) return text + tr("<br>This model has no classifier.");
    text += QStringLiteral("<table cellspacing=3>");
    for (const auto &p : s.top)
        text += QStringLiteral("<tr><td>%1</td><td align=right>%2 %</td></tr>")
                    .arg(p.label.toHtmlEscaped()).arg(100.0 * p.probability, 0, 'f', 1);
    return text + QStringLiteral("</table>");
}

QString VisionView::perturbationText() const
{
    if (!m_snapshot || !m_snapshot->perturbation) return {};
    const attn::VitPerturbation &p = *m_snapshot->perturbation;
    QString t = tr("Removing patches (%1) from p = %2 for %3; %4 forward passes, %5 patch(es) per point.")
                    .arg(p.substrate == attn::PatchSubstrate::Blur ? tr("blurred image") : tr("mean colour"))
                    .arg(p.probability, 0, 'f', 3).arg(m_snapshot->top.empty() ? QString() : m_snapshot->top.front().label.toHtmlEscaped())
                    .arg(p.forwards).arg(p.step);
    t += QStringLiteral("<table cellspacing=3><tr><th align=left>%1</th><th>%2</th><th>%3</th></tr>")
             .arg(tr("ranking"), tr("deletion AUC ↓"), tr("insertion AUC ↑"));
    for (const auto &m : p.methods)
        t += QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td></tr>")
                 .arg(QString::fromStdString(m.name).toHtmlEscaped())
                 .arg(m.curves.aucDeletion, 0, 'f', 3).arg(m.curves.aucInsertion, 0, 'f', 3);
    return t + QStringLiteral("</table>");
}

void VisionView::refreshViews()
{
    m_overlay->setVisible(m_view != View::Patches);
    m_plot->setVisible(m_view != View::Overlay);
    if (!m_snapshot) return;
    const VisionSnapshot &s = *m_snapshot;
    const int layer = shownLayer();
    const bool occlusion = m_source == VisionSource::Occlusion && s.perturbation;
    const QString query = s.queryText(m_query);
    ImageOverlay::Data d;
    d.image = s.input;
    d.rows = s.rows;
    d.cols = s.cols;
    d.values = s.patchRow(occlusion ? VisionSource::Occlusion : m_source == VisionSource::Occlusion ? VisionSource::Mean : m_source,
                          layer, m_head, m_query);
    d.title = tr("%1: attention of %2 over the patches").arg(sourceText(), query);
    d.valueLabel = m_source == VisionSource::Rollout ? tr("rollout relevance") : tr("attention weight");
    d.query = m_query >= s.special ? m_query - s.special : -1;
    if (occlusion) {
        // A patch whose removal raises the probability is drawn as 0 (its drop is negative).
        for (double &v : d.values) v = std::max(0.0, v);
        d.title = tr("occlusion: the drop of p(%1) when a patch is removed").arg(s.top.empty() ? QString() : s.top.front().label);
        d.valueLabel = tr("probability drop");
        d.query = -1;
    }
    d.truth = truthPatches();
    m_overlay->setColorMap(m_colorMap);
    m_overlay->setData(std::move(d));

    m_curves->setVisible(s.perturbation.has_value() && m_view != View::Patches);
    if (s.perturbation) {
        QList<XYSeries> deletion, insertion;
        const int points = int(s.perturbation->methods.front().curves.deletion.size());
        std::vector<double> x(static_cast<std::size_t>(points));
        for (int i = 0; i < points; ++i) x[std::size_t(i)] = std::min(1.0, double(i * s.perturbation->step) / s.perturbation->patches);
        for (const auto &m : s.perturbation->methods) {
            const QString name = QString::fromStdString(m.name);
            // The AUCs are in the table beside; short names keep the legend from eating the plot.
            // The random baseline dashed, so it never reads as one of the maps.
            const Qt::PenStyle style = m.name == "random" ? Qt::DashLine : Qt::SolidLine;
            deletion.append({name, x, m.curves.deletion, {}, style});
            insertion.append({name, x, m.curves.insertion, {}, style});
        }
        m_deletion->setColorMap(m_colorMap);
        m_insertion->setColorMap(m_colorMap);
        m_deletion->setLines(deletion);
        m_insertion->setLines(insertion);
    }

    HeatmapData h;
    if (occlusion) {
        // Occlusion has no token × token matrix: its drops on the patch grid.
        h.rows = s.rows;
        h.cols = s.cols;
        h.values.assign(s.perturbation->occlusion.begin(), s.perturbation->occlusion.end());
        for (int r = 0; r < s.rows; ++r) h.rowLabels << tr("row %1").arg(r);
        for (int c = 0; c < s.cols; ++c) h.colLabels << tr("col %1").arg(c);
        m_plot->setColorMap(m_colorMap);
        m_plot->setTitle(tr("occlusion by patch (drop of the predicted class's probability)"));
        m_plot->setAxisTitles(tr("patch row"), tr("patch column"));
        m_plot->setValueLabel(tr("probability drop"));
        m_plot->setData(std::move(h));
        return;
    }
    h.rows = h.cols = s.length;
    const std::vector<double> m = s.matrix(m_source, layer, m_head);
    h.values.assign(m.begin(), m.end());
    h.rowLabels = h.colLabels = s.tokenLabels();
    m_plot->setColorMap(m_colorMap);
    m_plot->setTitle(s.special == 2 ? tr("%1, every token (0: CLS; 1: DIST; r·c: patches)").arg(sourceText())
                                    : tr("%1, every token (0: CLS; r·c: patches)").arg(sourceText()));
    m_plot->setAxisTitles(tr("query token"), tr("key token"));
    m_plot->setValueLabel(m_source == VisionSource::Rollout ? tr("rollout relevance") : tr("attention weight"));
    m_plot->setData(std::move(h));
}

QWidget *VisionView::figureWidget() const
{
    if (!m_snapshot) return nullptr;
    switch (m_view) {
    case View::Overlay: return m_overlay;
    case View::Patches: return m_plot;
    case View::Both: break;
    }
    return m_page;
}

HeatmapPlot *VisionView::currentFigure() const { return m_view == View::Overlay ? nullptr : m_plot; }

FigureLayout VisionView::figureLayout() const
{
    FigureLayout l;
    switch (m_view) {
    case View::Overlay:
        l.size = m_overlay->figureSize();
        l.minAspect = 0.8;
        l.maxAspect = 1.8;
        break;
    case View::Patches:
        l.size = m_plot->figureSize();
        l.minAspect = 0.6;
        l.maxAspect = 1.8;
        break;
    case View::Both: {
        const QSize a = m_overlay->figureSize(), b = m_plot->figureSize(36, 520);
        l.size = QSize(a.width() + b.width(), std::max(a.height(), b.height()));
        l.minAspect = 1.2;
        l.maxAspect = 3.0;
        break;
    }
    }
    return l;
}

QString VisionView::figureCaption() const
{
    if (!m_snapshot) return {};
    const VisionSnapshot &s = *m_snapshot;
    const QString query = s.queryText(m_query, false);
    QString caption = tr("%1 · %2 (%3 × %4 patches) · %5")
                          .arg(visionModelName(s.request.folder), QFileInfo(s.request.image).fileName())
                          .arg(s.rows).arg(s.cols).arg(sourceText());
    if (m_view != View::Patches && m_source != VisionSource::Occlusion) caption += tr(" · query %1").arg(query);   // the map has every query
    if (!s.top.empty()) caption += tr(" · predicted %1 (%2 %)").arg(s.top.front().label).arg(100.0 * s.top.front().probability, 0, 'f', 1);
    if (m_view != View::Patches && !truthPatches().empty()) caption += tr(" · dashed: the true region (the example's mask)");
    return caption;
}

void VisionView::setColorMap(ColorMap map)
{
    m_colorMap = map;
    refreshViews();
}

QStringList VisionView::dataFormats() const
{
    if (!m_snapshot) return {};
    QStringList formats{tr("JSON, as attnscope-cli run --image writes it, with this workspace's analyses (*.json)")};
    return formats + Workspace::dataFormats();
}

namespace {

QJsonArray numbers(const std::vector<double> &v)
{
    QJsonArray a;
    for (double x : v) a.append(x);
    return a;
}

QJsonArray matrixRows(const std::vector<double> &m, int n)
{
    QJsonArray rows;
    for (int i = 0; i < n; ++i)
        rows.append(numbers(std::vector<double>(m.begin() + std::ptrdiff_t(i) * n, m.begin() + std::ptrdiff_t(i + 1) * n)));
    return rows;
}

} // namespace

bool VisionView::exportData(const QString &path, QString *error) const
{
    if (!m_snapshot || !path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)) return Workspace::exportData(path, error);
    const VisionSnapshot &s = *m_snapshot;
    QJsonObject analyses;
    QJsonArray means;
    for (const std::vector<double> &m : s.means) means.append(matrixRows(m, s.length));
    analyses.insert(QStringLiteral("layer_means"), QJsonObject{{QStringLiteral("head_fusion"), QStringLiteral("mean")},
                                                               {QStringLiteral("matrices"), means}});
    analyses.insert(QStringLiteral("rollout"), QJsonObject{{QStringLiteral("head_fusion"), QStringLiteral("mean")},
                                                           {QStringLiteral("residual"), true},
                                                           {QStringLiteral("matrix"), matrixRows(s.rollout, s.length)}});
    if (const std::vector<std::uint8_t> truth = truthPatches(); !truth.empty()) {
        QJsonArray patches;
        for (std::size_t p = 0; p < truth.size(); ++p)
            if (truth[p]) patches.append(int(p));
        analyses.insert(QStringLiteral("true_region"), QJsonObject{{QStringLiteral("mask"), s.request.mask},
                                                                   {QStringLiteral("min_fraction"), 0.25},
                                                                   {QStringLiteral("patches"), patches}});
    }
    if (s.perturbation) {
        const attn::VitPerturbation &p = *s.perturbation;
        QJsonArray methods;
        for (const auto &m : p.methods)
            methods.append(QJsonObject{{QStringLiteral("name"), QString::fromStdString(m.name)},
                                       {QStringLiteral("relevance"), m.relevance.empty() ? QJsonValue() : QJsonValue(numbers(m.relevance))},
                                       {QStringLiteral("deletion"), numbers(m.curves.deletion)},
                                       {QStringLiteral("insertion"), numbers(m.curves.insertion)},
                                       {QStringLiteral("auc_deletion"), m.curves.aucDeletion},
                                       {QStringLiteral("auc_insertion"), m.curves.aucInsertion}});
        analyses.insert(QStringLiteral("perturbation"),
                        QJsonObject{{QStringLiteral("substrate"), QString::fromStdString(attn::substrateName(p.substrate))},
                                    {QStringLiteral("fill"), p.substrate == attn::PatchSubstrate::Fill ? QJsonValue(p.fill) : QJsonValue()},
                                    {QStringLiteral("blur"), p.substrate == attn::PatchSubstrate::Blur
                                                                 ? QJsonValue(QJsonObject{{QStringLiteral("sigma"), p.blurSigma},
                                                                                          {QStringLiteral("radius"), p.blurRadius}})
                                                                 : QJsonValue()},
                                    {QStringLiteral("target"), p.target},
                                    {QStringLiteral("probability"), p.probability},
                                    {QStringLiteral("step"), p.step},
                                    {QStringLiteral("random_seeds"), p.randomSeeds},
                                    {QStringLiteral("forwards"), p.forwards},
                                    {QStringLiteral("occlusion"), numbers(p.occlusion)},
                                    {QStringLiteral("methods"), methods}});
    }
    attn::VisionRunInfo info;
    info.image = s.request.image.toStdString();
    info.imageWidth = s.imageWidth;
    info.imageHeight = s.imageHeight;
    info.interpolatePositions = s.interpolated;
    const std::string json = attn::visionRunJson(*s.model, info, s.pixels, s.result,
                                                 QJsonDocument(analyses).toJson(QJsonDocument::Compact).toStdString());
    return writeTextFile(json, path, error);
}

QJsonObject VisionView::sessionState() const
{
    QJsonObject state{{QStringLiteral("model"), m_request.folder},
                      {QStringLiteral("image"), m_request.image},
                      {QStringLiteral("source"), kSourceNames[int(m_source)]},
                      {QStringLiteral("head"), m_head},
                      {QStringLiteral("query"), m_query},
                      {QStringLiteral("opacity"), m_opacity},
                      {QStringLiteral("view"), kViewNames[int(m_view)]},
                      {QStringLiteral("perturb"), m_request.perturb},
                      {QStringLiteral("substrate"), QString::fromStdString(attn::substrateName(m_request.substrate))}};
    if (m_layer >= 0) state.insert(QStringLiteral("layer"), m_layer);   // absent: the last layer
    return state;
}

bool VisionView::restoreSessionState(const QJsonObject &state, QString *error)
{
    StateReader in(state, {QStringLiteral("model"), QStringLiteral("image"), QStringLiteral("source"), QStringLiteral("layer"),
                           QStringLiteral("head"), QStringLiteral("query"), QStringLiteral("opacity"), QStringLiteral("view"),
                           QStringLiteral("perturb"), QStringLiteral("substrate")});
    QString folder = m_request.folder, image = m_request.image;
    QString sourceName = kSourceNames[int(m_source)], viewName = kViewNames[int(m_view)];
    int layer = m_layer, head = m_head, query = m_query;
    double opacity = m_opacity;
    bool perturb = m_request.perturb;
    in.boolean(QStringLiteral("perturb"), perturb);
    const QStringList substrates{QStringLiteral("fill"), QStringLiteral("blur")};
    QString substrateName = substrates[int(m_request.substrate)];
    in.choice(QStringLiteral("substrate"), substrates, substrateName);
    in.string(QStringLiteral("model"), folder, 4096).string(QStringLiteral("image"), image, 4096);
    in.choice(QStringLiteral("source"), kSourceNames, sourceName).choice(QStringLiteral("view"), kViewNames, viewName);
    in.integer(QStringLiteral("layer"), 0, 4095, layer).integer(QStringLiteral("head"), 0, 4095, head);
    in.integer(QStringLiteral("query"), 0, 1 << 20, query).number(QStringLiteral("opacity"), 0.0, 1.0, opacity);
    if (!in.ok(error)) return false;
    m_source = VisionSource(kSourceNames.indexOf(sourceName));
    m_view = View(kViewNames.indexOf(viewName));
    m_layer = state.contains(QStringLiteral("layer")) ? layer : -1;
    m_head = head;
    m_opacity = opacity;
    m_overlay->setOpacity(opacity);
    m_request.perturb = perturb;
    m_request.substrate = attn::PatchSubstrate(substrates.indexOf(substrateName));
    if (state.contains(QStringLiteral("image"))) m_request.image = image;
    if (folder != m_request.folder) setModelFolder(folder);
    m_query = query;   // after the model: a new folder's first example resets nothing it was given
    syncControls();
    refreshViews();
    rerun();
    return true;
}

bool VisionView::showView(const QString &spec, QString *error)
{
    // overlay:L.H | overlay:L.mean | overlay:rollout, the same with patches.
    static const QRegularExpression re(QStringLiteral("^(overlay|patches):(?:(\\d{1,4})\\.(\\d{1,4}|mean)|(rollout))$"));
    const QRegularExpressionMatch m = re.match(spec);
    if (!m.hasMatch())
        return failWith(error, tr("'%1': expected overlay:L.H, overlay:L.mean, overlay:rollout, patches:L.H, "
                                  "patches:L.mean or patches:rollout").arg(spec));
    VisionSource source = VisionSource::Rollout;
    int layer = m_layer, head = m_head;
    if (m.captured(4).isEmpty()) {
        layer = m.captured(2).toInt();
        source = m.captured(3) == QLatin1String("mean") ? VisionSource::Mean : VisionSource::Head;
        if (source == VisionSource::Head) head = m.captured(3).toInt();
        if (m_snapshot && (layer >= m_snapshot->layers || (source == VisionSource::Head && head >= m_snapshot->heads)))
            return failWith(error, tr("'%1': this model has layers 0..%2 and heads 0..%3")
                                       .arg(spec).arg(m_snapshot->layers - 1).arg(m_snapshot->heads - 1));
    }
    m_source = source;
    m_layer = layer;
    m_head = head;
    m_query = 0;
    setView(m.captured(1) == QLatin1String("overlay") ? View::Overlay : View::Patches);
    return true;
}

} // namespace attnui
