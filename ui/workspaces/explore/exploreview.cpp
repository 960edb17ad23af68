// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/explore/exploreview.h"
#include "kit/fontscale.h"
#include "kit/numbering.h"

#include "kit/subject.h"

#include "plots/headgrid.h"
#include "plots/heatmapplot.h"
#include "runner/enginerunner.h"
#include "workspaces/explore/aggregationpanel.h"
#include "workspaces/explore/datasetheadspanel.h"
#include "workspaces/explore/headstatspanel.h"
#include "workspaces/explore/lineview.h"
#include "workspaces/explore/outputspanel.h"
#include "kit/tokenchips.h"
#include "kit/texteditor.h"
#include "session/session.h"
#include "runner/workpool.h"

#include <attnscope/attention.h>

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QVBoxLayout>

namespace attnui {

namespace {

// Typing re-runs after a pause. Short inputs finish in ~10 ms, so a short pause keeps edit → heatmaps under
// 100 ms; long inputs (each run hundreds of ms, stale results dropped but still computed) wait longer.
constexpr int kDebounceShortMs = 50;
constexpr int kDebounceLongMs = 200;
constexpr int kLongInputTokens = 512;
constexpr int kAsyncHeatmapAbove = 512;   // tokens; beyond, the head heatmap is prepared off the UI thread

QString positionalPhrase(attn::PositionalEncoding pe)
{
    switch (pe) {
    case attn::PositionalEncoding::None: return QObject::tr("no positional encoding");
    case attn::PositionalEncoding::Sinusoidal: return QObject::tr("sinusoidal positions");
    case attn::PositionalEncoding::RoPE: return QObject::tr("RoPE");
    case attn::PositionalEncoding::ALiBi: return QObject::tr("ALiBi");
    }
    return {};
}

QLabel *sectionTitle(const QString &text)
{
    auto *label = new QLabel(text);
    setRelativeFont(label, 1.0, true);
    return label;
}

} // namespace

ExploreView::ExploreView(Subject *subject, QWidget *parent)
    : Workspace(subject, QStringLiteral("explore"),
                // Explore is where the Subject's model comes from: it keeps up while another tab is shown.
                {.debounceMs = kDebounceShortMs, .runWhileHidden = true, .followBackend = false}, parent)
{
    buildUi();
    // A subject that already holds a model (attnscope-cli figure, a lesson) is used as it is.
    const QString spec = defaultModelSpec();
    if (subject->model()) adoptSubjectModel();
    else if (spec.isEmpty()) useRawExperiment();
    else openModel(spec);
}

void ExploreView::onTextChanged()
{
    // Other workspaces write the Subject too (Faithfulness's example picker): Explore shows what they set. Its own
    // edits and adoptModel() update the text box first, so the echo finds it equal and nothing runs twice.
    if (subject()->text() != m_text->toPlainText()) m_text->setPlainText(subject()->text());   // reruns
}

void ExploreView::onTokenizeOptionsChanged()
{
    syncPairWidgets();
    if (!m_raw) scheduleEditRun();
}

// The pair and truncation boxes show what the Subject holds (set by a session, a lesson or the CLI too).
void ExploreView::syncPairWidgets()
{
    const QSignalBlocker b1(m_pairBox), b2(m_pair), b3(m_truncateBox);
    const QString pair = subject()->textPair();
    if (!pair.isEmpty()) {
        m_pairBox->setChecked(true);
        if (m_pair->text() != pair) m_pair->setText(pair);
    } else if (m_pairBox->isChecked() && !m_pair->text().isEmpty()) {
        m_pairBox->setChecked(false);   // cleared from elsewhere
    }
    m_pair->setVisible(!m_raw && m_pairBox->isChecked());
    m_truncateBox->setChecked(subject()->truncate());
}

void ExploreView::onModelChanged()
{
    // A model set elsewhere is used as it is, never loaded again. Explore's own model (adoptModel()) is m_model
    // already when it reaches the Subject; while Explore is opening one itself, that one wins.
    const TextModelPtr model = subject()->model();
    if (model && model != m_model && m_loadingSpec.isEmpty()) adoptSubjectModel();
}

ExploreView::~ExploreView() = default;

void ExploreView::buildUi()
{
    // Top: the model and the example texts it ships with.
    auto *top = new QHBoxLayout;
    auto *modelLabel = new QLabel(tr("&Model"));
    m_modelCombo = new QComboBox;
    m_modelCombo->setMinimumWidth(260);
    m_modelCombo->setToolTip(tr("Bundled sample models, recent folders, a Hugging Face folder of your own (or drop "
                                "one on the window), or the raw random attention layer"));
    modelLabel->setBuddy(m_modelCombo);
    m_modelInfo = new QLabel;
    m_modelInfo->setWordWrap(true);   // two lines rather than a window wider than 1280 px beside the lesson dock
    m_modelInfo->setForegroundRole(QPalette::PlaceholderText);
    m_modelInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_examplesLabel = new QLabel(tr("E&xample"));
    m_examples = new QComboBox;
    m_examples->setMaximumWidth(420);
    m_examples->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_examples->setMinimumContentsLength(28);
    m_examplesLabel->setBuddy(m_examples);
    top->addWidget(modelLabel);
    top->addWidget(m_modelCombo);
    top->addWidget(m_modelInfo, 1);
    top->addWidget(m_examplesLabel);
    top->addWidget(m_examples);
    rebuildModelPicker();

    // Left: text, tokens, raw-layer settings, and the overview of all heads.
    auto *controls = new QWidget;
    auto *left = new QVBoxLayout(controls);
    left->setContentsMargins(0, 0, 4, 0);
    m_intro = new QLabel;
    m_intro->setWordWrap(true);
    m_intro->setForegroundRole(QPalette::PlaceholderText);
    left->addWidget(m_intro);

    left->addWidget(sectionTitle(tr("Text")));
    m_text = new TextEditor;
    m_text->setPlaceholderText(tr("Type some text"));
    m_text->setTabChangesFocus(true);
    m_text->setFixedHeight(m_text->fontMetrics().lineSpacing() * 4 + 12);   // again at FontChange
    m_text->installEventFilter(this);
    left->addWidget(m_text);
    // A sentence pair (NLI premise and hypothesis, QA question and context) and truncation: how the text becomes
    // tokens. Both live in the Subject (sessions, attnscope-cli figure --text-pair / --truncate).
    auto *inputRow = new QHBoxLayout;
    m_pairBox = new QCheckBox(tr("&Pair"));
    m_pairBox->setToolTip(tr("Run a sentence pair: the text and a second text in the tokenizer's pair template "
                             "([CLS] text [SEP] pair [SEP] for BERT, with token types 0 and 1). Explore's views only; "
                             "the other workspaces take the text alone."));
    m_truncateBox = new QCheckBox(tr("&Truncate to the model's positions"));
    m_truncateBox->setToolTip(tr("A text longer than the model's positions is cut to them (Hugging Face truncation: "
                                 "the longer text of a pair loses its last tokens first) instead of refused. Every "
                                 "workspace tokenizes with it."));
    inputRow->addWidget(m_pairBox);
    inputRow->addWidget(m_truncateBox);
    inputRow->addStretch(1);
    left->addLayout(inputRow);
    m_pair = new QLineEdit;
    m_pair->setPlaceholderText(tr("The pair's second text, e.g. an NLI hypothesis"));
    m_pair->setClearButtonEnabled(true);
    m_pair->hide();
    left->addWidget(m_pair);
    connect(m_pairBox, &QCheckBox::toggled, this, [this](bool on) {
        m_pair->setVisible(on && !m_raw);
        subject()->setTextPair(on ? m_pair->text() : QString());
        if (on) m_pair->setFocus();
    });
    connect(m_pair, &QLineEdit::textEdited, this, [this](const QString &text) {
        if (m_pairBox->isChecked()) subject()->setTextPair(text);
    });
    connect(m_truncateBox, &QCheckBox::toggled, this, [this](bool on) { subject()->setTruncate(on); });
    connect(subject(), &Subject::textPairChanged, this, [this] {
        syncPairWidgets();
        if (!m_raw) scheduleEditRun();
    });
    m_inputNote = new QLabel;
    m_inputNote->setWordWrap(true);
    m_inputNote->setForegroundRole(QPalette::PlaceholderText);
    m_inputNote->hide();
    m_exampleHint = new QLabel;
    m_exampleHint->setObjectName(QStringLiteral("exampleHint"));
    m_exampleHint->setWordWrap(true);
    m_exampleHint->setForegroundRole(QPalette::PlaceholderText);
    m_exampleHint->hide();
    left->addWidget(m_exampleHint);
    m_chips = new TokenChips;
    m_chips->setPlaceholder(tr("No tokens"));
    m_chips->setToolTip(tr("The tokens the model sees, numbered from 0; dashed chips are special tokens"));
    // Long inputs scroll inside a few rows of chips instead of pushing the overview off screen.
    m_chipsScroll = new QScrollArea;
    m_chipsScroll->setWidget(m_chips);
    m_chipsScroll->setWidgetResizable(true);
    m_chipsScroll->setFrameShape(QFrame::NoFrame);
    m_chipsScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_chipsScroll->viewport()->installEventFilter(this);
    left->addWidget(m_chipsScroll);
    left->addWidget(m_inputNote);
    left->addWidget(buildRawControls());

    left->addWidget(sectionTitle(tr("Overview: layer × head")));
    m_gridNote = new QLabel(tr("Rows are layers, columns heads. Click a head to show it large."));
    m_gridNote->setWordWrap(true);
    m_gridNote->setForegroundRole(QPalette::PlaceholderText);
    left->addWidget(m_gridNote);
    m_grid = new HeadGrid;
    auto *scroll = new QScrollArea;
    scroll->setWidget(m_grid);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumHeight(140);
    left->addWidget(scroll, 1);
    // Where the column is taller than the window (presentation mode's large type at 1280×720) it scrolls, rather
    // than squeezing its widgets over one another.
    auto *controlsScroll = new QScrollArea;
    controlsScroll->setWidget(controls);
    controlsScroll->setWidgetResizable(true);
    controlsScroll->setFrameShape(QFrame::NoFrame);
    controlsScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    // Right: the banner, then one tab per view of the same result.
    auto *rightPane = new QWidget;
    auto *right = new QVBoxLayout(rightPane);
    right->setContentsMargins(4, 0, 0, 0);
    right->addWidget(errorBanner());
    right->addWidget(noticeBar());
    right->addWidget(explanationLabel());   // "what am I looking at", for the tab shown
    m_tabs = new QTabWidget;
    m_tabs->setUsesScrollButtons(true);   // narrow (the lesson dock open at 1280×720): scroll the tabs, never widen
    auto *headPage = new QWidget;
    auto *headLayout = new QVBoxLayout(headPage);
    headLayout->setContentsMargins(0, 4, 0, 0);
    m_plot = new HeatmapPlot;
    headLayout->addWidget(m_plot, 1);
    m_readout = new QLabel;
    m_readout->setTextFormat(Qt::PlainText);
    m_readout->setWordWrap(true);
    m_readout->setMinimumHeight(m_readout->fontMetrics().height() * 2 + 4);
    m_readout->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_readout->setProperty("excludeFromFigure", true);   // a hover read-out, not part of exported figures
    headLayout->addWidget(m_readout);
    m_stats = new HeadStatsPanel;
    m_aggregation = new AggregationPanel;
    m_outputs = new OutputsPanel;
    m_lines = new LineView;
    m_tabs->addTab(headPage, tr("Head"));
    m_tabs->addTab(m_lines, tr("Lines"));
    m_tabs->addTab(m_stats, tr("Head statistics"));
    m_tabs->addTab(m_aggregation, tr("Rollout && flow"));
    m_tabs->addTab(m_outputs, tr("Outputs"));
    m_datasetHeads = new DatasetHeadsPanel(subject());
    m_tabs->addTab(m_datasetHeads, tr("Heads over a dataset"));
    right->addWidget(m_tabs, 1);
    onHoverLeft();

    m_splitter = new QSplitter(Qt::Horizontal);
    m_splitter->addWidget(controlsScroll);
    m_splitter->addWidget(rightPane);
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setSizes({420, 1180});
    m_splitter->setChildrenCollapsible(false);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(6, 6, 6, 4);
    outer->addLayout(top);
    outer->addWidget(m_splitter, 1);

    connect(m_modelCombo, &QComboBox::activated, this, &ExploreView::onModelActivated);
    connect(m_examples, &QComboBox::activated, this, [this](int index) {
        if (index >= 0) setText(m_examples->itemData(index).toString());
    });
    connect(m_text, &TextEditor::refused, this,
            [this](const QString &reason) { showError(tr("Not inserted: %1. The text is as it was.").arg(reason)); });
    connect(m_text, &QPlainTextEdit::textChanged, this, [this] {
        subject()->setText(m_text->toPlainText());
        updateExampleHint();
        // The chips change with the result they belong to (showSnapshot()), never ahead of it: a text the run
        // refuses leaves the old tokens beside the old heatmap.
        scheduleEditRun();
    });
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        m_viewFigure = nullptr;
        updateExplanation();
    });
    connect(m_tabs, &QTabWidget::currentChanged, this, &Workspace::figureChanged);
    updateExplanation();
    // Flow is computed only while its tab is shown (it dominates a short input's run time): compute it now.
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int index) {
        if (index == AggregationTab && m_snapshot && m_snapshot->flowDeferred) rerun();
    });
    // A head the user picks (not one a session restores) is also the Subject's chosen head: Pipeline follows it.
    const auto choose = [this](int layer, int head) {
        selectHead(layer, head);
        if (!m_raw) subject()->chooseHead({layer, head});
    };
    connect(m_grid, &HeadGrid::headClicked, this, choose);
    connect(m_stats, &HeadStatsPanel::headActivated, this, [this, choose](int layer, int head) {
        choose(layer, head);
        setCurrentTab(HeadTab);
    });
    connect(m_datasetHeads, &DatasetHeadsPanel::headActivated, this, [this, choose](int layer, int head) {
        choose(layer, head);
        setCurrentTab(HeadTab);
    });
    connect(m_plot, &HeatmapPlot::cellHovered, this, &ExploreView::onCellHovered);
    connect(m_plot, &HeatmapPlot::hoverLeft, this, &ExploreView::onHoverLeft);
    connect(m_lines, &LineView::tokenHovered, m_chips, &TokenChips::setHighlight);
    connect(m_plot, &HeatmapPlot::dataShown, this, [this] {
        if (!m_shownPending) return;
        m_shownPending = false;
        emit resultShown();
    });
}

