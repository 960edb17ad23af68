// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/exploreview.h"

#include "plots/headgrid.h"
#include "plots/heatmapplot.h"
#include "runner/enginerunner.h"
#include "views/tokenchips.h"

#include <attnscope/attention.h>

#include <QComboBox>
#include <QEvent>
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
#include <QTimer>
#include <QVBoxLayout>

namespace attnui {

namespace {

constexpr int kDebounceMs = 150;
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

ExploreView::ExploreView(EngineRunner *runner, QWidget *parent) : Workspace(parent), m_runner(runner)
{
    setObjectName(QStringLiteral("explore"));   // the settings group; stable across translations
    buildUi();
    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kDebounceMs);
    connect(m_debounce, &QTimer::timeout, this, &ExploreView::submit);
    connect(m_runner, &EngineRunner::finished, this, &ExploreView::onFinished);
    connect(m_runner, &EngineRunner::failed, this, &ExploreView::onFailed);
    scheduleRun();
}

ExploreView::~ExploreView() = default;

QString ExploreView::defaultText()
{
    return QStringLiteral("the cat sat on the mat because the cat was tired");
}

void ExploreView::buildUi()
{
    // Left: input and settings.
    auto *controls = new QWidget;
    auto *left = new QVBoxLayout(controls);
    auto *intro = new QLabel(tr("A raw experiment: one random multi-head self-attention layer over fixed random "
                                "word embeddings — the same word always gets the same vector. Edit anything to "
                                "re-run; hover a cell for its exact weight; click a head to enlarge it."));
    intro->setWordWrap(true);
    intro->setForegroundRole(QPalette::PlaceholderText);
    left->addWidget(intro);

    left->addWidget(sectionTitle(tr("Text")));
    m_text = new QPlainTextEdit;
    m_text->setPlainText(defaultText());
    m_text->setPlaceholderText(tr("Type a sentence; words are split on spaces"));
    m_text->setTabChangesFocus(true);
    m_text->setFixedHeight(m_text->fontMetrics().lineSpacing() * 4 + 12);
    left->addWidget(m_text);
    m_chips = new TokenChips;
    m_chips->setPlaceholder(tr("No tokens"));
    // Long inputs scroll inside a few rows of chips instead of pushing the overview off screen.
    m_chipsScroll = new QScrollArea;
    m_chipsScroll->setWidget(m_chips);
    m_chipsScroll->setWidgetResizable(true);
    m_chipsScroll->setFrameShape(QFrame::NoFrame);
    m_chipsScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_chipsScroll->viewport()->installEventFilter(this);
    left->addWidget(m_chipsScroll);

    auto *layerBox = new QGroupBox(tr("Attention layer"));
    auto *form = new QFormLayout(layerBox);
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
    left->addWidget(layerBox);

    // Below the settings: the overview of all heads, beside the large head view.
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

    // Right: one head, large.
    auto *head = new QWidget;
    auto *right = new QVBoxLayout(head);
    m_error = new QLabel;
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("QLabel { background: #fde2e1; color: #7a1512; border: 1px solid #f1a7a3;"
                                          " border-radius: 4px; padding: 6px; }"));
    m_error->hide();
    right->addWidget(m_error);
    m_plot = new HeatmapPlot;
    right->addWidget(m_plot, 1);
    m_readout = new QLabel;
    m_readout->setTextFormat(Qt::PlainText);
    m_readout->setMinimumHeight(m_readout->fontMetrics().height() * 2 + 4);
    m_readout->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    right->addWidget(m_readout);
    onHoverLeft();

    m_splitter = new QSplitter(Qt::Horizontal);
    m_splitter->addWidget(controls);
    m_splitter->addWidget(head);
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setSizes({400, 1200});
    m_splitter->setChildrenCollapsible(false);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    outer->addWidget(m_splitter);

    connect(m_text, &QPlainTextEdit::textChanged, this, [this] {
        m_chips->setTokens(tokenizeWords(m_text->toPlainText()));
        fitChips();
        scheduleRun();
    });
    m_chips->setTokens(tokenizeWords(m_text->toPlainText()));
    fitChips();
    for (QSpinBox *spin : {m_heads, m_seed, m_window})
        connect(spin, &QSpinBox::valueChanged, this, &ExploreView::scheduleRun);
    for (QComboBox *combo : {m_dModel, m_mask, m_positional, m_backend})
        connect(combo, &QComboBox::currentIndexChanged, this, &ExploreView::scheduleRun);
    connect(m_mask, &QComboBox::currentIndexChanged, this, &ExploreView::updateWindowEnabled);
    updateWindowEnabled();

