// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/pipeline/pipelineview.h"
#include "kit/fontscale.h"

#include "plots/heatmapplot.h"
#include "runner/enginerunner.h"
#include "kit/subject.h"
#include "kit/matrixpanel.h"
#include "workspaces/pipeline/pipelinecontrols.h"
#include "kit/numbering.h"
#include "kit/stateio.h"
#include "runner/workpool.h"

#include <attnscope/modelconfig.h>

#include <QButtonGroup>
#include <QComboBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonValue>
#include <QLabel>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QShortcut>
#include <QSpinBox>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace attnui {

namespace {

// The stepper's stage labels: the current one in the highlight colours. A style sheet's palette() colours are
// resolved when it is set, so it is set again when the palette changes (changeEvent): otherwise the labels keep
// the old theme's colours, dark text on a dark window after a switch to the dark theme.
QString stageButtonStyle()
{
    return QStringLiteral("QToolButton:checked { background: palette(highlight); color: palette(highlighted-text); "
                          "font-weight: bold; border-radius: 3px; padding: 2px 6px; }");
}

constexpr int kDebounceMs = 120;
constexpr double kCheckTolerance = 1e-4;   // fp32 engine vs fp64 recomputation, weights in [0, 1]
const QString kDefaultText = QStringLiteral("the cat sat on the mat");

QStringList columnLabels(int n)
{
    QStringList l;
    for (int c = 0; c < n; ++c) l << QString::number(c);
    return l;
}

QString fmt(double v) { return QString::number(v, 'g', 3); }

} // namespace

PipelineView::PipelineView(Subject *subject, QWidget *parent)
    : Workspace(subject, QStringLiteral("pipeline"), {.debounceMs = kDebounceMs, .followBackend = false}, parent)
{
    buildUi();
    // The head chosen in Explore, when it exists in the model Pipeline shows.
    connect(subject, &Subject::headChosen, this, [this] {
        const std::optional<attn::HeadRef> head = this->subject()->chosenHead();
        const TextModelPtr model = this->subject()->model();
        if (!head || !model || head->layer >= model->model().config().layers || head->head >= model->model().config().heads)
            return;
        m_settings.layer = int(head->layer);
        m_settings.head = int(head->head);
        {
            const QSignalBlocker b1(m_layer), b2(m_head);
            setIndex(m_layer, m_settings.layer);
            setIndex(m_head, m_settings.head);
        }
        scheduleRun();   // while hidden, when next shown
    });
    // Presentation clickers send ←/→ and PageUp/PageDown: they step the stages wherever the focus is in the
    // window while Pipeline is shown (a hidden widget's shortcuts are off). Text and number editors take these keys
    // first (they accept the ShortcutOverride), so typing still moves their cursor; a slider never sees them.
    for (const auto &[key, forward] : {std::pair{Qt::Key_Right, true}, std::pair{Qt::Key_PageDown, true},
                                       std::pair{Qt::Key_Left, false}, std::pair{Qt::Key_PageUp, false}}) {
        auto *shortcut = new QShortcut(QKeySequence(key), this);
        shortcut->setContext(Qt::WindowShortcut);
        connect(shortcut, &QShortcut::activated, this, forward ? &PipelineView::stepForward : &PipelineView::stepBack);
    }
    scheduleRun();
}

void PipelineView::onModelChanged()
{
    // Another model may have fewer layers or heads; without one (Explore's raw experiment) the fallback runs.
    std::optional<attn::ModelConfig> config;
    if (const TextModelPtr m = subject()->model()) config = m->model().config();
    else if (auto fallback = attn::parseSyntheticSpec(kFallbackSpec))
        config = *fallback;
    if (config) {
        if (m_settings.layer >= config->layers) m_settings.layer = 0;
        if (m_settings.head >= config->heads) m_settings.head = 0;
    }
    scheduleRun();
}

PipelineView::~PipelineView() = default;

