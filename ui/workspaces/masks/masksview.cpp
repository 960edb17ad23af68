// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/masks/masksview.h"

#include "kit/numbering.h"
#include "workspaces/masks/masksbody.h"
#include "plots/heatmapplot.h"
#include "plots/xyplot.h"
#include "runner/enginerunner.h"
#include "runner/workpool.h"
#include "kit/subject.h"

#include <QComboBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <utility>

namespace attnui {

namespace {

constexpr int kDebounceMs = 120;
// The custom-mask editor's cells: big enough to hit with a mouse or touchpad (tst_ui_layout asks 14 px). Its
// matrix grows with the text up to kEditorMaxSide; a longer text is edited zoomed in (wheel), as in every heatmap.
constexpr int kEditorCellPx = 16;
constexpr int kEditorMinSide = 240;
constexpr int kEditorMaxSide = 520;

QString choiceLabel(MaskChoice c)
{
    switch (c) {
    case MaskChoice::Bidirectional: return QObject::tr("Bidirectional");
    case MaskChoice::Causal: return QObject::tr("Causal");
    case MaskChoice::Padding: return QObject::tr("Key padding");
    case MaskChoice::Window: return QObject::tr("Window");
    case MaskChoice::Custom: return QObject::tr("Custom");
    }
    return {};
}

// A small multiple: a 120 px matrix (what tst_ui_layout asks of every heatmap) plus its title, tick labels and
// axis titles, and the colour scale on the last panel of a row.
QSize panelMinimum(bool withScale)
{
    return QSize(withScale ? 264 : 180, 212);
}

// Very small differences print in scientific notation, exact zeros as "0 (exactly)".
QString diffText(double d)
{
    if (d == 0.0) return QObject::tr("0 (exactly)");
    if (d < 1e-3) return QString::number(d, 'e', 2);
    return QString::number(d, 'f', 4);
}

} // namespace

MasksView::MasksView(Subject *subject, QWidget *parent)
    : Workspace(subject, QStringLiteral("masks"), {.debounceMs = kDebounceMs}, parent)
{
    m_request.autoHead = true;
    m_request.choices.assign(std::begin(kAllMaskChoices), std::end(kAllMaskChoices));
    buildUi();
    scheduleRun();
}

void MasksView::onModelChanged()
{
    m_request.autoHead = true;   // a new model: find a head where the masks differ
    m_headChosen = false;
    scheduleRun();
}

MasksView::~MasksView() = default;

void MasksView::buildUi()
{
    QVBoxLayout *outer = makePage();
    refreshExplanation();

    // Controls: the head, which masks, their parameters.
    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Head")));
    m_headCombo = new QComboBox;
    m_headCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_headCombo->setToolTip(tr("The layer and head whose Q, K and V are recomputed under each mask"));
    connect(m_headCombo, &QComboBox::activated, this, [this](int index) {
        const QPoint lh = m_headCombo->itemData(index).toPoint();
        selectHead(lh.x(), lh.y());
    });
    controls->addWidget(m_headCombo);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Masks")));
    for (MaskChoice c : kAllMaskChoices) {
        auto *b = new QToolButton;
        b->setText(choiceLabel(c));
        b->setCheckable(true);
        b->setChecked(true);
        connect(b, &QToolButton::toggled, this, [this] {
            std::vector<MaskChoice> chosen;
            for (int i = 0; i < m_choiceButtons.size(); ++i)
                if (m_choiceButtons[i]->isChecked()) chosen.push_back(kAllMaskChoices[i]);
            m_request.choices = chosen;
            scheduleRun();
        });
        controls->addWidget(b);
        m_choiceButtons << b;
    }
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Window W")));
    m_window = new QSpinBox;
    m_window->setRange(0, 4096);
    m_window->setValue(m_request.window);
    m_window->setToolTip(tr("Sliding window: query i sees keys j with |i − j| ≤ W (and j ≤ i for a causal model)"));
    connect(m_window, &QSpinBox::valueChanged, this, [this](int w) { m_request.window = w; scheduleRun(); });
    controls->addWidget(m_window);
    m_resetCustom = new QPushButton(tr("Reset custom mask"));
    m_resetCustom->setToolTip(tr("Back to causal. Click or drag over the custom panel's cells to allow or block them."));
    connect(m_resetCustom, &QPushButton::clicked, this, &MasksView::resetCustomMask);
    controls->addWidget(m_resetCustom);
    controls->addStretch(1);
    outer->addLayout(controls);

    auto *padRow = new QHBoxLayout;
    auto *padLabel = new QLabel(tr("Padding keys (click):"));
    padLabel->setToolTip(tr("Tokens marked here are treated as padding in the key-padding panel"));
    m_padStrip = new PaddingStrip;
    // Level with the chips, which sit at the top of their scroll area (its scroll bar below them).
    padLabel->setFixedHeight(m_padStrip->sizeHint().height());
    padLabel->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    padRow->addWidget(padLabel, 0, Qt::AlignTop);
    connect(m_padStrip, &PaddingStrip::toggled, this, &MasksView::togglePadding);
    auto *padScroll = new QScrollArea;
    padScroll->setWidget(m_padStrip);
    padScroll->setWidgetResizable(true);
    padScroll->setFrameShape(QFrame::NoFrame);
    padScroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    padScroll->setFixedHeight(m_padStrip->sizeHint().height() + 30);
    padRow->addWidget(padScroll, 1);
    outer->addLayout(padRow);

    // The figure (small multiples, output changes), the custom mask large enough to edit with the mouse and the
    // proofs: arranged by MasksBody for the width at hand. The editor and the proofs are controls and checks, not
    // part of the exported figure (the figure has its own small custom panel).
    m_figure = new QWidget;
    m_editorBox = new QWidget;
    auto *editorLayout = new QVBoxLayout(m_editorBox);
    editorLayout->setContentsMargins(0, 0, 0, 0);
    auto *editorNote = new QLabel(tr("Your mask: press on a cell and drag to allow or block a rectangle of cells "
                                     "(hatched: blocked)."));
    editorNote->setWordWrap(true);
    editorLayout->addWidget(editorNote);
    m_editor = new HeatmapPlot;
    m_editor->setTitle(tr("custom"));
    m_editor->setColorScaleVisible(false);   // the same [0, 1] scale as the panels above, shown there
    m_editor->plotWidget()->installEventFilter(this);
    editorLayout->addWidget(m_editor, 1);
    auto *fig = new QVBoxLayout(m_figure);
    fig->setContentsMargins(0, 0, 0, 0);
    m_grid = new QGridLayout;
    m_grid->setSpacing(4);
    fig->addLayout(m_grid, 5);

    m_deltaPlot = new XYPlot;
    m_deltaPlot->setTitle(tr("Change in the head's output per token vs the model's own mask"));
    m_deltaPlot->setAxisLabels(tr("token (query)"), tr("‖Δ output‖₂"));
    fig->addWidget(m_deltaPlot, 2);

    auto *proofs = new QGroupBox(tr("Does the mask hide what it should? (whole model, final hidden states)"));
    auto *pl = new QVBoxLayout(proofs);
    auto *leakRow = new QHBoxLayout;
    leakRow->addWidget(new QLabel(tr("Replace token j =")));
    m_perturb = new QSpinBox;
    m_perturb->setRange(0, 0);
    connect(m_perturb, &QSpinBox::valueChanged, this, [this](int j) { if (m_request.perturb != j) setPerturbedToken(j); });
    leakRow->addWidget(m_perturb);
    leakRow->addWidget(new QLabel(tr("by id")));
    m_replacement = new QSpinBox;
    m_replacement->setRange(-1, 1 << 24);
    m_replacement->setSpecialValueText(tr("next id"));
    m_replacement->setValue(-1);
    connect(m_replacement, &QSpinBox::valueChanged, this, [this](int id) { m_request.replacement = id; scheduleRun(); });
    leakRow->addWidget(m_replacement);
    leakRow->addStretch(1);
    pl->addLayout(leakRow);
    m_leakText = new QLabel;
    m_leakText->setWordWrap(true);
    m_leakText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    pl->addWidget(m_leakText);
    m_leakPlot = new XYPlot;
    m_leakPlot->setAxisLabels(tr("position i"), tr("max |Δh_i|"));
    m_leakPlot->setMinimumHeight(220);   // legend, ticks and labels around 80+ px of bars (tst_ui_layout)
    pl->addWidget(m_leakPlot, 1);
    auto *padProofRow = new QHBoxLayout;
    padProofRow->addWidget(new QLabel(tr("Append")));
    m_pads = new QSpinBox;
    m_pads->setRange(1, 64);
    m_pads->setValue(m_request.pads);
    connect(m_pads, &QSpinBox::valueChanged, this, [this](int n) { m_request.pads = n; scheduleRun(); });
    padProofRow->addWidget(m_pads);
    padProofRow->addWidget(new QLabel(tr("padding tokens (bidirectional attention)")));
    padProofRow->addStretch(1);
    pl->addLayout(padProofRow);
    m_padText = new QLabel;
    m_padText->setWordWrap(true);
    m_padText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    pl->addWidget(m_padText);
    m_deltaPlot->setMinimumHeight(200);
    m_body = new MasksBody(m_figure, m_editorBox, proofs);
    QScrollArea *scroll = scrollable(m_body);
    outer->addWidget(scroll, 1);
    m_body->followWidth(scroll->viewport());
}

void MasksView::sizeEditor(int tokens)
{
    const int side = std::clamp(kEditorCellPx * tokens, kEditorMinSide, kEditorMaxSide);
    // Title and axes around the matrix, as laid out last time (before the first layout: their usual size).
    const QRect area = m_editor->plotArea();
    const QSize frame = area.width() > 0 && area.height() > 0 ? m_editor->size() - area.size() : QSize(64, 80);
    m_editor->setMinimumSize(side + frame.width(), side + frame.height());
}

QString MasksView::guide() const
{
    return tr("<p><b>Masks</b> recomputes one head from the same Q, K and V under several masks: the model's own, "
              "bidirectional, causal, key padding, a window of W keys and a custom mask of your own. Weights are on top; "
              "below, each mask's change from the model's own (red: more weight, blue: less), and a bar chart of how much "
              "each token's output moves.</p>"
              "<p>Click keys in the padding strip to mark them as padding. On the custom panel, press on a cell and drag to "
              "block or allow a rectangle of cells; blocked cells are hatched like every masked cell. The box at the bottom "
              "replaces a token and checks that nothing leaks back through the causal mask or the padding.</p>"
              "<p>Try: in the box at the bottom, replace a late token: the causal row says whether anything leaks back "
              "into the tokens before it.</p>");
}

QString MasksView::explanation() const
{
    return tr("One head's attention recomputed from the same Q, K and V under different masks: weights on top, the "
              "change from the model's own mask below (red: more weight, blue: less). Click or drag on the custom "
              "panel to edit its mask; the box at the bottom right checks that causal masking and padding hide what "
              "they should.");
}

QWidget *MasksView::figureWidget() const
{
    return m_figure;
}

HeatmapPlot *MasksView::currentFigure() const
{
    return m_weightPlots.size() > 1 ? m_weightPlots[1] : m_weightPlots.value(0);
}

int MasksView::customPanel() const
{
    if (!m_snapshot) return -1;
    for (std::size_t i = 0; i < m_snapshot->comparison.variants.size(); ++i)
        if (m_snapshot->comparison.variants[i].name == "custom") return int(i);
    return -1;
}

void MasksView::setColorMap(ColorMap map)
{
    m_colorMap = map;
    for (HeatmapPlot *p : m_weightPlots) p->setColorMap(map);
    m_editor->setColorMap(map);
    m_deltaPlot->setColorMap(map);
    m_leakPlot->setColorMap(map);
}

void MasksView::submit()
{
    MasksRequest r = m_request;
    r.model = requireModel(tr("Open a model in Explore: Masks recomputes one of its heads under each mask."));
    if (!r.model) return;
    r.text = subject()->text();
    r.tokenize = subject()->tokenizeOptions();
    r.backend = subject()->backend();
    runner()->submit([r = std::move(r)](const JobContext &ctx) { return runMasks(r, ctx); });
}

bool MasksView::onResult(const SnapshotPtr &snapshot)
{
    auto s = snapshotAs<MasksSnapshot>(snapshot);
    // A result for a model or text the Subject no longer holds is stale: a newer run is on its way.
    if (!s || s->request.model != subject()->model() || s->request.text != subject()->text()) return false;
    // The previous result (0.7 GB at n = 4096) is let go of on the work pool, once the panels' hover read-outs
    // that share it have been replaced (showSnapshot).
    std::shared_ptr<const MasksSnapshot> previous = std::exchange(m_snapshot, std::move(s));
    // Adopt what the job resolved (automatic head, default j, a custom mask started as causal), but never over
    // an edit made while it ran: that edit's run is on its way.
    const int L = m_snapshot->length();
    if (m_request.autoHead) {
        m_request.layer = m_snapshot->request.layer;
        m_request.head = m_snapshot->request.head;
        m_request.autoHead = false;
    }
    if (m_request.perturb < 0 || m_request.perturb >= L) m_request.perturb = m_snapshot->request.perturb;
    if (!m_snapshot->customAllowed.empty() && m_request.customLength != L) {
        // Another length: started again as causal. Not copied (16 MB at n = 4096, per run): until the first edit
        // takes it from the result (editableCustomMask), the job starts it as causal again.
        m_customEdited = false;
        m_request.customLength = L;
        releaseInBackground(std::exchange(m_request.customAllowed, {}));
    }
    if (m_request.paddingDefault) m_request.padding.clear();   // the job picks them again for each text
    std::erase_if(m_request.padding, [L](int p) { return p >= L; });
    showSnapshot();
    releaseInBackground(std::move(previous));
    return matricesShown();
}

void MasksView::rebuildPanels(int count)
{
    if (m_weightPlots.size() == count) return;
    // Emptied before deleting: deleting a plot sends events through eventFilter(), which reads these lists.
    const QList<HeatmapPlot *> weights = std::exchange(m_weightPlots, {});
    const QList<HeatmapPlot *> diffs = std::exchange(m_diffPlots, {});
    const QList<QLabel *> notes = std::exchange(m_panelNotes, {});
    qDeleteAll(weights);
    qDeleteAll(diffs);
    qDeleteAll(notes);
    delete std::exchange(m_baselineNote, nullptr);
    for (int i = 0; i < count; ++i) {
        // One range for every weights panel, one for every difference map: the last panel of each row shows the scale.
        auto *w = new HeatmapPlot;
        w->setColorMap(m_colorMap);
        w->setMinimumSize(panelMinimum(i == count - 1));
        w->setColorScaleVisible(i == count - 1);
        w->plotWidget()->installEventFilter(this);
        m_grid->addWidget(w, 0, i);
        m_weightPlots << w;
        auto *note = new QLabel;
        note->setAlignment(Qt::AlignCenter);
        m_grid->addWidget(note, 2, i);
        m_panelNotes << note;
        if (i == 0) {
            m_diffPlots << nullptr;
            continue;
        }
        auto *d = new HeatmapPlot;
        d->setMinimumSize(panelMinimum(i == count - 1));
        d->setColorScaleVisible(i == count - 1);
        d->setValueLabel(tr("Δ weight"));
        m_grid->addWidget(d, 1, i);
        m_diffPlots << d;
    }
    m_baselineNote = new QLabel(tr("Left: the mask the model was trained with.\nThe maps below show each other "
                                   "mask's weights minus these.\nRed: more weight; blue: less; white: no change."));
    m_baselineNote->setWordWrap(true);
    m_baselineNote->setAlignment(Qt::AlignCenter);
    m_grid->addWidget(m_baselineNote, 1, 0);
    // The last column also holds the colour scales (~75 px): wider, so that its matrices are as large as the
    // others' (hatching needs 6 px cells).
    for (int i = 0; i < count; ++i) m_grid->setColumnStretch(i, i == count - 1 ? 14 : 10);
    m_grid->setRowStretch(0, 1);
    m_grid->setRowStretch(1, 1);
}

void MasksView::showSnapshot()
{
    const MasksSnapshot &s = *m_snapshot;
    const attn::MaskComparison &c = s.comparison;
    const int L = s.length();
    syncControls();
    rebuildPanels(int(c.variants.size()));

    // One symmetric range for every difference map, so their colours compare.
    double range = 0.0;
    for (const attn::HeadUnderMask &h : c.variants) range = std::max(range, h.maxAbsWeightDiff);
    range = range > 0.0 ? range : 1.0;
    QList<XYSeries> deltas;
    const std::size_t cells = std::size_t(L) * std::size_t(L);
    for (std::size_t i = 0; i < c.variants.size(); ++i) {
        const attn::HeadUnderMask &h = c.variants[i];
        const QString name = QString::fromStdString(h.name);
        // Built where they are prepared (kit: showMatrix), from the snapshot they hold.
        auto weights = [snap = m_snapshot, i] {
            const attn::HeadUnderMask &v = snap->comparison.variants[i];
            HeatmapData data;
            data.rows = data.cols = snap->length();
            data.values = v.weights;
            data.masked = v.blocked;
            data.rowLabels = data.colLabels = snap->tokens;
            return data;
        };
        // The matrices first: a plot whose data is being prepared takes its title and range without a replot.
        HeatmapPlot *w = m_weightPlots[int(i)];
        if (name == QLatin1String("custom")) {
            sizeEditor(L);
            m_body->rearrange();
            showMatrix(m_editor, cells, weights);
        }
        showMatrix(w, cells, weights);
        w->setTitle(name);
        w->setToolTip(name == QLatin1String("custom") ? tr("Your own mask: click or drag over cells to allow or block them") : QString());
        if (i == 0) {
            m_panelNotes[0]->setText(tr("baseline"));
            continue;
        }
        HeatmapPlot *d = m_diffPlots[int(i)];
        showMatrix(d, cells, [snap = m_snapshot, i] {
            HeatmapData diff;
            diff.rows = diff.cols = snap->length();
            diff.values = snap->comparison.variants[i].weightDiff;
            diff.rowLabels = diff.colLabels = snap->tokens;
            return diff;
        });
        d->setTitle(tr("Δ vs model's own"));
        d->setDivergingRange(range);
        d->setNoiseFloor(kWeightNoiseFloor);
        const std::vector<float> *base = &c.variants[c.baseline].weights, *mine = &h.weights;
        const QStringList tokens = s.tokens;
        d->setHoverFormatter([base, mine, tokens, L, snap = m_snapshot](HeatmapCell cell) {
            const std::size_t e = std::size_t(cell.row * L + cell.col);
            return tr("query %1 “%2” → key %3 “%4”\nthis mask %5 − baseline %6 = %7")
                .arg(cell.row).arg(tokens.value(cell.row)).arg(cell.col).arg(tokens.value(cell.col))
                .arg((*mine)[e], 0, 'f', 4).arg((*base)[e], 0, 'f', 4).arg((*mine)[e] - (*base)[e], 0, 'f', 4);
        });
        m_panelNotes[int(i)]->setText(tr("max |Δ weight| %1\nmax ‖Δ output‖ %2").arg(diffText(h.maxAbsWeightDiff), diffText(h.maxOutputDelta)));
        deltas << XYSeries{name, {}, h.outputDelta, {}};
    }
    m_editorBox->setVisible(customPanel() >= 0);
    m_body->rearrange();
    m_deltaPlot->setBars(s.tokens, deltas);
    m_deltaPlot->setTitle(tr("Change in %1's output per token vs the model's own mask").arg(headName(s.request.layer, s.request.head)));

    m_leakText->setText(leakageText());
    m_padText->setText(paddingText());
    if (s.leakCausal && s.leakBidirectional) {
        m_leakPlot->setBars(s.tokens, {XYSeries{tr("causal"), {}, s.leakCausal->maxDiff, {}},
                                        XYSeries{tr("bidirectional"), {}, s.leakBidirectional->maxDiff, {}}});
    } else {
        m_leakPlot->clear();
    }
    refreshExplanation();
}

QString MasksView::leakageText() const
{
    if (!m_snapshot) return {};
    const MasksSnapshot &s = *m_snapshot;
    if (!s.leakCausal || !s.leakBidirectional) return tr("Leakage test not run: %1").arg(s.leakNote);
    const attn::TokenLeakage &c = *s.leakCausal, &b = *s.leakBidirectional;
    const int j = int(c.position);
    if (j == 0)
        return tr("Token 0 has no earlier positions to protect: pick j ≥ 1.");
    const bool ok = c.maxDiffBefore <= 1e-6;
    QString text = tr("Token %1 “%2” (id %3 → %4). Max change at positions 0…%5:<br>"
                      "&nbsp;&nbsp;<b>causal: %6</b> %7<br>&nbsp;&nbsp;<b>bidirectional: %8</b> — later tokens leak into earlier ones.")
                       .arg(j).arg(s.tokens.value(j).toHtmlEscaped()).arg(c.originalId).arg(c.replacementId).arg(j - 1)
                       .arg(diffText(c.maxDiffBefore), ok ? tr("✓ nothing leaks back") : tr("✗ leak!"), diffText(b.maxDiffBefore));
    if (s.modelCausal) text += tr("<br><i>This model was trained causal: its bidirectional outputs are only a demonstration.</i>");
    return text;
}

QString MasksView::paddingText() const
{
    if (!m_snapshot) return {};
    const MasksSnapshot &s = *m_snapshot;
    if (!s.padding) return tr("Padding test not run: %1").arg(s.paddingNote);
    const attn::PaddingResult &p = *s.padding;
    return tr("Max change of the %1 real tokens' outputs with %2 padding tokens (id %3) appended:<br>"
              "&nbsp;&nbsp;<b>padding masked: %4</b> %5<br>&nbsp;&nbsp;<b>padding not masked: %6</b>")
        .arg(p.realLength).arg(p.padCount).arg(p.padId)
        .arg(diffText(p.maxMasked), p.maskedIsInvisible() ? tr("✓ invisible") : tr("✗ padding leaks"), diffText(p.maxUnmasked));
}

void MasksView::syncControls()
{
    const MasksSnapshot &s = *m_snapshot;
    {
        const QSignalBlocker block(m_headCombo);
        if (m_headCombo->count() != s.layers * s.heads) {
            m_headCombo->clear();
            for (int l = 0; l < s.layers; ++l)
                for (int h = 0; h < s.heads; ++h) m_headCombo->addItem(headName(l, h), QPoint(l, h));
        }
        m_headCombo->setCurrentIndex(s.request.layer * s.heads + s.request.head);
    }
    {
        const QSignalBlocker b1(m_perturb), b2(m_window), b3(m_pads), b4(m_replacement);
        m_perturb->setRange(0, std::max(0, s.length() - 1));
        m_perturb->setValue(s.request.perturb);
        m_window->setValue(m_request.window);
        m_pads->setValue(m_request.pads);
        m_replacement->setValue(m_request.replacement);
    }
    for (int i = 0; i < m_choiceButtons.size(); ++i) {
        const QSignalBlocker block(m_choiceButtons[i]);
        m_choiceButtons[i]->setChecked(std::find(m_request.choices.begin(), m_request.choices.end(), kAllMaskChoices[i]) != m_request.choices.end());
    }
    m_padStrip->setTokens(s.tokens, s.request.padding);
    // The model's own mask is the baseline: its choice would repeat it.
    for (int i = 0; i < m_choiceButtons.size(); ++i) {
        const MaskChoice c = kAllMaskChoices[i];
        const bool own = (c == MaskChoice::Causal && s.modelCausal) || (c == MaskChoice::Bidirectional && !s.modelCausal);
        m_choiceButtons[i]->setEnabled(!own);
        m_choiceButtons[i]->setToolTip(own ? tr("This is the model's own mask: the baseline panel on the left") : QString());
    }
}

void MasksView::selectHead(int layer, int head)
{
    m_request.layer = layer;
    m_request.head = head;
    m_request.autoHead = false;
    m_headChosen = true;
    rerun();
}

void MasksView::setChoices(const std::vector<MaskChoice> &choices)
{
    m_request.choices = choices;
    rerun();
}

void MasksView::setPerturbedToken(int j)
{
    m_request.perturb = j;
    m_perturbChosen = true;
    scheduleRun();
}

void MasksView::togglePadding(int position)
{
    if (m_request.paddingDefault) {
        m_request.paddingDefault = false;
        if (m_snapshot) m_request.padding = m_snapshot->request.padding;
    }
    auto it = std::find(m_request.padding.begin(), m_request.padding.end(), position);
    if (it == m_request.padding.end()) m_request.padding.push_back(position);
    else m_request.padding.erase(it);
    std::sort(m_request.padding.begin(), m_request.padding.end());
    if (m_snapshot) m_padStrip->setTokens(m_snapshot->tokens, m_request.padding);
    scheduleRun();
}

std::vector<std::uint8_t> &MasksView::editableCustomMask()
{
    const int L = m_request.customLength;
    const std::size_t cells = std::size_t(L) * std::size_t(L);
    if (m_request.customAllowed.size() != cells && m_snapshot && m_snapshot->length() == L &&
        m_snapshot->customAllowed.size() == cells)
        m_request.customAllowed = m_snapshot->customAllowed;
    return m_request.customAllowed;
}

void MasksView::toggleCustomCell(int row, int col)
{
    const int L = m_request.customLength;
    if (row < 0 || col < 0 || row >= L || col >= L) return;
    std::vector<std::uint8_t> &mask = editableCustomMask();
    if (mask.size() != std::size_t(L) * std::size_t(L)) return;   // no result of this length yet
    std::uint8_t &cell = mask[std::size_t(row * L + col)];
    cell = cell ? 0 : 1;
    m_customEdited = true;
    scheduleRun();
}

void MasksView::resetCustomMask()
{
    m_request.customLength = 0;   // the job starts it as causal again
    m_request.customAllowed.clear();
    m_customEdited = false;
    rerun();
}

bool MasksView::eventFilter(QObject *watched, QEvent *event)
{
    // Mouse over the custom mask (the editor or the custom small panel) edits it instead of panning: eaten here,
    // before HeatmapPlot sees it. Other events pass untouched (they also arrive while panels are being deleted).
    const QEvent::Type type = event->type();
    if (type != QEvent::MouseButtonPress && type != QEvent::MouseMove && type != QEvent::MouseButtonRelease)
        return Workspace::eventFilter(watched, event);
    const int ci = customPanel();
    HeatmapPlot *plot = nullptr;
    if (watched == m_editor->plotWidget()) plot = m_editor;
    else if (ci >= 0 && ci < m_weightPlots.size() && watched == m_weightPlots[ci]->plotWidget()) plot = m_weightPlots[ci];
    const int L = m_request.customLength;
    if (!plot || ci < 0 || L != plot->data().rows) return Workspace::eventFilter(watched, event);
    const auto cellOf = [&](QMouseEvent *e) { return plot->cellAt(plot->plotWidget()->mapTo(plot, e->position())); };
    const auto paintTo = [&](HeatmapCell cell) {
        if (cell.row == m_lastRow && cell.col == m_lastCol) return;
        m_lastRow = cell.row;
        m_lastCol = cell.col;
        m_request.customAllowed = m_paintBase;
        const int r0 = std::min(m_anchorRow, cell.row), r1 = std::max(m_anchorRow, cell.row);
        const int c0 = std::min(m_anchorCol, cell.col), c1 = std::max(m_anchorCol, cell.col);
        for (int i = r0; i <= r1; ++i)
            for (int j = c0; j <= c1; ++j) m_request.customAllowed[std::size_t(i * L + j)] = m_paintValue;
        // Immediate feedback: blocked cells hatched now, in both views of the mask; the weights follow from the
        // (debounced) run.
        for (HeatmapPlot *p : {m_editor, m_weightPlots.value(ci)}) {
            if (!p || p->data().rows != L) continue;
            HeatmapData data = p->data();
            data.masked.resize(std::size_t(L) * std::size_t(L));
            for (std::size_t k = 0; k < data.masked.size(); ++k) data.masked[k] = m_request.customAllowed[k] ? 0 : 1;
            p->setData(std::move(data));
        }
        m_customEdited = true;
        scheduleRun();
    };
    switch (event->type()) {
    case QEvent::MouseButtonPress: {
        auto *e = static_cast<QMouseEvent *>(event);
        if (e->button() != Qt::LeftButton) break;
        if (auto cell = cellOf(e)) {
            if (editableCustomMask().size() != std::size_t(L) * std::size_t(L)) break;
            m_painting = true;
            m_paintBase = m_request.customAllowed;
            m_anchorRow = cell->row;
            m_anchorCol = cell->col;
            m_paintValue = m_paintBase[std::size_t(cell->row * L + cell->col)] ? 0 : 1;
            m_lastRow = m_lastCol = -1;
            paintTo(*cell);
            return true;
        }
        break;
    }
    case QEvent::MouseMove: {
        if (!m_painting) break;
        if (auto cell = cellOf(static_cast<QMouseEvent *>(event))) paintTo(*cell);
        return true;
    }
    case QEvent::MouseButtonRelease:
        if (m_painting) {
            m_painting = false;
            return true;
        }
        break;
    default:
        break;
    }
    return Workspace::eventFilter(watched, event);
}

} // namespace attnui
