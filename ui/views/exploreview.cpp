// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/exploreview.h"

#include "subject.h"

#include "plots/headgrid.h"
#include "plots/heatmapplot.h"
#include "runner/enginerunner.h"
#include "views/aggregationpanel.h"
#include "views/headstatspanel.h"
#include "views/lineview.h"
#include "views/outputspanel.h"
#include "views/tokenchips.h"

#include <attnscope/attention.h>

#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace attnui {

namespace {

// Typing re-runs after a pause. Short inputs finish in ~10 ms, so a short pause keeps edit → heatmaps under
// 100 ms; long inputs (each run hundreds of ms, stale results dropped but still computed) wait longer.
constexpr int kDebounceShortMs = 50;
constexpr int kDebounceLongMs = 200;
constexpr int kLongInputTokens = 512;
constexpr int kAsyncHeatmapAbove = 512;   // tokens; beyond, the head heatmap is prepared off the UI thread
constexpr int kMaxRecent = 8;
const QString kOpenFolder = QStringLiteral("action:open-folder");
const QString kRawExperiment = QStringLiteral("action:raw-experiment");
constexpr attn::Backend kDefaultBackend = attn::Backend::Auto;   // tiled on the CPU; agrees with the reference (tst_ui_runner)

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

QString positionalLabel(attn::PositionalEncoding pe)
{
    switch (pe) {
    case attn::PositionalEncoding::None: return QObject::tr("none");
    case attn::PositionalEncoding::Sinusoidal: return QObject::tr("sinusoidal");
    case attn::PositionalEncoding::RoPE: return QObject::tr("RoPE");
    case attn::PositionalEncoding::ALiBi: return QObject::tr("ALiBi");
    }
    return {};
}

QLabel *sectionTitle(const QString &text)
{
    auto *label = new QLabel(text);
    QFont f = label->font();
    f.setBold(true);
    label->setFont(f);
    return label;
}

int comboIndexForData(const QComboBox *combo, const QVariant &value)
{
    const int idx = combo->findData(value);
    return idx >= 0 ? idx : 0;
}

} // namespace

ExploreView::ExploreView(Subject *subject, QWidget *parent) : Workspace(subject, parent), m_runner(runner())
{
    setObjectName(QStringLiteral("explore"));   // the settings group; stable across translations
    buildUi();
    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kDebounceShortMs);
    connect(m_debounce, &QTimer::timeout, this, &ExploreView::submit);
    connect(m_runner, &EngineRunner::finished, this, &ExploreView::onFinished);
    connect(m_runner, &EngineRunner::failed, this, &ExploreView::onFailed);
    // Other workspaces write the Subject too (Faithfulness's example picker): Explore shows what they set. Its own
    // edits and adoptModel() update the text box first, so the echo finds it equal and nothing runs twice.
    connect(subject, &Subject::textChanged, this, [this] {
        if (this->subject()->text() != m_text->toPlainText()) m_text->setPlainText(this->subject()->text());   // reruns
    });
    // A model set elsewhere is used as it is, never loaded again. Explore's own model (adoptModel()) is m_model
    // already when it reaches the Subject; while Explore is opening one itself, that one wins.
    connect(subject, &Subject::modelChanged, this, [this] {
        const TextModelPtr model = this->subject()->model();
        if (model && model != m_model && m_loadingSpec.isEmpty()) adoptSubjectModel();
    });
    // A subject that already holds a model (attnscope-cli figure, a lesson) is used as it is.
    const QString spec = defaultModelSpec();
    if (subject->model()) adoptSubjectModel();
    else if (spec.isEmpty()) useRawExperiment();
    else openModel(spec);
}

ExploreView::~ExploreView() = default;

QString ExploreView::defaultText()
{
    return QStringLiteral("the cat sat on the mat because the cat was tired");
}

QString ExploreView::defaultModelSpec()
{
    const std::vector<attn::SampleModelInfo> samples = attn::listSampleModels();
    for (const attn::SampleModelInfo &s : samples)
        if (s.name == "induction-gpt2") return QStringLiteral("sample:induction-gpt2");
    return samples.empty() ? QString() : QStringLiteral("sample:") + QString::fromStdString(samples.front().name);
}

QStringList ExploreView::recentModels()
{
    return QSettings().value(QStringLiteral("models/recent")).toStringList();
}