void PipelineView::buildUi()
{
    QVBoxLayout *outer = makePage();
    refreshExplanation();

    auto *bar = new QHBoxLayout;
    m_layer = makeIndexSpinBox(tr("layer "));
    m_head = makeIndexSpinBox(tr("head "));
    bar->addWidget(m_layer);
    bar->addWidget(m_head);
    bar->addSpacing(16);
    m_back = new QToolButton;
    m_back->setText(tr("◀ Back"));
    m_back->setToolTip(tr("Previous stage (←)"));
    bar->addWidget(m_back);
    m_stageButtons = new QButtonGroup(this);
    for (int i = 0; i < kPipelineStageCount; ++i) {
        auto *b = new QToolButton;
        b->setText(stageTitle(PipelineStage(i)));
        b->setCheckable(true);
        b->setAutoRaise(true);
        b->setFocusPolicy(Qt::NoFocus);
        b->setToolTip(stageFormula(PipelineStage(i)));
        b->setStyleSheet(stageButtonStyle());
        m_stageButtons->addButton(b, i);
        bar->addWidget(b);
        if (i + 1 < kPipelineStageCount) bar->addWidget(new QLabel(QStringLiteral("→")));
    }
    m_next = new QToolButton;
    m_next->setText(tr("Next ▶"));
    m_next->setToolTip(tr("Next stage (→)"));
    bar->addWidget(m_next);
    for (QToolButton *b : {m_back, m_next}) b->setFocusPolicy(Qt::NoFocus);
    // A walk through the stages on its own, for a projector: one stage per step, from X again after the last. On
    // the info line, right: the stepper row is as wide as it may be beside the lesson dock at 1280×720.
    m_play = new QToolButton;
    m_play->setCheckable(true);
    m_play->setFocusPolicy(Qt::NoFocus);
    m_play->setToolTip(tr("Walk through the stages on its own (Space)"));
    m_speed = new QComboBox;
    m_speed->setFocusPolicy(Qt::NoFocus);
    m_speed->addItem(tr("slow"), 4000);
    m_speed->addItem(tr("normal"), 2500);
    m_speed->addItem(tr("fast"), 1200);
    m_speed->setCurrentIndex(1);
    m_speed->setToolTip(tr("Time on each stage while playing"));
    m_playTimer = new QTimer(this);
    connect(m_playTimer, &QTimer::timeout, this, [this] {
        setStage(int(m_stage) + 1 < kPipelineStageCount ? PipelineStage(int(m_stage) + 1) : PipelineStage::Input);
    });
    connect(m_play, &QToolButton::toggled, this, &PipelineView::setPlaying);
    connect(m_speed, &QComboBox::currentIndexChanged, this, [this] { m_playTimer->setInterval(playInterval()); });
    auto *space = new QShortcut(QKeySequence(Qt::Key_Space), this, [this] { setPlaying(!isPlaying()); });
    space->setContext(Qt::WidgetWithChildrenShortcut);
    setPlaying(false);
    bar->addStretch(1);
    outer->addLayout(bar);
    m_info = new QLabel;
    m_info->setForegroundRole(QPalette::PlaceholderText);
    m_info->setWordWrap(true);
    auto *infoRow = new QHBoxLayout;
    infoRow->addWidget(m_info, 1);
    infoRow->addWidget(m_play);
    infoRow->addWidget(m_speed);
    outer->addLayout(infoRow);

    auto *split = new QSplitter(Qt::Horizontal);
    m_figure = new QWidget;
    m_figure->setAutoFillBackground(true);
    auto *fig = new QVBoxLayout(m_figure);
    m_formula = new QLabel;
    setRelativeFont(m_formula, 1.35, true);
    m_formula->setTextInteractionFlags(Qt::TextSelectableByMouse);
    fig->addWidget(m_formula);
    m_stageText = new QLabel;
    m_stageText->setWordWrap(true);
    fig->addWidget(m_stageText);
    // The tiled stage: one key block at a time.
    m_tileBar = new QWidget;
    auto *tileRow = new QHBoxLayout(m_tileBar);
    tileRow->setContentsMargins(0, 0, 0, 0);
    m_tilePrev = new QToolButton;
    m_tilePrev->setText(tr("◀ Block"));
    m_tilePrev->setToolTip(tr("The previous key block"));
    m_tileNext = new QToolButton;
    m_tileNext->setText(tr("Block ▶"));
    m_tileNext->setToolTip(tr("The next key block"));
    m_tileLabel = new QLabel;
    m_tileKeysBox = new QSpinBox;
    m_tileKeysBox->setRange(1, kTiledMaxTokens);
    m_tileKeysBox->setPrefix(tr("keys per block "));
    m_tileKeysBox->setToolTip(tr("How many keys the kernel reads at a time (the engine's CPU kernel reads 64 or more)"));
    tileRow->addWidget(m_tilePrev);
    tileRow->addWidget(m_tileLabel);
    tileRow->addWidget(m_tileNext);
    tileRow->addSpacing(12);
    tileRow->addWidget(m_tileKeysBox);
    tileRow->addStretch(1);
    fig->addWidget(m_tileBar);
    connect(m_tilePrev, &QToolButton::clicked, this, [this] { setTileStep(m_tileKeys, m_tileBlock - 1); });
    connect(m_tileNext, &QToolButton::clicked, this, [this] { setTileStep(m_tileKeys, m_tileBlock + 1); });
    connect(m_tileKeysBox, &QSpinBox::valueChanged, this, [this](int keys) {
        if (keys != effectiveTileKeys()) setTileStep(keys, 0);
    });
    // Inputs stacked on the left, the stage's result on the right; scrolls when the window is narrow.
    auto *grid = new QGridLayout;
    grid->setHorizontalSpacing(10);
    for (int i = 0; i < 3; ++i) {
        auto *panel = new MatrixPanel;
        panel->table()->setFocusPolicy(Qt::NoFocus);
        // Two inputs stacked beside the result: each keeps a 120 px matrix (tst_ui_layout) under its axes; the
        // matrices scroll below that.
        panel->plot()->setMinimumHeight(190);
        m_panels << panel;
    }
    auto *op = new QLabel;
    setRelativeFont(op, 1.8);
    m_operators << op;
    grid->addWidget(m_panels[0], 0, 0);
    grid->addWidget(m_panels[1], 1, 0);
    grid->addWidget(op, 0, 1, 2, 1);
    grid->addWidget(m_panels[2], 0, 2, 2, 1);
    auto *matrices = new QWidget;
    matrices->setLayout(grid);
    auto *matrixScroll = new QScrollArea;
    matrixScroll->setWidget(matrices);
    matrixScroll->setWidgetResizable(true);
    matrixScroll->setFrameShape(QFrame::NoFrame);
    fig->addWidget(matrixScroll, 1);
    m_check = new QLabel;
    m_check->setWordWrap(true);
    fig->addWidget(m_check);
    split->addWidget(m_figure);

    m_controls = new PipelineControls;
    m_controlsScroll = new QScrollArea;
    m_controlsScroll->setWidget(m_controls);
    m_controlsScroll->setWidgetResizable(true);
    split->addWidget(m_controlsScroll);
    fitControlsWidth();
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 0);
    outer->addWidget(split, 1);

    connect(m_back, &QToolButton::clicked, this, &PipelineView::stepBack);
    connect(m_next, &QToolButton::clicked, this, &PipelineView::stepForward);
    connect(m_stageButtons, &QButtonGroup::idClicked, this, [this](int id) { setStage(PipelineStage(id)); });
    connect(m_layer, &QSpinBox::valueChanged, this, [this] { m_settings.layer = indexOf(m_layer); scheduleRun(); });
    connect(m_head, &QSpinBox::valueChanged, this, [this] { m_settings.head = indexOf(m_head); scheduleRun(); });
    connect(m_controls, &PipelineControls::changed, this, &PipelineView::onControlsChanged);
    // The toy: its numbers instead of the model's head; the layer, head and positions then mean nothing.
    connect(m_controls->toyEditor(), &QGroupBox::toggled, this, [this](bool on) {
        enableModelControls(!on);
        scheduleRun();
    });
    connect(m_controls->toyEditor(), &ToyEditor::edited, this, [this] {
        if (isToy()) scheduleRun();
    });
    m_controls->setFrom(m_settings);
    showStage();
}

QAbstractButton *PipelineView::stageButton(PipelineStage stage) const
{
    return m_stageButtons->button(int(stage));
}

void PipelineView::changeEvent(QEvent *event)
{
    Workspace::changeEvent(event);
    if (event->type() == QEvent::FontChange) fitControlsWidth();
    if (event->type() != QEvent::PaletteChange || !m_stageButtons) return;
    for (QAbstractButton *b : m_stageButtons->buttons()) {
        b->setStyleSheet(QString());
        b->setStyleSheet(stageButtonStyle());
    }
}

QString PipelineView::guide() const
{
    return tr("<p><b>Pipeline</b> takes one head through self-attention step by step with the numbers of the real "
              "forward pass: X, then Q, K and V, the scores QKᵀ, the scaling by √d_k, the mask, the softmax and Y = PV. "
              "It follows the model, text and head chosen in Explore.</p>"
              "<p>Step with ← / → or PageUp / PageDown (a presentation clicker sends these) or the buttons; ▶ Play (or "
              "Space) walks through the stages on its own, slow, normal or fast, for a lecture. <i>tiled</i> computes the "
              "same Y the way FlashAttention does, one block of keys at a time, with ◀ Block / Block ▶ and the keys "
              "per block beside them: per query row the running maximum m, the running sum l, the rescale α when m "
              "grows and the unnormalised output Õ — and after the last block O = Õ / l, checked against P V (up to "
              "%1 tokens). The last stage, ⊕ · W_O, puts every head of the layer side by side and projects them with W_O. Tick <i>Toy</i> on the "
              "right to type your own X, W_Q, W_K and W_V (up to 8 tokens and 8 dimensions) — or Q, K and V directly "
              "— and watch every stage follow; drag a number left or right to change it gradually (Shift: ten times "
              "faster). The controls on the right switch the scaling off, change the softmax temperature, the mask or the positions, and every "
              "later stage follows.</p>"
              "<p>Try: untick the √d_k scaling on a head with large scores and watch the softmax become sharper.</p>")
        .arg(kTiledMaxTokens);
}