void ExploreView::fitChips()
{
    const int rowHeight = m_chips->minimumSizeHint().height();
    const int want = m_chips->heightForWidth(m_chipsScroll->viewport()->width());
    m_chipsScroll->setFixedHeight(std::min(want, rowHeight * 5 + 4 * 5));
}

bool ExploreView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_text && event->type() == QEvent::FontChange)
        m_text->setFixedHeight(m_text->fontMetrics().lineSpacing() * 4 + 12);   // four lines of the new type
    if (m_chipsScroll && watched == m_chipsScroll->viewport() && event->type() == QEvent::Resize) fitChips();
    return Workspace::eventFilter(watched, event);
}

QString ExploreView::guide() const
{
    return tr("<p><b>Explore</b> shows the attention of one model on your text. Type in the text box; every view updates "
              "a moment after you stop typing. Pick a head in the layer × head grid (L0 H0 is the first head of the first "
              "layer; layers, heads and tokens count from 0 everywhere).</p>"
              "<p><b>Head</b>: the head's weights, query tokens down, key tokens across; hover a cell for the exact "
              "number, scroll to zoom, drag to pan. <b>Lines</b>: the same weights as lines from query to key. "
              "<b>Head statistics</b>: entropy, distance, previous-token and induction scores of every head. "
              "<b>Rollout &amp; flow</b>: attention combined across layers. <b>Outputs</b>: what the model predicts.</p>"
              "<p>Try: with sample:induction-gpt2, type a sequence twice (\"zo ta mu ga zo ta mu ga\") and look for the "
              "head whose second half attends to the token after the earlier copy.</p>");
}