void ExploreView::addRecentModel(const QString &folder)
{
    QStringList recent = recentModels();
    recent.removeAll(folder);
    recent.prepend(folder);
    while (recent.size() > kMaxRecent) recent.removeLast();
    QSettings().setValue(QStringLiteral("models/recent"), recent);
}

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
    m_text = new QPlainTextEdit;
    m_text->setPlaceholderText(tr("Type some text"));
    m_text->setTabChangesFocus(true);
    m_text->setFixedHeight(m_text->fontMetrics().lineSpacing() * 4 + 12);
    left->addWidget(m_text);
    m_exampleHint = new QLabel;
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
    left->addWidget(scroll, 1);

    // Right: the banner, then one tab per view of the same result.
    auto *rightPane = new QWidget;
    auto *right = new QVBoxLayout(rightPane);
    right->setContentsMargins(4, 0, 0, 0);
    m_error = new QLabel;
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("QLabel { background: #fde2e1; color: #7a1512; border: 1px solid #f1a7a3;"
                                          " border-radius: 4px; padding: 6px; }"));
    m_error->hide();
    right->addWidget(m_error);
    m_explanation = new QLabel;   // "what am I looking at", for the tab shown
    m_explanation->setWordWrap(true);
    m_explanation->setObjectName(QStringLiteral("explanation"));
    right->addWidget(m_explanation);
    m_tabs = new QTabWidget;
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
    right->addWidget(m_tabs, 1);
    onHoverLeft();

    m_splitter = new QSplitter(Qt::Horizontal);
    m_splitter->addWidget(controls);
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
    connect(m_text, &QPlainTextEdit::textChanged, this, [this] {
        subject()->setText(m_text->toPlainText());
        if (m_raw) {
            m_chips->setTokens(tokenizeWords(m_text->toPlainText()));
            fitChips();
        }
        scheduleRun();
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
    connect(m_grid, &HeadGrid::headClicked, this, &ExploreView::selectHead);
    connect(m_stats, &HeadStatsPanel::headActivated, this, [this](int layer, int head) {
        selectHead(layer, head);
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

QWidget *ExploreView::buildRawControls()
{
    m_rawBox = new QGroupBox(tr("Random attention layer"));
    auto *form = new QFormLayout(m_rawBox);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_heads = new QSpinBox;
    m_heads->setRange(1, 16);
    m_heads->setValue(4);
    m_heads->setToolTip(tr("Number of attention heads; d_model must be a multiple of it"));
    form->addRow(tr("&Heads"), m_heads);
    m_dModel = new QComboBox;
    for (int d : {16, 32, 48, 64, 96, 128, 192, 256}) m_dModel->addItem(QString::number(d), d);
    m_dModel->setCurrentIndex(comboIndexForData(m_dModel, 64));
    m_dModel->setToolTip(tr("Embedding width; each head gets d_model / heads dimensions"));
    form->addRow(tr("&d_model"), m_dModel);
    m_seed = new QSpinBox;
    m_seed->setRange(0, 1000000);
    m_seed->setValue(7);
    m_seed->setToolTip(tr("Seed of the random projection weights W_Q, W_K, W_V, W_O"));
    form->addRow(tr("&Seed"), m_seed);
    m_mask = new QComboBox;
    m_mask->addItem(tr("bidirectional"), int(MaskKind::Bidirectional));
    m_mask->addItem(tr("causal"), int(MaskKind::Causal));
    m_mask->addItem(tr("sliding window"), int(MaskKind::SlidingWindow));
    m_mask->setCurrentIndex(comboIndexForData(m_mask, int(MaskKind::Causal)));
    m_window = new QSpinBox;
    m_window->setRange(0, 4096);
    m_window->setValue(2);
    m_window->setPrefix(tr("W = "));
    m_window->setToolTip(tr("Sliding window: a query sees keys at most W positions away"));
    auto *maskRow = new QHBoxLayout;
    maskRow->addWidget(m_mask, 1);
    maskRow->addWidget(m_window);
    auto *maskLabel = new QLabel(tr("&Mask"));
    maskLabel->setBuddy(m_mask);
    form->addRow(maskLabel, maskRow);
    m_positional = new QComboBox;
    for (auto pe : {attn::PositionalEncoding::None, attn::PositionalEncoding::Sinusoidal,
                    attn::PositionalEncoding::RoPE, attn::PositionalEncoding::ALiBi})
        m_positional->addItem(positionalLabel(pe), QString::fromStdString(attn::positionalName(pe)));
    m_positional->setToolTip(tr("Without positional information and without a causal mask the layer is "
                                "permutation-equivariant"));
    form->addRow(tr("&Position"), m_positional);
    m_backend = new QComboBox;
    for (auto b : {attn::Backend::Auto, attn::Backend::Reference, attn::Backend::Tiled, attn::Backend::Unfused,
                   attn::Backend::Cuda})
        m_backend->addItem(QString::fromStdString(attn::backendName(b)), QString::fromStdString(attn::backendName(b)));
    if (!attn::cudaAvailable()) {
        // Greyed out, with the reason where the user looks for it.
        auto *model = qobject_cast<QStandardItemModel *>(m_backend->model());
        QStandardItem *cuda = model->item(m_backend->findData(QStringLiteral("cuda")));
        cuda->setEnabled(false);
        const QString reason = QString::fromStdString(attn::cudaUnavailableReason());
        cuda->setToolTip(tr("CUDA is unavailable: %1").arg(reason));
        m_backend->setToolTip(tr("Compute backend. CUDA is unavailable: %1").arg(reason));
    }
    m_backend->setCurrentIndex(
        comboIndexForData(m_backend, QString::fromStdString(attn::backendName(kDefaultBackend))));
    form->addRow(tr("&Backend"), m_backend);
    for (QSpinBox *spin : {m_heads, m_seed, m_window})
        connect(spin, &QSpinBox::valueChanged, this, &ExploreView::scheduleRun);
    for (QComboBox *combo : {m_dModel, m_mask, m_positional, m_backend})
        connect(combo, &QComboBox::currentIndexChanged, this, &ExploreView::scheduleRun);
    connect(m_mask, &QComboBox::currentIndexChanged, this, &ExploreView::updateWindowEnabled);
    // View ▸ Backend and this box are one setting, kept in the Subject.
    connect(m_backend, &QComboBox::currentIndexChanged, this, [this] {
        if (auto b = attn::parseBackend(m_backend->currentData().toString().toStdString())) subject()->setBackend(*b);
    });
    connect(subject(), &Subject::runOptionsChanged, this, &ExploreView::rerun);
    connect(subject(), &Subject::backendChanged, this, [this] {
        const int i = m_backend->findData(QString::fromStdString(attn::backendName(subject()->backend())));
        if (i >= 0 && i != m_backend->currentIndex()) m_backend->setCurrentIndex(i);
        else scheduleRun();
    });
    updateWindowEnabled();
    m_rawBox->hide();
    return m_rawBox;
}

void ExploreView::rebuildModelPicker()
{
    const QSignalBlocker block(m_modelCombo);
    m_modelCombo->clear();
    for (const attn::SampleModelInfo &s : attn::listSampleModels()) {
        const QString spec = QStringLiteral("sample:") + QString::fromStdString(s.name);
        m_modelCombo->addItem(tr("Sample: %1").arg(QString::fromStdString(s.name)), spec);
        m_modelCombo->setItemData(m_modelCombo->count() - 1, QString::fromStdString(s.folder), Qt::ToolTipRole);
    }
    const QStringList recent = recentModels();
    if (!recent.isEmpty()) m_modelCombo->insertSeparator(m_modelCombo->count());
    for (const QString &folder : recent) {
        m_modelCombo->addItem(tr("Recent: %1").arg(QFileInfo(folder).fileName()), folder);
        m_modelCombo->setItemData(m_modelCombo->count() - 1, QDir::toNativeSeparators(folder), Qt::ToolTipRole);
    }
    m_modelCombo->insertSeparator(m_modelCombo->count());
    m_modelCombo->addItem(tr("Random attention layer (raw experiment)"), kRawExperiment);
    m_modelCombo->addItem(tr("Open Folder…"), kOpenFolder);
    syncModelPicker();
}

void ExploreView::syncModelPicker()
{
    const QString current = m_raw ? kRawExperiment : m_model ? QString::fromStdString(m_model->spec()) : QString();
    const QSignalBlocker block(m_modelCombo);
    int idx = m_modelCombo->findData(current);
    if (idx < 0 && m_model && !m_raw) {
        // A model opened from elsewhere (a random: spec, a folder not in the recents): list it at the top.
        m_modelCombo->insertItem(0, QString::fromStdString(m_model->displayName()), current);
        idx = 0;
    }
    m_modelCombo->setCurrentIndex(idx);
}

void ExploreView::onModelActivated(int index)
{
    const QString data = m_modelCombo->itemData(index).toString();
    if (data == kRawExperiment) {
        useRawExperiment();
        return;
    }
    if (data == kOpenFolder) {
        syncModelPicker();   // until a folder is chosen and opens, the current model stays selected
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Model Folder"),
                                                              recentModels().value(0, QDir::homePath()));
        if (!dir.isEmpty()) openModel(dir);
        return;
    }
    if (!data.isEmpty()) openModel(data);
}

void ExploreView::openModel(const QString &spec)
{
    m_loadingSpec = spec;
    m_useFirstExample = true;
    m_modelInfo->setText(tr("Opening %1…").arg(spec));
    rerun();
}

void ExploreView::useRawExperiment()
{
    m_raw = true;
    m_loadingSpec.clear();
    if (m_text->toPlainText().trimmed().isEmpty() || m_model) {
        const QSignalBlocker block(m_text);
        m_text->setPlainText(defaultText());
    }
    m_chips->setTokens(tokenizeWords(m_text->toPlainText()));
    fitChips();
    updateModeWidgets();
    syncModelPicker();
    rerun();
}

void ExploreView::updateModeWidgets()
{
    m_rawBox->setVisible(m_raw);
    m_examples->setVisible(!m_raw && m_examples->count() > 0);
    m_examplesLabel->setVisible(m_examples->isVisibleTo(this));
    if (m_raw) {
        m_intro->setText(tr("A raw experiment: one random multi-head self-attention layer over fixed random word "
                            "embeddings — the same word always gets the same vector. Edit anything to re-run; "
                            "click a head to enlarge it."));
        m_modelInfo->setText(tr("words split on spaces · 1 layer · no output head"));
        m_exampleHint->hide();
    } else {
        m_intro->setText(tr("Type or pick a text; the model re-runs as you type. Click a head in the overview to "
                            "enlarge it, hover a cell for its weight and raw score."));
        if (m_model) m_modelInfo->setText(describeModel(*m_model));
    }
}

void ExploreView::fitChips()
{
    const int rowHeight = m_chips->minimumSizeHint().height();
    const int want = m_chips->heightForWidth(m_chipsScroll->viewport()->width());
    m_chipsScroll->setFixedHeight(std::min(want, rowHeight * 5 + 4 * 5));
}

bool ExploreView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_chipsScroll->viewport() && event->type() == QEvent::Resize) fitChips();
    return Workspace::eventFilter(watched, event);
}

void ExploreView::updateWindowEnabled()
{
    m_window->setEnabled(m_mask->currentData().toInt() == int(MaskKind::SlidingWindow));
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
    if (m_viewFigure == m_grid) parts << tr("all layers × heads");
    else if (m_tabs->currentIndex() == HeadTab) parts << tr("layer %1 head %2").arg(m_layer + 1).arg(m_head + 1);
    else if (m_tabs->currentIndex() == LinesTab) parts << tr("layer %1, all heads").arg(m_layer + 1);
    if (m_raw) parts << m_mask->currentText();
    // attnscope-cli figure --mask / --pad: say which mask the figure ran with.
    else if ((subject()->maskOverride() || subject()->padding() > 0) && m_snapshot) parts << m_snapshot->maskDescription;
    return parts.join(QStringLiteral(" · "));
}

HeatmapPlot *ExploreView::currentFigure() const
{
    switch (m_tabs->currentIndex()) {
    case StatisticsTab: return m_stats->plot();
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
    m_aggregation->setColorMap(map);
}

void ExploreView::setText(const QString &text)
{
    m_text->setPlainText(text);
}

QString ExploreView::text() const
{
    return m_text->toPlainText();
}

QString ExploreView::errorText() const
{
    return m_error->isHidden() ? QString() : m_error->text();
}

ExperimentRequest ExploreView::request() const
{
    ExperimentRequest r;
    r.text = m_text->toPlainText();
    r.heads = m_heads->value();
    r.dModel = m_dModel->currentData().toInt();
    r.seed = quint64(m_seed->value());
    r.mask = MaskKind(m_mask->currentData().toInt());
    r.window = m_window->value();
    r.positional = attn::parsePositional(m_positional->currentData().toString().toStdString())
                       .value_or(attn::PositionalEncoding::None);
    r.backend = attn::parseBackend(m_backend->currentData().toString().toStdString()).value_or(kDefaultBackend);
    r.focusHead = m_head;
    r.flow = wantsFlow();
    return r;
}

bool ExploreView::wantsFlow() const
{
    return m_tabs->currentIndex() == AggregationTab;
}

void ExploreView::scheduleRun()
{
    const bool longInput = m_snapshot && m_snapshot->length() > kLongInputTokens;
    m_debounce->setInterval(longInput ? kDebounceLongMs : kDebounceShortMs);
    m_debounce->start();
}

void ExploreView::rerun()
{
    m_debounce->stop();
    submit();
}

void ExploreView::submit()
{
    if (!m_runner) return;
    if (!m_loadingSpec.isEmpty()) {
        // Opening a model: the job opens it and runs it; a later edit re-submits, opening it again.
        ModelRequest r;
        r.spec = m_loadingSpec;
        r.text = m_text->toPlainText();
        r.useFirstExample = m_useFirstExample;
        r.focusLayer = m_layer;
        r.focusHead = m_head;
        r.flow = wantsFlow();
        r.backend = subject()->backend();
        r.maskOverride = subject()->maskOverride();
        r.padding = subject()->padding();
        m_runner->submit([r](const JobContext &ctx) { return runModel(r, ctx); });
        return;
    }
    if (m_raw || !m_model) {
        const ExperimentRequest r = request();
        m_runner->submit([r](const JobContext &ctx) { return runExperiment(r, ctx); });
        return;
    }
    ModelRequest r;
    r.model = m_model;
    r.spec = QString::fromStdString(m_model->spec());
    r.text = m_text->toPlainText();
    r.focusLayer = m_layer;
    r.focusHead = m_head;
    r.flow = wantsFlow();
    r.backend = subject()->backend();
    r.maskOverride = subject()->maskOverride();
    r.padding = subject()->padding();
    m_runner->submit([r](const JobContext &ctx) { return runModel(r, ctx); });
}

void ExploreView::onFinished(const SnapshotPtr &snapshot)
{
    if (!snapshot) return;
    auto explore = std::dynamic_pointer_cast<const ExploreSnapshot>(snapshot);
    if (!explore) return;
    auto model = std::dynamic_pointer_cast<const ModelSnapshot>(snapshot);
    if (model && !m_raw && m_loadingSpec.isEmpty() && model->model != m_model) return;   // superseded
    if (model && !m_loadingSpec.isEmpty()) adoptModel(model->model, *model);
    if (model && !model->runError.isEmpty()) {
        showError(model->runError);
        return;
    }
    if (!model && !m_raw) return;   // a raw result arriving after a model was chosen
    m_snapshot = std::move(explore);
    hideError();
    showSnapshot();
    m_shownPending = m_plot->isPreparing();
    if (!m_shownPending) emit resultShown();
    // The flow tab was brought up while this job ran without flow: run again with it.
    if (m_snapshot->flowDeferred && wantsFlow()) rerun();
}

void ExploreView::adoptModel(const TextModelPtr &model, const ExploreSnapshot &s)
{
    const QString spec = m_loadingSpec;
    m_loadingSpec.clear();
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
        m_examples->setCurrentIndex(s.examples.indexOf(s.text));
    }
    const int ex = s.examples.indexOf(s.text);
    m_exampleHint->setText(ex >= 0 && !s.exampleHints.value(ex).isEmpty() ? tr("What to look for: %1").arg(s.exampleHints[ex])
                                                                           : QString());
    m_exampleHint->setVisible(!m_exampleHint->text().isEmpty());
    if (!spec.startsWith(QLatin1String("sample:")) && !spec.startsWith(QLatin1String("random:")) && QFileInfo(spec).isDir()) {
        addRecentModel(QFileInfo(spec).absoluteFilePath());
        rebuildModelPicker();
    }
    syncModelPicker();
    updateModeWidgets();
}

void ExploreView::onFailed(const QString &message)
{
    if (!m_loadingSpec.isEmpty()) {
        const QString spec = m_loadingSpec;
        m_loadingSpec.clear();
        m_useFirstExample = false;
        syncModelPicker();
        updateModeWidgets();
        const QString still = m_raw ? tr("the random attention layer") : m_model ? QString::fromStdString(m_model->displayName()) : QString();
        showError(still.isEmpty() ? tr("Could not open %1: %2").arg(spec, message)
                                  : tr("Could not open %1: %2. Still using %3.").arg(spec, message, still));
        if (!m_model && !m_raw) useRawExperiment();   // nothing to fall back on: the raw experiment
        return;
    }
    showError(couldNotRunText(message, m_snapshot != nullptr));
}

void ExploreView::showError(const QString &message)
{
    m_error->setText(message);
    m_error->show();
}

void ExploreView::hideError()
{
    m_error->hide();
    m_error->clear();
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
    m_grid->setHeads(s.layers, s.heads, s.length(), s.weights, s.masked);
    m_grid->setSelected(m_layer, m_head);
    bool all = true;
    for (const auto &w : s.weights) all = all && !w.empty();
    m_gridNote->setText(all ? tr("Rows are layers, columns heads (%1 × %2). Click a head to show it large.")
                                  .arg(s.layers).arg(s.heads)
                            : tr("%1 tokens: only the selected head is computed. Click another head to "
                                 "compute it.").arg(s.length()));
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
        data.masked = snapshot->masked;
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
        setting = tr("%1 · %2").arg(s.source, s.maskDescription);
    m_plot->setTitle(tr("Layer %1 of %2 · head %3 of %4   —   %5")
                         .arg(m_layer + 1).arg(s.layers).arg(m_head + 1).arg(s.heads).arg(setting));
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

void ExploreView::saveSettings(QSettings &settings) const
{
    // The raw experiment's settings; the model and text start fresh on the default sample each time.
    const ExperimentRequest r = request();
    settings.setValue(QStringLiteral("heads"), r.heads);
    settings.setValue(QStringLiteral("dModel"), r.dModel);
    settings.setValue(QStringLiteral("seed"), r.seed);
    settings.setValue(QStringLiteral("mask"), maskKindName(r.mask));
    settings.setValue(QStringLiteral("window"), r.window);
    settings.setValue(QStringLiteral("positional"), m_positional->currentData());
    settings.setValue(QStringLiteral("splitter"), m_splitter->saveState());
    settings.setValue(QStringLiteral("tab"), m_tabs->currentIndex());
}

void ExploreView::restoreSettings(const QSettings &settings)
{
    const QSignalBlocker b1(m_heads), b2(m_dModel), b3(m_seed), b4(m_mask), b5(m_window), b6(m_positional),
        b7(m_backend);
    m_heads->setValue(settings.value(QStringLiteral("heads"), m_heads->value()).toInt());
    m_dModel->setCurrentIndex(comboIndexForData(m_dModel, settings.value(QStringLiteral("dModel"), 64).toInt()));
    m_seed->setValue(settings.value(QStringLiteral("seed"), m_seed->value()).toInt());
    const QString mask = settings.value(QStringLiteral("mask"), maskKindName(MaskKind::Causal)).toString();
    for (MaskKind k : {MaskKind::Bidirectional, MaskKind::Causal, MaskKind::SlidingWindow})
        if (maskKindName(k) == mask) m_mask->setCurrentIndex(comboIndexForData(m_mask, int(k)));
    m_window->setValue(settings.value(QStringLiteral("window"), m_window->value()).toInt());
    m_positional->setCurrentIndex(comboIndexForData(m_positional, settings.value(QStringLiteral("positional"))));
    // The backend is View ▸ Backend's (the Subject's, restored by the main window); this box only shows it.
    const int b = m_backend->findData(QString::fromStdString(attn::backendName(subject()->backend())));
    auto *model = qobject_cast<QStandardItemModel *>(m_backend->model());
    if (b >= 0 && model->item(b)->isEnabled()) m_backend->setCurrentIndex(b);
    updateWindowEnabled();
    m_splitter->restoreState(settings.value(QStringLiteral("splitter")).toByteArray());
    m_tabs->setCurrentIndex(std::clamp(settings.value(QStringLiteral("tab"), 0).toInt(), 0, m_tabs->count() - 1));
    if (m_raw) scheduleRun();
}

} // namespace attnui