QString PipelineView::explanation() const
{
    return tr("One attention head, step by step, with the real numbers of a forward pass: X → Q, K, V → QKᵀ → ÷√d_k "
              "→ + M → softmax → ·V. Step with ← / → (or the buttons), and change scaling, temperature, mask or "
              "positions on the right to see what each does.");
}

QWidget *PipelineView::figureWidget() const
{
    return m_snapshot ? m_figure : nullptr;
}

QString PipelineView::figureCaption() const
{
    if (!m_snapshot) return {};
    const PipelineSettings &s = m_snapshot->settings;
    // The teaching variants, when on: the score function (its seed where it has parameters) and dropout.
    QString variants;
    if (s.score != attn::ScoreFunction::ScaledDot)
        variants += tr(" · score %1").arg(QString::fromStdString(attn::scoreFunctionName(s.score))) +
                    (s.score == attn::ScoreFunction::Dot ? QString() : tr(" (seed %1)").arg(s.scoreSeed));
    if (s.dropout > 0.0) variants += tr(" · dropout p = %1 (seed %2)").arg(s.dropout, 0, 'g', 3).arg(s.dropoutSeed);
    const QString scaling = s.score != attn::ScoreFunction::ScaledDot ? tr("not scaled")
                            : s.scale                                 ? tr("÷√d_k")
                                                                      : tr("no scaling");
    if (m_snapshot->toy)
        return tr("%1 (n %2, d_model %3, d_k %4) · stage %5 · %6 · T = %7 · mask %8")
                   .arg(m_snapshot->modelName).arg(m_snapshot->n).arg(m_snapshot->dModel).arg(m_snapshot->dHead)
                   .arg(stageTitle(m_stage), scaling)
                   .arg(s.temperature, 0, 'g', 3)
                   .arg(s.mask == PipelineSettings::Mask::Window ? tr("window %1").arg(s.window) : maskName(s.mask)) +
               variants;
    return tr("%1 · \"%2\" · %3 · stage %4 · %5 · T = %6 · mask %7 · positions %8")
               .arg(m_snapshot->modelName, m_snapshot->text, headName(s.layer, s.head), stageTitle(m_stage), scaling)
               .arg(s.temperature, 0, 'g', 3)
               .arg(s.mask == PipelineSettings::Mask::Window ? tr("window %1").arg(s.window) : maskName(s.mask),
                    m_snapshot->positionalName) +
           variants;
}

FigureLayout PipelineView::figureLayout() const
{
    // The formula, the explanation, every matrix of the stage whole (no scrolling) and the check.
    return {columnFigureSize(m_figure, 640), 0.6, 3.0};
}

HeatmapPlot *PipelineView::currentFigure() const
{
    // The stage's result, when it is drawn as a heatmap (tables are exported through figureWidget()).
    for (int i = int(m_panels.size()) - 1; i >= 0; --i) {
        MatrixPanel *p = m_panels[i];
        if (!p->isHidden() && p->matrix().rows > 0) return p->showsTable() ? nullptr : p->plot();
    }
    return nullptr;
}

void PipelineView::setColorMap(ColorMap map)
{
    m_colorMap = map;
    for (MatrixPanel *p : m_panels) p->setColorMap(map);
}

bool PipelineView::isToy() const
{
    return m_controls && m_controls->toyEditor()->isChecked();
}

void PipelineView::enableModelControls(bool on)
{
    // The layer, the head and the positions belong to a model's head; the toy has none.
    for (QWidget *w : {static_cast<QWidget *>(m_layer), static_cast<QWidget *>(m_head),
                       static_cast<QWidget *>(m_controls->positionalBox())})
        w->setEnabled(on);
}

void PipelineView::setToy(const ToyHead &toy, bool on)
{
    m_controls->toyEditor()->setToy(toy);
    m_controls->toyEditor()->setActive(on);
    enableModelControls(!on);
    rerun();
}

void PipelineView::submit()
{
    if (isToy()) {
        const ToyHead toy = m_controls->toyEditor()->toy();
        const PipelineSettings settings = m_settings;
        runner()->submit([toy, settings](const JobContext &) { return runToyPipeline(toy, settings); });
        return;
    }
    const TextModelPtr model = subject()->model();
    const TextModelPtr fallback = m_fallback;
    QString text = subject()->text();
    if (text.trimmed().isEmpty()) text = kDefaultText;
    const PipelineSettings settings = m_settings;
    const attn::TokenizeOptions tokenize = subject()->tokenizeOptions();
    runner()->submit([model, fallback, text, tokenize, settings](const JobContext &ctx)
                                     -> attn::Result<std::shared_ptr<Snapshot>> {
        TextModelPtr m = model ? model : fallback;
        if (!m) {
            auto opened = attn::TextModel::open(kFallbackSpec);
            if (!opened) return opened.status();
            m = std::make_shared<const attn::TextModel>(std::move(opened).value());
        }
        auto r = runPipeline(m, text, tokenize, settings, ctx);
        if (!r) return r;
        auto *snap = static_cast<PipelineSnapshot *>(r.value().get());
        snap->model = m;
        if (!model) snap->note = tr("Explore shows its raw experiment, which has no model here: this is %1.")
                                     .arg(QString::fromLatin1(kFallbackSpec));
        return r;
    });
}

bool PipelineView::onResult(const SnapshotPtr &snapshot)
{
    auto s = snapshotAs<PipelineSnapshot>(snapshot);
    if (!s) return false;
    if (!subject()->model()) m_fallback = s->model;
    // The previous result (n × n matrices) is let go of on the work pool once the panels have replaced it.
    auto previous = std::exchange(m_snapshot, std::move(s));
    {
        const QSignalBlocker b1(m_layer), b2(m_head);
        setIndexCount(m_layer, m_snapshot->layers);
        setIndexCount(m_head, m_snapshot->heads);
        setIndex(m_layer, m_snapshot->settings.layer);
        setIndex(m_head, m_snapshot->settings.head);
    }
    m_controls->showSnapshot(*m_snapshot);
    QString info = tr("%1 · %n token(s) · d_model %2 · d_k %3 · positions %4 · backend %5", nullptr, m_snapshot->n)
                       .arg(m_snapshot->modelName)
                       .arg(m_snapshot->dModel)
                       .arg(m_snapshot->dHead)
                       .arg(m_snapshot->positionalName, QString::fromStdString(m_snapshot->backend));
    if (!m_snapshot->note.isEmpty()) info += QStringLiteral("  —  ") + m_snapshot->note;
    m_info->setText(info);
    showStage();
    releaseInBackground(std::move(previous));
    return matricesShown();
}