QString ExploreView::explanation() const
{
    switch (m_tabs->currentIndex()) {
    case LinesTab:
        return tr("Each line joins a query token (left) to a key token (right); its strength is the attention weight "
                  "of the chosen head. Hover a token to see only its lines.");
    case StatisticsTab:
        return tr("One row per head: how spread out its attention is (entropy), how far it looks, and how much of it "
                  "goes to the previous token, to earlier copies of the same token, or to what followed them (induction).");
    case AggregationTab:
        return tr("Attention combined across heads and layers: the mean over heads, attention rollout (products of the "
                  "layers with the residual path), and attention flow (maximum flow through the layers).");
    case DatasetTab:
        return tr("Head statistics over a whole set of texts: which heads are previous-token, induction or sink heads "
                  "across the set, each mean with its bootstrap 95 % interval.");
    case OutputsTab:
        return tr("What the model predicts from this input: next-token probabilities, class probabilities or "
                  "masked-token predictions.");
    default:
        return tr("Row i shows where token i (the query) looks: each cell is the softmax weight it gives to key token j. "
                  "Rows sum to 1; hatched cells are masked.");
    }
}

QWidget *ExploreView::figureWidget() const
{
    return m_viewFigure ? m_viewFigure : m_tabs->currentWidget();
}

QString ExploreView::figureCaption() const
{
    QString model = m_raw ? tr("raw attention experiment") : subject()->modelSpec();
    QString text = m_text->toPlainText().simplified();
    if (text.size() > 60) text = text.left(57) + QStringLiteral("…");
    QStringList parts{model, QStringLiteral("\"%1\"").arg(text)};
    if (m_viewFigure == m_grid) {
        parts << tr("all layers × heads");
        // The grid's marks, said once where a reader of the figure looks for them.
        if (m_snapshot && !m_snapshot->kvHeadOf.empty()) parts << tr("brackets: query heads sharing a K/V head");
        if (m_snapshot && std::any_of(m_snapshot->layerWindow.begin(), m_snapshot->layerWindow.end(), [](int w) { return w > 0; }))
            parts << tr("W n: sliding window of n keys");
    } else if (m_tabs->currentIndex() == HeadTab) {
        parts << headName(m_layer, m_head);
        if (m_snapshot && m_snapshot->windowOf(m_layer) > 0)
            parts << tr("sliding window W = %1").arg(m_snapshot->windowOf(m_layer));
    }
    else if (m_tabs->currentIndex() == LinesTab) parts << tr("%1, all heads").arg(layerName(m_layer));
    if (m_raw) parts << m_mask->currentText();
    // attnscope-cli figure --mask / --pad: say which mask the figure ran with.
    else if ((subject()->maskOverride() || subject()->padding() > 0) && m_snapshot) parts << m_snapshot->maskDescription;
    return parts.join(QStringLiteral(" · "));
}

