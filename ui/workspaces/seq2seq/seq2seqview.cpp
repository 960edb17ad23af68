// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/seq2seq/seq2seqview.h"

#include "workspaces/seq2seq/alignmentview.h"

#include "kit/examples.h"
#include "kit/numbering.h"
#include "kit/ownmodels.h"
#include "kit/tokenlimits.h"
#include "plots/heatmapplot.h"

#include <attnscope/textmodel.h>

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace attnui {

namespace {

constexpr int kDebounceMs = 250;
constexpr int kControlsWidth = 300;
constexpr int kPlayMs = 1100;

QString headText(int layer, int head)
{
    return head < 0 ? QObject::tr("L%1, mean of heads").arg(layer) : headName(layer, head);
}



} // namespace

Seq2SeqView::Seq2SeqView(Subject *subject, QWidget *parent)
    : Workspace(subject, QStringLiteral("seq2seq"), {.debounceMs = kDebounceMs}, parent)
{
    buildUi();
    if (!subject->model() && attn::isSeq2SeqSpec(subject->modelSpec().toStdString())) onModelChanged();
    else if (const QString spec = firstSampleSpec([](const attn::SampleModelInfo &s) { return s.encoderDecoder; }); !spec.isEmpty()) setModelSpec(spec);
}

Seq2SeqView::~Seq2SeqView() = default;

void Seq2SeqView::buildUi()
{
    auto *controls = new QWidget;
    auto *form = new QVBoxLayout(controls);
    form->setContentsMargins(0, 0, 0, 0);
    const auto heading = [form](const QString &text) { addHeading(form, text); };

    m_model = addModelRow(form, this,
                          tr("Open an encoder–decoder folder (T5, BART or Marian: config.json, model.safetensors, "
                             "tokenizer.json)"),
                          tr("Open an encoder–decoder model folder"), [this](const QString &spec) { setModelSpec(spec); });

    heading(tr("Source"));
    m_source = new QLineEdit;
    m_source->setPlaceholderText(tr("the sentence the encoder reads"));
    connect(m_source, &QLineEdit::textEdited, this, [this](const QString &t) {
        m_request.source = t;
        scheduleRun();
    });
    form->addWidget(m_source);
    m_examples = new QComboBox;
    m_examples->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_examples->setToolTip(tr("Sentences from the model's card"));
    connect(m_examples, &QComboBox::activated, this, [this](int i) {
        if (i > 0) setSource(m_examples->itemData(i).toString());
    });
    form->addWidget(m_examples);
    m_hint = new QLabel;
    m_hint->setWordWrap(true);
    m_hint->setTextFormat(Qt::PlainText);
    form->addWidget(m_hint);

    heading(tr("Target"));
    m_target = new QLineEdit;
    m_target->setPlaceholderText(tr("empty: the model translates"));
    m_target->setToolTip(tr("A target to teacher-force (the decoder reads it shifted right, as in training); leave "
                            "it empty and the decoder generates greedily, one token at a time"));
    connect(m_target, &QLineEdit::textEdited, this, [this](const QString &t) {
        m_request.target = t;
        m_maxNew->setEnabled(t.trimmed().isEmpty());
        scheduleRun();
    });
    form->addWidget(m_target);
    auto *maxRow = new QHBoxLayout;
    maxRow->addWidget(new QLabel(tr("Generate up to")));
    m_maxNew = new QSpinBox;
    m_maxNew->setRange(1, kSeq2SeqMaxTokens);
    m_maxNew->setValue(m_request.maxNewTokens);
    m_maxNew->setSuffix(tr(" tokens"));
    connect(m_maxNew, &QSpinBox::valueChanged, this, [this](int v) {
        m_request.maxNewTokens = v;
        scheduleRun();
    });
    maxRow->addWidget(m_maxNew);
    maxRow->addStretch(1);
    form->addLayout(maxRow);

    heading(tr("Show"));
    m_viewBox = new QComboBox;
    m_viewBox->addItem(tr("Alignment: cross-attention"), int(View::Alignment));
    m_viewBox->addItem(tr("Heatmap of one kind"), int(View::Heatmap));
    m_viewBox->addItem(tr("Generation, step by step"), int(View::Generation));
    connect(m_viewBox, &QComboBox::activated, this, [this] { setView(View(m_viewBox->currentData().toInt())); });
    form->addWidget(m_viewBox);
    auto *grid = new QFormLayout;
    m_kindBox = new QComboBox;
    for (AttentionKind k : {AttentionKind::Encoder, AttentionKind::Decoder, AttentionKind::Cross})
        m_kindBox->addItem(attentionKindTitle(k), attentionKindName(k));
    connect(m_kindBox, &QComboBox::activated, this,
            [this] { setKind(*attentionKindFromName(m_kindBox->currentData().toString())); });
    m_kindLabel = new QLabel(tr("Kind"));
    grid->addRow(m_kindLabel, m_kindBox);
    m_layerBox = makeIndexSpinBox(tr("layer "));
    connect(m_layerBox, &QSpinBox::valueChanged, this, [this](int v) { setHead(v, m_head); });
    grid->addRow(tr("Layer"), m_layerBox);
    m_headBox = new QComboBox;
    connect(m_headBox, &QComboBox::activated, this, [this] { setHead(m_layer, m_headBox->currentData().toInt()); });
    grid->addRow(tr("Head"), m_headBox);
    form->addLayout(grid);

    m_stepRow = new QWidget;
    auto *stepLayout = new QVBoxLayout(m_stepRow);
    stepLayout->setContentsMargins(0, 0, 0, 0);
    auto *sliderRow = new QHBoxLayout;
    auto *back = new QPushButton(QStringLiteral("◀"));
    back->setToolTip(tr("The step before (Left)"));
    back->setShortcut(Qt::Key_Left);
    connect(back, &QPushButton::clicked, this, [this] { stepBy(-1); });
    m_stepSlider = new QSlider(Qt::Horizontal);
    connect(m_stepSlider, &QSlider::valueChanged, this, [this](int v) { setStep(v); });
    auto *forward = new QPushButton(QStringLiteral("▶"));
    forward->setToolTip(tr("The next step (Right)"));
    forward->setShortcut(Qt::Key_Right);
    connect(forward, &QPushButton::clicked, this, [this] { stepBy(1); });
    for (QPushButton *b : {back, forward}) b->setFixedWidth(32);
    sliderRow->addWidget(back);
    sliderRow->addWidget(m_stepSlider, 1);
    sliderRow->addWidget(forward);
    stepLayout->addLayout(sliderRow);
    auto *playRow = new QHBoxLayout;
    m_play = new QPushButton(tr("Play"));
    m_play->setCheckable(true);
    m_play->setToolTip(tr("Walk through the steps on its own, from the first again after the last"));
    m_playTimer = new QTimer(this);
    m_playTimer->setInterval(kPlayMs);
    connect(m_playTimer, &QTimer::timeout, this, [this] {
        const int last = m_stepSlider->maximum();
        setStep(m_step >= last ? 0 : m_step + 1);
    });
    connect(m_play, &QPushButton::toggled, this, [this](bool on) {
        m_play->setText(on ? tr("Pause") : tr("Play"));
        if (on) m_playTimer->start();
        else m_playTimer->stop();
    });
    m_stepLabel = new QLabel;
    playRow->addWidget(m_play);
    playRow->addWidget(m_stepLabel, 1);
    stepLayout->addLayout(playRow);
    form->addWidget(m_stepRow);

    m_output = new QLabel;
    m_output->setWordWrap(true);
    m_output->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addWidget(m_output);
    form->addStretch(1);

    // The figure: one page per view.
    m_pages = new QStackedWidget;
    m_alignPage = new QWidget;
    auto *alignLayout = new QHBoxLayout(m_alignPage);
    alignLayout->setContentsMargins(0, 0, 0, 0);
    m_align = new AlignmentView;
    m_alignPlot = new HeatmapPlot;
    m_alignPlot->setAxisTitles(tr("target (the token each decoder step produces)"), tr("source"));
    alignLayout->addWidget(m_align, 3);
    alignLayout->addWidget(m_alignPlot, 2);
    // Hovering a row of the map keeps that target token's lines.
    connect(m_alignPlot, &HeatmapPlot::cellHovered, this,
            [this](int row, int) { m_align->setHovered(AlignmentView::Side::Target, row); });
    connect(m_alignPlot, &HeatmapPlot::hoverLeft, this, [this] { m_align->setHovered(AlignmentView::Side::Target, -1); });
    m_pages->addWidget(m_alignPage);
    m_plot = new HeatmapPlot;
    m_pages->addWidget(m_plot);
    m_stepsPage = new QWidget;
    auto *stepsLayout = new QVBoxLayout(m_stepsPage);
    stepsLayout->setContentsMargins(0, 0, 0, 0);
    m_steps = new AlignmentView;
    m_steps->setStep(0);
    stepsLayout->addWidget(m_steps, 1);
    m_stepCaption = new QLabel;
    m_stepCaption->setWordWrap(true);
    m_stepCaption->setContentsMargins(12, 4, 12, 4);
    stepsLayout->addWidget(m_stepCaption);
    m_pages->addWidget(m_stepsPage);

    makeControlsPage(controls, m_pages, kControlsWidth);
    fillModels();
    syncControls();
    refreshExplanation();
}

void Seq2SeqView::fillModels()
{
    fillSampleModels(m_model, [](const attn::SampleModelInfo &s) { return s.encoderDecoder; }, m_request.spec,
                     seq2seqModelName(m_request.spec));
}

QString Seq2SeqView::guide() const
{
    return tr("<p><b>Encoder–Decoder</b> shows the three attention kinds of a translation model. The encoder reads "
              "the source with bidirectional <i>self-attention</i>; the decoder reads the target so far with causal "
              "self-attention; and in <i>cross-attention</i> the decoder's queries look at the encoder's keys and "
              "values — that is where a translation consults its source.</p>"
              "<p>Type a target to teacher-force it (the decoder reads it shifted right by one, as in training), or "
              "leave it empty: the model then translates greedily, one token at a time. Rows of the decoder's maps "
              "are decoder steps, labelled by the token each step produces.</p>"
              "<p><b>Alignment</b> draws cross-attention as lines between the two sentences (hover a word to see only "
              "its lines); <b>Generation</b> walks through the steps (◀ ▶, or Play) and colours the source by where "
              "each new token looked.</p>"
              "<p>Try: the sample model's first example in the last layer's mean — the adjective comes after its noun "
              "and both words of the verb look back at one source word.</p>");
}

QString Seq2SeqView::explanation() const
{
    switch (m_view) {
    case View::Heatmap:
        return tr("One attention kind as a map: encoder self-attention (source × source), decoder causal "
                  "self-attention (target × target) or cross-attention (target × source). Hover a cell for its weight.");
    case View::Generation:
        return tr("The translation as the model made it, one token per step: each source word is coloured by how much "
                  "the new token's cross-attention looked at it. Step with ◀ ▶ or Play.");
    case View::Alignment:
        break;
    }
    return tr("Cross-attention: each target token (bottom) is joined to the source tokens (top) it looked at, more "
              "strongly the more weight; the map on the right holds the same weights. Hover a word to see only its lines.");
}

void Seq2SeqView::setModelSpec(const QString &spec)
{
    if (spec == m_request.spec && m_request.model) return;
    m_request.spec = spec;
    m_request.model.reset();
    QStringList texts, hints;
    readExamples(specFolder(spec), &texts, &hints);
    {
        const QSignalBlocker block(m_examples);
        m_examples->clear();
        m_examples->addItem(texts.isEmpty() ? tr("(no examples in this folder)") : tr("Examples from the card…"));
        for (int i = 0; i < texts.size(); ++i) {
            m_examples->addItem(texts[i], texts[i]);
            m_examples->setItemData(i + 1, hints.value(i), Qt::ToolTipRole);
        }
    }
    if (m_request.source.isEmpty() && !texts.isEmpty()) m_request.source = texts.first();
    fillModels();
    syncControls();
    scheduleRun();
}

void Seq2SeqView::setSource(const QString &text)
{
    m_request.source = text;
    syncControls();
    scheduleRun();
}

void Seq2SeqView::setTarget(const QString &text)
{
    m_request.target = text;
    syncControls();
    scheduleRun();
}

void Seq2SeqView::setView(View view)
{
    m_view = view;
    if (view == View::Alignment || view == View::Generation) m_kind = AttentionKind::Cross;
    if (view != View::Generation && m_play->isChecked()) m_play->setChecked(false);
    syncControls();
    refreshExplanation();
    refreshViews();
    emit figureChanged();
}

void Seq2SeqView::setKind(AttentionKind kind)
{
    m_kind = kind;
    if (kind != AttentionKind::Cross && m_view != View::Heatmap) m_view = View::Heatmap;
    syncControls();
    refreshExplanation();
    refreshViews();
    emit figureChanged();
}

void Seq2SeqView::setHead(int layer, int head)
{
    if (layer == m_layer && head == m_head) return;
    m_layer = layer;
    m_head = head;
    syncControls();
    refreshViews();
    emit figureChanged();
}

void Seq2SeqView::setStep(int step)
{
    const int last = m_snapshot ? std::max(0, m_snapshot->rows(AttentionKind::Cross) - 1) : 0;
    step = std::clamp(step, 0, std::max(last, 0));
    if (step == m_step && m_steps->step() == step) return;
    m_step = step;
    syncControls();
    refreshViews();
}

void Seq2SeqView::stepBy(int delta) { setStep(m_step + delta); }

AttentionKind Seq2SeqView::shownKind() const { return m_view == View::Heatmap ? m_kind : AttentionKind::Cross; }

int Seq2SeqView::shownLayer() const
{
    const int layers = m_snapshot ? m_snapshot->layers(shownKind()) : 0;
    if (layers <= 0) return std::max(0, m_layer);
    return m_layer < 0 ? layers - 1 : std::min(m_layer, layers - 1);
}

void Seq2SeqView::onModelChanged()
{
    // attnscope-cli figure on an encoder–decoder model: the Subject names it and holds no text model.
    if (!subject()->model() && attn::isSeq2SeqSpec(subject()->modelSpec().toStdString())) {
        m_request.source = subject()->text();
        setModelSpec(subject()->modelSpec());
    }
}

void Seq2SeqView::submit()
{
    if (m_request.spec.isEmpty()) {
        showError(tr("No encoder–decoder model: this build has no sample of that kind; open a T5, BART or Marian folder (Open…)."));
        return;
    }
    if (m_request.source.trimmed().isEmpty()) {
        showError(tr("Type a source sentence for the encoder."));
        return;
    }
    Seq2SeqRequest request = m_request;
    request.backend = subject()->backend();
    runner()->submit([request](const JobContext &ctx) { return runSeq2SeqJob(request, ctx); });
}

bool Seq2SeqView::onResult(const SnapshotPtr &snapshot)
{
    auto snap = snapshotAs<Seq2SeqSnapshot>(snapshot);
    if (!snap) return false;
    m_snapshot = snap;
    if (snap->spec == m_request.spec) m_request.model = snap->model;   // opened once, run many times
    hideError();
    showSnapshot();
    return true;
}

void Seq2SeqView::showSnapshot()
{
    const Seq2SeqSnapshot &s = *m_snapshot;
    m_step = std::clamp(m_step, 0, std::max(0, s.rows(AttentionKind::Cross) - 1));
    syncControls();
    refreshViews();
}

void Seq2SeqView::syncControls()
{
    const QSignalBlocker b1(m_source), b2(m_target), b3(m_viewBox), b4(m_kindBox), b5(m_layerBox), b6(m_headBox),
        b7(m_stepSlider), b8(m_maxNew);
    if (m_source->text() != m_request.source) m_source->setText(m_request.source);
    if (m_target->text() != m_request.target) m_target->setText(m_request.target);
    m_maxNew->setValue(m_request.maxNewTokens);
    m_maxNew->setEnabled(m_request.target.trimmed().isEmpty());
    m_viewBox->setCurrentIndex(m_viewBox->findData(int(m_view)));
    m_kindBox->setCurrentIndex(m_kindBox->findData(attentionKindName(m_kind)));
    m_kindBox->setVisible(m_view == View::Heatmap);
    m_kindLabel->setVisible(m_view == View::Heatmap);
    m_stepRow->setVisible(m_view == View::Generation);
    const int heads = m_snapshot ? m_snapshot->heads(shownKind()) : 0;
    if (m_headBox->count() != heads + 1) {
        m_headBox->clear();
        m_headBox->addItem(tr("mean of heads"), -1);
        for (int h = 0; h < heads; ++h) m_headBox->addItem(tr("head %1").arg(h), h);
    }
    m_headBox->setCurrentIndex(std::max(0, m_headBox->findData(shownHead())));
    if (m_snapshot) {
        // The encoder and the decoder may have different numbers of layers.
        setIndexCount(m_layerBox, m_snapshot->layers(shownKind()));
        setIndex(m_layerBox, shownLayer());
    }
    const int steps = m_snapshot ? m_snapshot->rows(AttentionKind::Cross) : 1;
    m_stepSlider->setRange(0, std::max(0, steps - 1));
    m_stepSlider->setValue(m_step);
    m_stepLabel->setText(tr("step %1 of 0..%2").arg(m_step).arg(std::max(0, steps - 1)));
    // What to look for, when the source is one of the card's examples.
    const int example = m_examples->findData(m_request.source);
    m_hint->setText(example > 0 ? m_examples->itemData(example, Qt::ToolTipRole).toString() : QString());
    m_hint->setVisible(!m_hint->text().isEmpty());
    m_output->setText(outputText());
}

QString Seq2SeqView::outputText() const
{
    if (!m_snapshot) return {};
    const Seq2SeqSnapshot &s = *m_snapshot;
    if (s.generated)
        return tr("Translation (greedy, %n tokens%1): %2", nullptr, int(s.data.generated->size()))
            .arg(s.data.stoppedAtEos ? tr(", ended by </s>") : tr(", stopped at the limit"), s.generatedText);
    return tr("Teacher-forced on the target (%n tokens, </s> included).", nullptr, int(s.data.labels.size()));
}

void Seq2SeqView::refreshViews()
{
    if (!m_snapshot) return;
    const Seq2SeqSnapshot &s = *m_snapshot;
    const int layer = shownLayer();
    m_pages->setCurrentIndex(int(m_view));
    const auto cross = [&] {
        AlignmentView::Data d;
        d.source = s.colLabels(AttentionKind::Cross);
        d.target = s.rowLabels(AttentionKind::Cross);
        d.sourceSpecial = s.sourceSpecial;
        d.targetWords = s.targetWords();
        d.weights = s.weights(AttentionKind::Cross, layer, shownHead());
        d.title = tr("cross-attention, %1").arg(headText(layer, shownHead()));
        return d;
    };
    const auto heatmap = [&](HeatmapPlot *plot, AttentionKind kind) {
        HeatmapData h;
        h.rows = s.rows(kind);
        h.cols = s.cols(kind);
        h.values = s.weights(kind, layer, shownHead());
        h.rowLabels = s.rowLabels(kind);
        h.colLabels = s.colLabels(kind);
        if (kind == AttentionKind::Decoder) {
            h.masked.assign(std::size_t(h.rows) * std::size_t(h.cols), 0);
            for (int r = 0; r < h.rows; ++r)
                for (int c = r + 1; c < h.cols; ++c) h.masked[std::size_t(r) * std::size_t(h.cols) + std::size_t(c)] = 1;
        }
        plot->setColorMap(m_colorMap);
        plot->setTitle(tr("%1, %2").arg(attentionKindTitle(kind), headText(layer, shownHead())));
        switch (kind) {
        case AttentionKind::Encoder: plot->setAxisTitles(tr("source (query)"), tr("source (key)")); break;
        case AttentionKind::Decoder:
            plot->setAxisTitles(tr("decoder input (query; step t produces target token t)"), tr("decoder input (key)"));
            break;
        case AttentionKind::Cross:
            plot->setAxisTitles(tr("target (the token each decoder step produces)"), tr("source"));
            break;
        }
        plot->setData(std::move(h));
    };
    switch (m_view) {
    case View::Alignment:
        m_align->setColorMap(m_colorMap);
        m_align->setData(cross());
        heatmap(m_alignPlot, AttentionKind::Cross);
        break;
    case View::Heatmap: heatmap(m_plot, m_kind); break;
    case View::Generation: {
        m_steps->setColorMap(m_colorMap);
        AlignmentView::Data d = cross();
        d.title = tr("step %1 of the %2, %3").arg(m_step).arg(s.generated ? tr("translation") : tr("target"),
                                                                 headText(layer, shownHead()));
        m_steps->setData(std::move(d));
        m_steps->setStep(m_step);
        const QStringList in = s.inputLabels, out = s.producedLabels;
        m_stepCaption->setText(tr("Step %1 reads “%2” (with everything before it) and %3 “%4”; the source words are "
                                  "coloured by its cross-attention weight.")
                                   .arg(m_step)
                                   .arg(in.value(m_step), s.generated ? tr("produces") : tr("is trained to produce"),
                                        out.value(m_step)));
        break;
    }
    }
}

QWidget *Seq2SeqView::figureWidget() const
{
    if (!m_snapshot) return nullptr;
    return m_pages->currentWidget();
}

HeatmapPlot *Seq2SeqView::currentFigure() const
{
    switch (m_view) {
    case View::Alignment: return m_alignPlot;
    case View::Heatmap: return m_plot;
    case View::Generation: break;
    }
    return nullptr;
}

FigureLayout Seq2SeqView::figureLayout() const
{
    FigureLayout l;
    switch (m_view) {
    case View::Alignment: {
        const QSize a = m_align->figureSize(), h = m_alignPlot->figureSize(36, 520);
        l.size = QSize(a.width() + h.width(), std::max(a.height(), h.height()));
        l.minAspect = 1.2;
        l.maxAspect = 4.0;
        break;
    }
    case View::Heatmap:
        l.size = m_plot->figureSize();
        l.minAspect = 0.6;
        l.maxAspect = 1.8;
        break;
    case View::Generation: {
        const QSize a = m_steps->figureSize();
        l.size = QSize(a.width(), a.height() + 3 * fontMetrics().height());
        l.minAspect = 1.0;
        l.maxAspect = 4.0;
        break;
    }
    }
    return l;
}

QString Seq2SeqView::figureCaption() const
{
    if (!m_snapshot) return {};
    const Seq2SeqSnapshot &s = *m_snapshot;
    const QString target = s.generated ? tr("generated “%1”").arg(s.generatedText) : tr("target “%1”").arg(s.request.target);
    QString what;
    const int layer = shownLayer();
    switch (m_view) {
    case View::Alignment: what = tr("cross-attention %1; rows are decoder steps, each labelled by the token it produces")
                                     .arg(headText(layer, shownHead())); break;
    case View::Heatmap: what = tr("%1 %2").arg(attentionKindTitle(m_kind), headText(layer, shownHead())); break;
    case View::Generation: what = tr("generation step %1, cross-attention %2").arg(m_step).arg(headText(layer, shownHead())); break;
    }
    return tr("%1 · source “%2” · %3 · %4").arg(seq2seqModelName(s.spec), s.request.source, target, what);
}

void Seq2SeqView::setColorMap(ColorMap map)
{
    m_colorMap = map;
    refreshViews();
}

} // namespace attnui