void PipelineView::onRunFailed(const QString &message)
{
    // The head or settings cannot run on this model (a session's head the model lacks): the banner says so.
    // The job's messages name a field ("layer 3 …"); its token limit already names the workspace.
    const QString what = message.startsWith(QLatin1String("Pipeline")) ? message : tr("Pipeline: %1").arg(message);
    showError(couldNotRunText(what, hasResult()));
}

void PipelineView::onControlsChanged()
{
    m_controls->applyTo(&m_settings);
    scheduleRun();
}

void PipelineView::setSettings(const PipelineSettings &settings)
{
    m_settings = settings;
    m_controls->setFrom(settings);
    {
        const QSignalBlocker b1(m_layer), b2(m_head);
        setIndex(m_layer, settings.layer);
        setIndex(m_head, settings.head);
    }
    rerun();
}

void PipelineView::setStage(PipelineStage stage)
{
    m_stage = stage;
    showStage();
    emit figureChanged();
}

void PipelineView::fitControlsWidth()
{
    // The side panel takes the width its controls need at the current type (presentation mode's larger one too),
    // with room for its vertical scroll bar, so that they never scroll sideways.
    if (!m_controlsScroll) return;
    const int want = m_controls->minimumSizeHint().width() + m_controlsScroll->verticalScrollBar()->sizeHint().width() +
                     2 * m_controlsScroll->frameWidth();
    m_controlsScroll->setMinimumWidth(std::max(330, want));
}

bool PipelineView::isPlaying() const
{
    return m_playTimer && m_playTimer->isActive();
}

int PipelineView::playInterval() const
{
    return m_speed ? m_speed->currentData().toInt() : 2500;
}

void PipelineView::setPlaying(bool on)
{
    if (!m_playTimer) return;
    if (on) m_playTimer->start(playInterval());
    else m_playTimer->stop();
    const QSignalBlocker block(m_play);
    m_play->setChecked(on);
    m_play->setText(on ? tr("❚❚ Pause") : tr("▶ Play"));
}

void PipelineView::stepForward()
{
    if (int(m_stage) + 1 < kPipelineStageCount) setStage(PipelineStage(int(m_stage) + 1));
}

void PipelineView::stepBack()
{
    if (int(m_stage) > 0) setStage(PipelineStage(int(m_stage) - 1));
}

QList<MatrixPanel *> PipelineView::panels() const
{
    QList<MatrixPanel *> shown;
    for (MatrixPanel *p : m_panels)
        if (!p->isHidden()) shown << p;
    return shown;   // inputs first, the result last
}

QString PipelineView::formulaText() const { return m_formula->text(); }
QString PipelineView::checkText() const { return m_check->text(); }