FigureLayout ExploreView::figureLayout() const
{
    if (m_viewFigure == m_grid) return {m_grid->figureSize(), 0.6, 3.0};
    switch (m_tabs->currentIndex()) {
    case HeadTab: return {m_plot->figureSize() + QSize(0, 4), 0.7, 1.8};
    case LinesTab: return {m_lines->figureSize(), 0.3, 1.8};
    case StatisticsTab: return {m_stats->figureSize(), 0.7, 4.5};   // a short table beside its map: wide
    case AggregationTab: return {m_aggregation->figureSize(), 1.2, 3.2};
    case OutputsTab: return {m_outputs->figureSize(), 0.3, 2.5};
    case DatasetTab: return {m_datasetHeads->figureSize(), 0.7, 3.0};
    default: return {};
    }
}

HeatmapPlot *ExploreView::currentFigure() const
{
    switch (m_tabs->currentIndex()) {
    case StatisticsTab: return m_stats->plot();
    case DatasetTab: return m_datasetHeads->plot();
    case AggregationTab: return m_aggregation->aggregatePlot();
    case LinesTab:
    case OutputsTab: return nullptr;
    default: return m_plot;
    }
}

void ExploreView::setCurrentTab(Tab tab)
{
    m_tabs->setCurrentIndex(int(tab));
}