    connect(m_grid, &HeadGrid::headClicked, this, &ExploreView::selectHead);
    connect(m_plot, &HeatmapPlot::cellHovered, this, &ExploreView::onCellHovered);
    connect(m_plot, &HeatmapPlot::hoverLeft, this, &ExploreView::onHoverLeft);
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

HeatmapPlot *ExploreView::currentFigure() const
{
    return m_plot;
}

void ExploreView::setColorMap(ColorMap map)
{
    m_colorMap = map;
    m_plot->setColorMap(map);
    m_grid->setColorMap(map);
}

void ExploreView::setText(const QString &text)
{
    m_text->setPlainText(text);
}

QString ExploreView::errorText() const
{
    return m_error->isVisible() || !m_error->isHidden() ? m_error->text() : QString();
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
    return r;
}

void ExploreView::scheduleRun()
{
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
    const ExperimentRequest r = request();
    m_pending = m_runner->submit([r](const JobContext &ctx) { return runExperiment(r, ctx); });
}

void ExploreView::onFinished(const SnapshotPtr &snapshot)
{
    if (!snapshot || snapshot->generation != m_pending) return;   // another workspace's job
    auto explore = std::dynamic_pointer_cast<const ExploreSnapshot>(snapshot);
    if (!explore) return;
    m_snapshot = std::move(explore);
    m_error->hide();
    showSnapshot();
    emit resultShown();
}

void ExploreView::onFailed(const QString &message)
{
    if (m_runner && m_runner->currentGeneration() != m_pending) return;
    showError(message);
}

void ExploreView::showError(const QString &message)
{
    m_error->setText(m_snapshot ? tr("Could not run: %1. The last result is still shown.").arg(message)
                                : tr("Could not run: %1.").arg(message));
    m_error->show();
}

void ExploreView::showSnapshot()
{
    const ExploreSnapshot &s = *m_snapshot;
    m_layer = std::clamp(m_layer, 0, s.layers - 1);
    m_head = std::clamp(m_head, 0, s.heads - 1);
    m_grid->setHeads(s.layers, s.heads, s.length(), s.weights, s.masked);
    m_grid->setSelected(m_layer, m_head);
    const bool all = s.length() <= s.request.allHeadsUpTo;
    m_gridNote->setText(all ? tr("Rows are layers, columns heads. Click a head to show it large.")
                            : tr("%1 tokens: only the selected head is computed. Click another head to "
                                 "compute it.").arg(s.length()));
    showHead();
}

void ExploreView::showHead()
{
    if (!m_snapshot) return;
    const ExploreSnapshot &s = *m_snapshot;
    if (!s.hasWeights(m_layer, m_head)) {
        rerun();   // long input: this head's weights were not computed yet
        return;
    }
    HeatmapData data;
    data.rows = data.cols = s.length();
    data.values = s.weightsOf(m_layer, m_head);
    data.scores = s.scoresOf(m_layer, m_head);
    data.masked = s.masked;
    data.rowLabels = data.colLabels = s.tokens;
    m_plot->setData(std::move(data));
    m_plot->setTitle(tr("Layer %1 · head %2 of %3   —   %4 mask · %5 · %6 backend")
                         .arg(m_layer + 1)
                         .arg(m_head + 1)
                         .arg(s.heads)
                         .arg(maskKindName(s.request.mask) +
                              (s.request.mask == MaskKind::SlidingWindow ? QStringLiteral(" W=%1").arg(s.request.window)
                                                                          : QString()))
                         .arg(positionalPhrase(s.request.positional))
                         .arg(QString::fromStdString(s.backend)));
    emit figureChanged();
}

void ExploreView::selectHead(int layer, int head)
{
    m_layer = layer;
    m_head = head;
    m_grid->setSelected(layer, head);
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
    m_readout->setText(tr("Hover a cell to read its exact weight and score. Rows are queries (first token on "
                          "top), columns keys; hatched grey cells are masked. Drag to pan, wheel to zoom, "
                          "double-click to reset."));
    m_readout->setWordWrap(true);
}

void ExploreView::saveSettings(QSettings &settings) const
{
    const ExperimentRequest r = request();
    settings.setValue(QStringLiteral("text"), r.text);
    settings.setValue(QStringLiteral("heads"), r.heads);
    settings.setValue(QStringLiteral("dModel"), r.dModel);
    settings.setValue(QStringLiteral("seed"), r.seed);
    settings.setValue(QStringLiteral("mask"), maskKindName(r.mask));
    settings.setValue(QStringLiteral("window"), r.window);
    settings.setValue(QStringLiteral("positional"), m_positional->currentData());
    settings.setValue(QStringLiteral("backend"), m_backend->currentData());
    settings.setValue(QStringLiteral("splitter"), m_splitter->saveState());
}

void ExploreView::restoreSettings(const QSettings &settings)
{
    if (settings.contains(QStringLiteral("text"))) m_text->setPlainText(settings.value(QStringLiteral("text")).toString());
    m_heads->setValue(settings.value(QStringLiteral("heads"), m_heads->value()).toInt());
    m_dModel->setCurrentIndex(comboIndexForData(m_dModel, settings.value(QStringLiteral("dModel"), 64).toInt()));
    m_seed->setValue(settings.value(QStringLiteral("seed"), m_seed->value()).toInt());
    const QString mask = settings.value(QStringLiteral("mask"), maskKindName(MaskKind::Causal)).toString();
    for (MaskKind k : {MaskKind::Bidirectional, MaskKind::Causal, MaskKind::SlidingWindow})
        if (maskKindName(k) == mask) m_mask->setCurrentIndex(comboIndexForData(m_mask, int(k)));
    m_window->setValue(settings.value(QStringLiteral("window"), m_window->value()).toInt());
    m_positional->setCurrentIndex(comboIndexForData(m_positional, settings.value(QStringLiteral("positional"))));
    // A saved backend that cannot run here (CUDA on a machine without a GPU) falls back to the default.
    const int b = m_backend->findData(settings.value(QStringLiteral("backend")));
    auto *model = qobject_cast<QStandardItemModel *>(m_backend->model());
    if (b >= 0 && model->item(b)->isEnabled()) m_backend->setCurrentIndex(b);
    m_splitter->restoreState(settings.value(QStringLiteral("splitter")).toByteArray());
    scheduleRun();
}

} // namespace attnui