void PipelineView::showStage()
{
    m_stageButtons->button(int(m_stage))->setChecked(true);
    m_back->setEnabled(int(m_stage) > 0);
    m_next->setEnabled(int(m_stage) + 1 < kPipelineStageCount);
    m_formula->setText(stageFormula(m_stage));
    m_stageText->setText(stageExplanation(m_stage));
    if (m_snapshot) {
        // The score function and dropout change what two stages say.
        const attn::ScoreFunction fn = m_snapshot->settings.score;
        m_stageButtons->button(int(PipelineStage::Dot))
            ->setText(fn == attn::ScoreFunction::ScaledDot || fn == attn::ScoreFunction::Dot ? stageTitle(PipelineStage::Dot)
                                                                                              : tr("score"));
        if (m_stage == PipelineStage::Dot && fn != attn::ScoreFunction::ScaledDot) {
            m_formula->setText(scoreFormula(fn));
            m_stageText->setText(scoreExplanation(fn));
        }
        if (m_stage == PipelineStage::Softmax && m_snapshot->dropout) {
            m_formula->setText(QStringLiteral("P = softmax(S″);   keep_ij ~ Bernoulli(1 − p);   P̃ = P ⊙ keep / (1 − p)"));
            m_stageText->setText(stageExplanation(m_stage) + QLatin1Char(' ') +
                                 tr("Dropout (training only) zeroes each weight with probability p, so a row sums to "
                                    "less than 1; dividing by 1 − p keeps every weight's expected value at P_ij. At "
                                    "inference nothing is dropped, and the later stages here use P."));
        }
    }
    m_tileBar->setVisible(m_stage == PipelineStage::Tiled && m_snapshot && m_snapshot->n <= kTiledMaxTokens);
    m_tiled.reset();
    const auto *s = m_snapshot.get();
    if (!s) {
        for (MatrixPanel *p : m_panels) p->hide();
        for (QLabel *op : m_operators) op->hide();
        m_check->setText(tr("Computing…"));
        return;
    }
    const QStringList tok = s->tokens;
    const QStringList dk = columnLabels(s->dHead);
    using K = MatrixSpec::Kind;
    // The snapshot's own storage, shared (an n × n stage is 128 MB at n = 4096; nothing of it is copied here).
    const auto share = [&](const std::vector<double> &v) { return std::shared_ptr<const std::vector<double>>(m_snapshot, &v); };
    const auto mat = [&](QString title, QString value, const std::vector<double> &v, int cols, QStringList colLabels,
                         K kind = K::Signed) {
        // Token × dimension matrices (X, Q, K, V, Y) or query × key matrices (scores, mask, weights).
        const bool perDimension = cols != s->n || colLabels != tok;
        return MatrixSpec{std::move(title), std::move(value), s->n, cols, share(v), {}, tok, std::move(colLabels), kind,
                          perDimension ? tr("token") : tr("query"), perDimension ? tr("dimension") : tr("key")};
    };
    const MatrixSpec X = mat(s->toyDirect ? tr("X  (not used: Q, K and V are typed directly)")
                                          : tr("X  (n × d_model = %1 × %2)").arg(s->n).arg(s->dModel),
                             tr("x"), s->x, s->dModel, columnLabels(s->dModel));
    const MatrixSpec Q = mat(tr("Q  (queries, n × d_k)"), tr("q"), s->q, s->dHead, dk);
    const MatrixSpec Kk = mat(tr("K  (keys, n × d_k)"), tr("k"), s->k, s->dHead, dk);
    const MatrixSpec V = mat(tr("V  (values, n × d_k)"), tr("v"), s->v, s->dHead, dk);
    const attn::ScoreFunction fn = s->settings.score;
    MatrixSpec S = mat(tr("S = Q Kᵀ  (query rows × key columns)"), tr("q·k"), s->stages.dot, s->n, tok);
    // General and additive scoring: their intermediate matrices stand where Q and K stood.
    MatrixSpec ScoreA = Q, ScoreB = Kk;
    const QStringList da = columnLabels(s->score.dAttn);
    if (fn == attn::ScoreFunction::General) {
        S = mat(tr("S_ij = q_iᵀ W k_j  (general; W seeded, %1 × %1)").arg(s->dHead), tr("qᵀWk"), s->stages.dot, s->n, tok);
        ScoreA = mat(tr("Q W  (each query mapped into the key space, n × d_k)"), tr("(qW)"), s->score.qW, s->dHead, dk);
    } else if (fn == attn::ScoreFunction::Additive) {
        S = mat(tr("S_ij = v_aᵀ tanh(W_q q_i + W_k k_j)  (additive)"), tr("score"), s->stages.dot, s->n, tok);
        ScoreA = mat(tr("W_q q_i  (n × d_attn = %1 × %2; W_q seeded)").arg(s->n).arg(s->score.dAttn), tr("W_q q"),
                     s->score.projQ, s->score.dAttn, da);
        ScoreB = mat(tr("W_k k_j  (n × d_attn; W_k seeded)"), tr("W_k k"), s->score.projK, s->score.dAttn, da);
    }
    const QString factor = fn == attn::ScoreFunction::ScaledDot
                               ? (s->settings.scale ? tr("× %1 (= 1/√%2)").arg(fmt(s->factor)).arg(s->dHead)
                                                    : tr("× 1 (scaling off)"))
                               : tr("× 1 (%1 scoring is not scaled)").arg(attn::scoreFunctionName(fn).c_str());
    const QString temp = s->settings.temperature == 1.0 ? QString() : tr(" ÷ T=%1").arg(fmt(s->settings.temperature));
    const MatrixSpec S1 = mat(tr("S′ = S %1%2").arg(factor, temp), tr("scaled score"), s->stages.scaled, s->n, tok);
    const bool alibi = s->positionalName == QLatin1String("ALiBi");
    const MatrixSpec M = mat(alibi ? tr("+ M  (ALiBi −m·|i − j|; −∞ = masked)") : tr("+ M  (0 = allowed, −∞ = masked)"),
                             tr("mask"), s->bias, s->n, tok);
    const MatrixSpec S2 = mat(tr("S″ = S′ + M"), tr("masked score"), s->stages.masked, s->n, tok);
    const MatrixSpec P = mat(tr("P = softmax(S″)  (rows sum to 1)"), tr("weight"), s->stages.weights, s->n, tok, K::Weights);
    const MatrixSpec Y = mat(tr("Y = P V  (n × d_k)"), tr("y"), s->stages.output, s->dHead, dk);

    MatrixSpec Pm = P;   // masked keys: exactly 0, drawn as masked
    Pm.maskedWhere = share(s->bias);
    // Dropout (a teaching view): the kept weights, then rescaled, each with its row sums in a last column Σ.
    MatrixSpec Dropped, Rescaled;
    if (s->dropout) {
        const DropoutStage &d = *s->dropout;
        const QStringList keysAndSum = QStringList(tok) << QStringLiteral("Σ");
        Dropped = mat(tr("P ⊙ keep  (p = %1, seed %2; Σ: row sum)").arg(fmt(d.p)).arg(d.seed), tr("kept weight"),
                      d.dropped, s->n + 1, keysAndSum, K::Weights);
        Rescaled = mat(tr("P ⊙ keep / (1 − p)  (× %1)").arg(fmt(1.0 / (1.0 - d.p))), tr("rescaled weight"), d.rescaled,
                       s->n + 1, keysAndSum, K::Weights);
        Rescaled.weightsMax = 1.0 / (1.0 - d.p);   // a kept weight grows by 1/(1 − p): the scale shows it
        Dropped.maskedWhere = Rescaled.maskedWhere = share(d.keepBias);
        Dropped.rowTitle = Rescaled.rowTitle = tr("query");
        Dropped.colTitle = Rescaled.colTitle = tr("key (Σ: row sum)");
    }
    // The multi-head step: the heads' outputs side by side (columns "H2·5": head 2, its dimension 5), W_O, the result.
    QStringList headColumns;
    for (int h = 0; h < s->heads; ++h)
        for (int c = 0; c < s->dHead; ++c) headColumns << QStringLiteral("H%1·%2").arg(h).arg(c);
    MatrixSpec Cat = mat(tr("[Y_0 | … | Y_%1]  (n × H·d_k = %2 × %3, head by head)").arg(s->heads - 1).arg(s->n)
                                   .arg(s->heads * s->dHead),
                               tr("y"), s->concat, s->heads * s->dHead, headColumns);
    MatrixSpec Wo{tr("W_O  (H·d_k × d_model = %1 × %2, layer %3)").arg(s->heads * s->dHead).arg(s->dModel).arg(s->settings.layer),
                        tr("w"), s->heads * s->dHead, s->dModel, share(s->wo), {}, headColumns, columnLabels(s->dModel),
                        K::Signed, tr("input (head·dimension)"), tr("output dimension")};
    MatrixSpec Out = mat(tr("MultiHead = [Y_0 | … ] W_O + b_O  (n × d_model)"), tr("output"), s->layerOutput, s->dModel,
                         columnLabels(s->dModel));
    Cat.colTitle = tr("head·dimension");
    for (MatrixSpec *m : {&Cat, &Wo, &Out}) m->asHeatmap = true;   // every head's columns at once, not a 16-column table

    // The tiled stage: the key block's scores, the row statistics after it, and the running output.
    MatrixSpec Tile, Stats, Acc;
    const bool tiledShown = m_stage == PipelineStage::Tiled && s->n <= kTiledMaxTokens;
    if (tiledShown) {
        m_tiled = std::make_shared<const TiledStep>(
            tiledStep(s->stages.masked, s->v, s->n, s->dHead, effectiveTileKeys(), m_tileBlock));
        const TiledStep &t = *m_tiled;
        m_tileBlock = t.block;   // a session's block beyond this input's blocks is its last
        const auto shareTile = [&](const std::vector<double> &v) { return std::shared_ptr<const std::vector<double>>(m_tiled, &v); };
        auto stats = std::make_shared<std::vector<double>>(std::size_t(s->n) * 3);
        for (int i = 0; i < s->n; ++i) {
            (*stats)[std::size_t(i) * 3] = t.m[std::size_t(i)];
            (*stats)[std::size_t(i) * 3 + 1] = t.l[std::size_t(i)];
            (*stats)[std::size_t(i) * 3 + 2] = t.rescale[std::size_t(i)];
        }
        const bool last = t.block + 1 == t.blocks;
        const int width = t.keyEnd - t.keyBegin;
        Tile = MatrixSpec{tr("S″ of keys %1–%2  (block %3 of %4, n × %5)").arg(t.keyBegin).arg(t.keyEnd - 1)
                              .arg(t.block).arg(t.blocks).arg(width),
                          tr("masked score"), s->n, width, shareTile(t.tile), {}, tok, tok.mid(t.keyBegin, width),
                          K::Signed, tr("query"), tr("key")};
        Stats = MatrixSpec{tr("m, l and the rescale α after block %1").arg(t.block), tr("value"), s->n, 3,
                           std::shared_ptr<const std::vector<double>>(std::move(stats)), {}, tok,
                           {QStringLiteral("m"), QStringLiteral("l"), QStringLiteral("α")}, K::Signed,
                           tr("query"), tr("statistic")};
        Acc = last ? mat(tr("O = Õ / l after the last block  (n × d_k; = Y = P V)"), tr("o"), t.out, s->dHead, dk)
                   : mat(tr("Õ after block %1  (unnormalised, n × d_k)").arg(t.block), tr("õ"), t.acc, s->dHead, dk);
        Acc.values = shareTile(last ? t.out : t.acc);
        m_tileLabel->setText(tr("block %1 of %2 (keys %3–%4)").arg(t.block).arg(t.blocks).arg(t.keyBegin).arg(t.keyEnd - 1));
        m_tilePrev->setEnabled(t.block > 0);
        m_tileNext->setEnabled(!last);
        const QSignalBlocker quiet(m_tileKeysBox);
        m_tileKeysBox->setMaximum(std::max(1, s->n));
        m_tileKeysBox->setValue(effectiveTileKeys());
    }

    QList<MatrixSpec> shown;
    QString op = QStringLiteral("→");
    switch (m_stage) {
    case PipelineStage::Input: shown = {X}; break;
    case PipelineStage::Projections: shown = {Q, Kk, V}; op = QStringLiteral(" "); break;
    case PipelineStage::Dot: shown = {ScoreA, ScoreB, S}; break;
    case PipelineStage::Scale: shown = {S, S1}; break;
    case PipelineStage::Mask: shown = {S1, M, S2}; break;
    case PipelineStage::Softmax: shown = s->dropout ? QList<MatrixSpec>{Pm, Dropped, Rescaled} : QList<MatrixSpec>{S2, Pm}; break;
    case PipelineStage::Output: shown = {Pm, V, Y}; break;
    case PipelineStage::Tiled: if (tiledShown) shown = {Tile, Stats, Acc}; break;
    case PipelineStage::Heads: shown = s->wo.empty() ? QList<MatrixSpec>{Cat} : QList<MatrixSpec>{Cat, Wo, Out}; break;
    }
    // Places: 0 and 1 are the inputs (stacked), 2 the result.
    // Two tables stack (numbers are wide, rows are few); two heatmaps sit side by side.
    const bool tables = s->n <= MatrixPanel::kMaxTableRows && m_stage != PipelineStage::Heads;
    const QList<int> place = shown.isEmpty()     ? QList<int>{}   // the tiled stage over its limit
                             : shown.size() == 1 ? QList<int>{0}
                             : shown.size() == 2 ? (tables ? QList<int>{0, 1} : QList<int>{0, 2})
                                                 : QList<int>{0, 1, 2};
    for (int i = 0; i < m_panels.size(); ++i) m_panels[i]->setVisible(place.contains(i));
    for (int k = 0; k < shown.size(); ++k) {
        MatrixPanel *panel = m_panels[place[k]];
        panel->setColorMap(m_colorMap);
        const std::size_t cells = std::size_t(shown[k].rows) * std::size_t(shown[k].cols);
        if (auto heatmap = panel->setMatrix(shown[k])) showMatrix(panel->plot(), cells, std::move(heatmap));
    }
    // Empty columns and rows take no room: tables keep their natural size, heatmaps share the space.
    if (auto *grid = qobject_cast<QGridLayout *>(m_panels[0]->parentWidget()->layout())) {
        grid->setColumnStretch(0, tables ? 0 : 1);
        grid->setColumnStretch(2, tables || !place.contains(2) ? 0 : 1);
        grid->setColumnStretch(3, tables ? 1 : 0);
        grid->setRowStretch(0, tables ? 0 : 1);
        grid->setRowStretch(1, tables ? 0 : 1);
        grid->setRowStretch(2, tables ? 1 : 0);
    }
    m_operators[0]->setText(op);
    m_operators[0]->setVisible(place.contains(2));

    const bool ok = s->scoresMaskAgree && s->maxErrWeights <= kCheckTolerance;
    QString check = tr("Check: fp64 recomputation from the captured Q, K at the model's own settings (scale %1, T = 1) "
                       "vs the weights the engine used: max |Δ| = %2 (scores %3) %4")
                        .arg(fmt(s->modelFactor), QString::number(s->maxErrWeights, 'e', 1),
                             QString::number(s->maxErrScores, 'e', 1), ok ? QStringLiteral("✓") : QStringLiteral("✗"));
    if (!s->scoresMaskAgree) check += tr(" — the masked cells differ");
    if (s->toy) {
        const bool toyOk = s->maxErrWeights <= kCheckTolerance && s->maxErrHeadOutputs <= kCheckTolerance;
        check = tr("Check: these Q, K, V (in fp32) through the engine's attention() at scale 1/√%1, T = 1, vs the fp64 "
                   "stages: max |Δ| = %2 (weights), %3 (outputs) %4")
                    .arg(s->dHead).arg(QString::number(s->maxErrWeights, 'e', 1), QString::number(s->maxErrHeadOutputs, 'e', 1),
                                       toyOk ? QStringLiteral("✓") : QStringLiteral("✗"));
        if (m_stage == PipelineStage::Heads) check += tr(". The toy is one head with no W_O: its output is Y itself.");
    } else if (m_stage == PipelineStage::Heads) {
        // This stage's own check: every head of the layer against the engine's attention().
        const bool headsOk = s->maxErrHeadOutputs >= 0 && s->maxErrHeadOutputs <= kCheckTolerance;
        check = s->maxErrHeadOutputs < 0
                    ? tr("Check: not available for this model (soft-capped scores).")
                    : tr("Check: the %1 heads' outputs recomputed in fp64 at the model's own settings vs the engine's "
                         "attention() on the same Q, K, V: max |Δ| = %2 %3")
                          .arg(s->heads).arg(QString::number(s->maxErrHeadOutputs, 'e', 1),
                                             headsOk ? QStringLiteral("✓") : QStringLiteral("✗"));
        check += s->wo.empty() ? tr(". This model has no W_O to show.") : tr(". W_O and b_O are the checkpoint's.");
    }
    if (m_stage == PipelineStage::Tiled) {
        if (!tiledShown) {
            check = tr("The tiled step-through shows inputs up to %1 tokens; this one has %2.").arg(kTiledMaxTokens).arg(s->n);
        } else if (m_tiled->block == 0 && m_tiled->blocks > 1) {
            check = tr("Block 0: each row starts from these keys alone: m is their largest score, l = Σ e^(S″ − m), "
                       "Õ = Σ e^(S″ − m) v (nothing to rescale yet; α is 0 from m′ = −∞). Step to the next block.");
        } else if (m_tiled->block + 1 < m_tiled->blocks) {
            int grew = 0;
            for (double r : m_tiled->rescale) grew += r < 1.0;
            check = tr("Block %1: %2 of %3 rows found a larger score here, so their l and Õ were rescaled "
                       "(α < 1). Step to the last block for O and the check.")
                        .arg(m_tiled->block).arg(grew).arg(s->n);
        } else {
            // Against the exact softmax: Y = P V of the softmax stage, and each row's LSE summed directly.
            const std::size_t N = std::size_t(s->n);
            double dO = 0.0, dLse = 0.0;
            for (std::size_t c = 0; c < m_tiled->out.size(); ++c) dO = std::max(dO, std::fabs(m_tiled->out[c] - s->stages.output[c]));
            for (std::size_t i = 0; i < N; ++i) {
                double m = -std::numeric_limits<double>::infinity(), sum = 0.0;
                for (std::size_t j = 0; j < N; ++j) m = std::max(m, s->stages.masked[i * N + j]);
                if (!std::isfinite(m)) continue;
                for (std::size_t j = 0; j < N; ++j) sum += std::exp(s->stages.masked[i * N + j] - m);
                dLse = std::max(dLse, std::fabs(m + std::log(sum) - m_tiled->lse[i]));
            }
            const bool tiledOk = dO <= 1e-9 && dLse <= 1e-9;   // fp64 both ways: only round-off differs
            check = tr("Check: O = Õ / l after the last block vs Y = P V of the exact softmax: max |Δ| = %1; m + ln l vs "
                       "ln Σ_j e^(S″_ij): max |Δ| = %2 %3. No n × n matrix of weights was needed.")
                        .arg(QString::number(dO, 'e', 1), QString::number(dLse, 'e', 1),
                             tiledOk ? QStringLiteral("✓") : QStringLiteral("✗"));
        }
    }
    if (m_stage == PipelineStage::Softmax && s->dropout) {
        const DropoutStage &d = *s->dropout;
        double dy = 0.0;
        for (std::size_t c = 0; c < d.output.size(); ++c) dy = std::max(dy, std::fabs(d.output[c] - s->stages.output[c]));
        check = tr("Dropout p = %1 (seed %2): %3 of %4 weights kept; rows of P ⊙ keep sum to %5 … %6, after ÷ (1 − p) "
                   "%7 on average (in expectation exactly 1, over seeds). A training step's Y would move by up to "
                   "%8; every view, ·V included, uses P itself.")
                    .arg(fmt(d.p)).arg(d.seed).arg(d.kept).arg(d.allowed)
                    .arg(QString::number(d.minRowSum, 'f', 2), QString::number(d.maxRowSum, 'f', 2),
                         QString::number(d.meanRescaledRowSum, 'f', 3), QString::number(dy, 'g', 3));
    }
    if (!s->settings.scale || s->settings.temperature != 1.0 || fn != attn::ScoreFunction::ScaledDot)
        check += tr(". The stages above use your settings, not the model's.");
    m_check->setText(check);
}