void ExploreView::setColorMap(ColorMap map)
{
    m_colorMap = map;
    m_plot->setColorMap(map);
    m_grid->setColorMap(map);
    m_stats->setColorMap(map);
    m_datasetHeads->setColorMap(map);
    m_aggregation->setColorMap(map);
}

void ExploreView::setText(const QString &text)
{
    if (text.size() > kMaxTextChars) {   // a caller's text, like a paste, must fit the editor
        showError(tr("Not shown: %1. The text is as it was.").arg(textTooLongReason(text.size())));
        return;
    }
    m_text->setPlainText(text);
}

QString ExploreView::text() const
{
    return m_text->toPlainText();
}

bool ExploreView::wantsFlow() const
{
    return m_tabs->currentIndex() == AggregationTab;
}

void ExploreView::scheduleEditRun()
{
    const bool longInput = m_snapshot && m_snapshot->length() > kLongInputTokens;
    setDebounce(longInput ? kDebounceLongMs : kDebounceShortMs);
    scheduleRun();
}

ModelRequest ExploreView::modelRequest() const
{
    ModelRequest r;
    r.text = m_text->toPlainText();
    r.focusLayer = m_layer;
    r.focusHead = m_head;
    r.flow = wantsFlow();
    r.backend = subject()->backend();
    r.maskOverride = subject()->maskOverride();
    r.padding = subject()->padding();
    r.tokenize = subject()->tokenizeOptions();
    if (!subject()->textPair().isEmpty()) r.tokenize.pair = subject()->textPair().toStdString();
    return r;
}

void ExploreView::submit()
{
    if (!m_loadingSpec.isEmpty()) {
        // Opening a model: the job opens it and runs it; a later edit re-submits, opening it again.
        ModelRequest r = modelRequest();
        r.spec = m_loadingSpec;
        r.useFirstExample = m_useFirstExample;
        runner()->submit([r](const JobContext &ctx) { return runModel(r, ctx); });
        return;
    }
    if (m_raw || !m_model) {
        const ExperimentRequest r = request();
        runner()->submit([r](const JobContext &ctx) { return runExperiment(r, ctx); });
        return;
    }
    ModelRequest r = modelRequest();
    r.model = m_model;
    r.spec = QString::fromStdString(m_model->spec());
    runner()->submit([r](const JobContext &ctx) { return runModel(r, ctx); });
}

bool ExploreView::onResult(const SnapshotPtr &snapshot)
{
    auto explore = snapshotAs<ExploreSnapshot>(snapshot);
    if (!explore) return false;
    auto model = snapshotAs<ModelSnapshot>(snapshot);
    if (model && !m_raw && m_loadingSpec.isEmpty() && model->model != m_model) return false;   // superseded
    if (model && !m_loadingSpec.isEmpty()) adoptModel(model->model, *model);
    if (model && !model->runError.isEmpty()) {
        showError(model->runError);
        return false;
    }
    if (!model && !m_raw) return false;   // a raw result arriving after a model was chosen
    // The previous result is let go of on the work pool once the panels that share it have replaced it.
    auto previous = std::exchange(m_snapshot, std::move(explore));
    showSnapshot();
    releaseInBackground(std::move(previous));
    m_shownPending = m_plot->isPreparing();
    // The flow tab was brought up while this job ran without flow: run again with it.
    if (m_snapshot->flowDeferred && wantsFlow()) rerun();
    return !m_shownPending;   // else resultShown follows when the head heatmap is on screen
}