namespace {

QJsonArray toJson(const std::vector<double> &v)
{
    QJsonArray a;
    for (double x : v) a.append(x);
    return a;
}

} // namespace

QJsonObject PipelineView::sessionState() const
{
    QJsonObject state = baseSessionState();
    if (isToy()) {
        const ToyHead t = m_controls->toyEditor()->toy();
        QJsonObject toy{{QStringLiteral("n"), t.n}, {QStringLiteral("d_model"), t.dModel},
                        {QStringLiteral("d_k"), t.dHead}, {QStringLiteral("x"), toJson(t.x)},
                        {QStringLiteral("w_q"), toJson(t.wq)}, {QStringLiteral("w_k"), toJson(t.wk)},
                        {QStringLiteral("w_v"), toJson(t.wv)}};
        if (t.direct) {   // Q, K, V typed: they are the head's, X and the W's are kept for going back
            toy.insert(QStringLiteral("q"), toJson(t.q));
            toy.insert(QStringLiteral("k"), toJson(t.k));
            toy.insert(QStringLiteral("v"), toJson(t.v));
        }
        state.insert(QStringLiteral("toy"), toy);
    }
    return state;
}

int PipelineView::effectiveTileKeys() const
{
    const int n = m_snapshot ? std::max(1, m_snapshot->n) : 1;
    return m_tileKeys > 0 ? std::min(m_tileKeys, n) : (n + 3) / 4;
}

void PipelineView::setTileStep(int keysPerBlock, int block)
{
    m_tileKeys = std::max(0, keysPerBlock);
    const int n = m_snapshot ? std::max(1, m_snapshot->n) : 0;
    const int blocks = n > 0 ? (n + effectiveTileKeys() - 1) / effectiveTileKeys() : 1;
    m_tileBlock = std::clamp(block, 0, std::max(0, blocks - 1));
    if (m_stage == PipelineStage::Tiled) showStage();
}

QJsonObject PipelineView::baseSessionState() const
{
    return {{QStringLiteral("layer"), m_settings.layer},
            {QStringLiteral("tile_keys"), m_tileKeys},
            {QStringLiteral("tile_block"), m_tileBlock},
            {QStringLiteral("head"), m_settings.head},
            {QStringLiteral("stage"), stageName(m_stage)},
            {QStringLiteral("scale"), m_settings.scale},
            {QStringLiteral("temperature"), m_settings.temperature},
            {QStringLiteral("mask"), maskName(m_settings.mask)},
            {QStringLiteral("window"), m_settings.window},
            {QStringLiteral("positional"),
             m_settings.positional == PipelineSettings::Positional::None ? QStringLiteral("none") : QStringLiteral("model")},
            {QStringLiteral("score"), QString::fromStdString(attn::scoreFunctionName(m_settings.score))},
            {QStringLiteral("score_seed"), qint64(m_settings.scoreSeed)},
            {QStringLiteral("dropout"), m_settings.dropout},
            {QStringLiteral("dropout_seed"), qint64(m_settings.dropoutSeed)}};
}