void ExploreView::adoptModel(const TextModelPtr &model, const ExploreSnapshot &s)
{
    const QString spec = m_loadingSpec;
    m_loadingSpec.clear();
    if (!m_openFailure.isEmpty() && noticeText() == m_openFailure) hideNotice();   // that failure is history now
    m_openFailure.clear();
    m_model = model;
    m_raw = false;
    if (m_useFirstExample) m_layer = m_head = 0;   // a newly picked model; a session keeps its head (clamped)
    if (m_useFirstExample && s.text != m_text->toPlainText()) {
        const QSignalBlocker block(m_text);
        m_text->setPlainText(s.text);
    }
    subject()->setModel(model, spec);
    subject()->setText(m_text->toPlainText());
    m_useFirstExample = false;
    {
        const QSignalBlocker block(m_examples);
        m_examples->clear();
        for (int i = 0; i < s.examples.size(); ++i) {
            m_examples->addItem(s.examples[i], s.examples[i]);
            m_examples->setItemData(i, s.exampleHints.value(i), Qt::ToolTipRole);
        }
    }
    updateExampleHint();
    if (!spec.startsWith(QLatin1String("sample:")) && !spec.startsWith(QLatin1String("random:")) && QFileInfo(spec).isDir()) {
        addRecentModel(QFileInfo(spec).absoluteFilePath());
        rebuildModelPicker();
    }
    syncModelPicker();
    updateModeWidgets();
}

void ExploreView::onRunFailed(const QString &message)
{
    if (!m_loadingSpec.isEmpty()) {
        const QString spec = m_loadingSpec;
        m_loadingSpec.clear();
        m_useFirstExample = false;
        syncModelPicker();
        updateModeWidgets();
        // A notice, not the banner: the run that follows (the raw experiment when nothing else is open) would
        // hide the banner at once, and the user would never learn why the model they asked for is not shown.
        const QString still = m_raw || !m_model ? tr("the random attention layer") : QString::fromStdString(m_model->displayName());
        m_openFailure = tr("Could not open %1: %2. Showing %3 instead.").arg(spec, message, still);
        showNotice(m_openFailure);
        if (!m_model && !m_raw) useRawExperiment();   // nothing to fall back on: the raw experiment
        return;
    }
    Workspace::onRunFailed(message);
}