bool PipelineView::restoreSessionState(const QJsonObject &state, QString *error)
{
    StateReader in(state, {QStringLiteral("layer"), QStringLiteral("head"), QStringLiteral("stage"), QStringLiteral("scale"),
                           QStringLiteral("temperature"), QStringLiteral("mask"), QStringLiteral("window"),
                           QStringLiteral("positional"), QStringLiteral("toy"), QStringLiteral("tile_keys"),
                           QStringLiteral("tile_block"), QStringLiteral("score"), QStringLiteral("score_seed"),
                           QStringLiteral("dropout"), QStringLiteral("dropout_seed")});
    PipelineSettings s = m_settings;
    PipelineStage stage = m_stage;
    // Layer and head are not checked against the current model: a session or lesson restores its state before
    // its own model has opened. A head the model lacks fails the run, with the field named in the banner.
    constexpr int kMaxIndex = 4095;
    in.integer(QStringLiteral("layer"), 0, kMaxIndex, s.layer)
        .integer(QStringLiteral("head"), 0, kMaxIndex, s.head)
        .integer(QStringLiteral("window"), 0, kMaxIndex, s.window)
        .boolean(QStringLiteral("scale"), s.scale)
        .number(QStringLiteral("temperature"), 0.1, 10.0, s.temperature);
    int scoreSeed = int(s.scoreSeed), dropoutSeed = int(s.dropoutSeed);
    in.integer(QStringLiteral("score_seed"), 0, int(kMaxSeed), scoreSeed)
        .integer(QStringLiteral("dropout_seed"), 0, int(kMaxSeed), dropoutSeed)
        .number(QStringLiteral("dropout"), 0.0, kMaxDropout, s.dropout);
    s.scoreSeed = std::uint64_t(scoreSeed);
    s.dropoutSeed = std::uint64_t(dropoutSeed);
    int tileKeys = m_tileKeys, tileBlock = m_tileBlock;
    in.integer(QStringLiteral("tile_keys"), 0, kTiledMaxTokens, tileKeys).integer(QStringLiteral("tile_block"), 0, kMaxIndex, tileBlock);
    QString name;
    in.string(QStringLiteral("stage"), name);
    if (!name.isNull() && !stageFromName(name, &stage))
        in.fail(QStringLiteral("stage"), tr("must be one of input, qkv, dot, scale, mask, softmax, output, tiled, heads"));
    name = QString();
    in.string(QStringLiteral("mask"), name);
    if (!name.isNull() && !maskFromName(name, &s.mask))
        in.fail(QStringLiteral("mask"), tr("must be one of model, bidirectional, causal, window"));
    name = QString();
    in.string(QStringLiteral("score"), name);
    if (!name.isNull()) {
        if (const auto f = attn::parseScoreFunction(name.toStdString())) s.score = *f;
        else in.fail(QStringLiteral("score"), tr("must be one of scaled-dot, dot, general, additive"));
    }
    name = QString();
    in.choice(QStringLiteral("positional"), {QStringLiteral("model"), QStringLiteral("none")}, name);
    if (!name.isNull())
        s.positional = name == QLatin1String("none") ? PipelineSettings::Positional::None : PipelineSettings::Positional::Model;
    // "toy": {n, d_model, d_k, x, w_q, w_k, w_v[, q, k, v]}, the matrices row-major; q, k and v (all three, n × d_k)
    // when they were typed directly; absent: the model's head.
    std::optional<ToyHead> toy;
    if (state.contains(QStringLiteral("toy"))) {
        const QJsonObject t = state.value(QStringLiteral("toy")).toObject();
        ToyHead h;
        QString why;
        if (!state.value(QStringLiteral("toy")).isObject()) why = tr("expected an object");
        StateReader fields(t, {QStringLiteral("n"), QStringLiteral("d_model"), QStringLiteral("d_k"), QStringLiteral("x"),
                            QStringLiteral("w_q"), QStringLiteral("w_k"), QStringLiteral("w_v"), QStringLiteral("q"),
                            QStringLiteral("k"), QStringLiteral("v")});
        fields.integer(QStringLiteral("n"), 1, kToyMax, h.n).integer(QStringLiteral("d_model"), 1, kToyMax, h.dModel)
            .integer(QStringLiteral("d_k"), 1, kToyMax, h.dHead);
        if (why.isEmpty()) fields.ok(&why);
        const auto matrix = [&](const char *key, std::size_t size, std::vector<double> &out) {
            if (!why.isEmpty()) return;
            const QJsonArray a = t.value(QLatin1String(key)).toArray();
            if (!t.value(QLatin1String(key)).isArray() || std::size_t(a.size()) != size) {
                why = tr("%1: expected %2 numbers").arg(QLatin1String(key)).arg(size);
                return;
            }
            for (const QJsonValue &v : a) {
                if (!v.isDouble() || !std::isfinite(v.toDouble()) || std::abs(v.toDouble()) > 1e6) {
                    why = tr("%1: every entry must be a number of at most 1e6 in size").arg(QLatin1String(key));
                    return;
                }
                out.push_back(v.toDouble());
            }
        };
        const std::size_t N = std::size_t(h.n), D = std::size_t(h.dModel), K = std::size_t(h.dHead);
        matrix("x", N * D, h.x);
        matrix("w_q", D * K, h.wq);
        matrix("w_k", D * K, h.wk);
        matrix("w_v", D * K, h.wv);
        const int typed = int(t.contains(QStringLiteral("q"))) + int(t.contains(QStringLiteral("k"))) +
                          int(t.contains(QStringLiteral("v")));
        if (why.isEmpty() && typed != 0 && typed != 3) why = tr("q, k, v: give all three (typed directly) or none");
        if (typed == 3) {
            h.direct = true;
            matrix("q", N * K, h.q);
            matrix("k", N * K, h.k);
            matrix("v", N * K, h.v);
        }
        if (!why.isEmpty()) in.fail(QStringLiteral("toy"), why);
        else toy = h;
    }
    if (!in.ok(error)) return false;
    m_stage = stage;
    m_tileKeys = tileKeys;   // the block is clamped to the input's blocks when the stage is shown
    m_tileBlock = tileBlock;
    if (toy) m_controls->toyEditor()->setToy(*toy);
    m_controls->toyEditor()->setActive(toy.has_value());
    enableModelControls(!toy);
    setSettings(s);   // shows the stage once the result arrives
    showStage();
    return true;
}

bool PipelineView::showView(const QString &spec, QString *error)
{
    // pipeline:L.H shows ·V; pipeline:L.H:STAGE another stage (pipeline:1.2:tiled).
    static const QRegularExpression re(QStringLiteral("^pipeline:(\\d+)\\.(\\d+)(?::([a-z]+))?$"));
    const auto m = re.match(spec);
    PipelineStage stage = PipelineStage::Output;
    if (!m.hasMatch() || (m.hasCaptured(3) && !stageFromName(m.captured(3), &stage))) {
        if (error)
            *error = tr("view '%1': expected pipeline:LAYER.HEAD[:STAGE], e.g. pipeline:0.1 or pipeline:0.1:tiled "
                        "(stages: input, qkv, dot, scale, mask, softmax, output, tiled, heads)").arg(spec);
        return false;
    }
    QJsonObject state{{QStringLiteral("layer"), m.captured(1).toInt()}, {QStringLiteral("head"), m.captured(2).toInt()},
                      {QStringLiteral("stage"), stageName(stage)}};
    return restoreSessionState(state, error);
}

} // namespace attnui