void ExploreView::showSnapshot()
{
    const ExploreSnapshot &s = *m_snapshot;
    m_layer = std::clamp(m_layer, 0, s.layers - 1);
    m_head = std::clamp(m_head, 0, s.heads - 1);
    if (!m_raw || s.special.size() == std::size_t(s.length())) {
        m_chips->setTokens(s.tokens, s.special);
        fitChips();
    }
    m_inputNote->setText(s.inputNote);
    m_inputNote->setVisible(!s.inputNote.isEmpty());
    m_grid->setStructure(s.kvHeadOf, s.layerWindow);
    m_grid->setHeads(s.layers, s.heads, s.length(), s.weights, s.masked, s.layerMasked);
    m_grid->setSelected(m_layer, m_head);
    bool all = true;
    for (const auto &w : s.weights) all = all && !w.empty();
    QString note = all ? tr("Rows are layers, columns heads (%1 × %2). Click a head to show it large.")
                             .arg(s.layers).arg(s.heads)
                       : tr("%1 tokens: only the selected head is computed. Click another head to "
                            "compute it.").arg(s.length());
    if (!s.kvHeadOf.empty())
        note += QLatin1Char(' ') + tr("Brackets join the query heads that share one K/V head (grouped-query attention, "
                                      "%1 K/V heads).").arg(*std::max_element(s.kvHeadOf.begin(), s.kvHeadOf.end()) + 1);
    if (std::any_of(s.layerWindow.begin(), s.layerWindow.end(), [](int w) { return w > 0; }))
        note += QLatin1Char(' ') + tr("\"W n\": a sliding-window layer, each query sees the last n keys (itself included).");
    m_gridNote->setText(note);
    m_stats->setSnapshot(m_snapshot);
    m_aggregation->setSnapshot(m_snapshot);
    m_aggregation->setLayer(m_layer);
    m_outputs->setSnapshot(m_snapshot);
    m_lines->setSnapshot(m_snapshot);
    m_lines->setLayer(m_layer);
    showHead();
}

void ExploreView::showHead()
{
    if (!m_snapshot) return;
    const ExploreSnapshot &s = *m_snapshot;
    if (!s.hasWeights(m_layer, m_head) || s.scoresOf(m_layer, m_head).empty()) {
        rerun();   // long input: this head's weights (or its scores) were not computed yet
        if (!s.hasWeights(m_layer, m_head)) return;
    }
    auto build = [snapshot = m_snapshot, layer = m_layer, head = m_head] {
        HeatmapData data;
        data.rows = data.cols = snapshot->length();
        data.values = snapshot->weightsOf(layer, head);
        data.scores = snapshot->scoresOf(layer, head);
        data.masked = snapshot->maskedOf(layer);
        data.rowLabels = data.colLabels = snapshot->tokens;
        return data;
    };
    // Long inputs: copying and pooling an n × n head (64 MB at 4096 tokens) would stall the UI thread for
    // hundreds of milliseconds, so the plot prepares it on the thread pool; resultShown waits for it.
    if (s.length() > kAsyncHeatmapAbove) m_plot->setDataAsync(build);
    else m_plot->setData(build());
    QString setting;
    if (m_raw)
        setting = tr("%1 mask · %2 · %3 backend")
                      .arg(maskKindName(s.request.mask) +
                           (s.request.mask == MaskKind::SlidingWindow ? QStringLiteral(" W=%1").arg(s.request.window)
                                                                       : QString()))
                      .arg(positionalPhrase(s.request.positional))
                      .arg(QString::fromStdString(s.backend));
    else
        setting = tr("%1 · %2").arg(s.source, s.maskDescriptionOf(m_layer));
    if (!s.kvHeadOf.empty() && m_head < int(s.kvHeadOf.size()))
        setting += tr(" · K/V head %1").arg(s.kvHeadOf[std::size_t(m_head)]);
    m_plot->setTitle(tr("%1 of %2 layers × %3 heads   —   %4").arg(headName(m_layer, m_head)).arg(s.layers).arg(s.heads).arg(setting));
    emit figureChanged();
}

void ExploreView::selectHead(int layer, int head)
{
    m_layer = layer;
    m_head = head;
    m_grid->setSelected(layer, head);
    m_aggregation->setLayer(layer);
    m_lines->setLayer(layer);
    showHead();
}

void ExploreView::onCellHovered(int row, int col)
{
    m_chips->setHighlight(row, col);
    m_readout->setText(m_plot->hoverText({row, col}));
}

void ExploreView::onHoverLeft()
{
    m_chips->setHighlight(-1, -1);
    m_readout->setText(tr("Hover a cell to read its exact weight and raw score (scaled q·k before the softmax). "
                          "Rows are queries (first token on top), columns keys; hatched grey cells are masked. "
                          "Drag to pan, wheel to zoom, double-click to reset."));
}

} // namespace attnui
