// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/equivariance/equivarianceview.h"

#include "plots/heatmapplot.h"
#include "runner/enginerunner.h"
#include "kit/subject.h"
#include "workspaces/equivariance/equivariancefigure.h"
#include "kit/permutationstrip.h"
#include "kit/numbering.h"
#include "kit/stateio.h"
#include "kit/dataexport.h"
#include "runner/workpool.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <cmath>

namespace attnui {

namespace {

constexpr int kDebounceMs = 150;
enum PermKind { PermReverse, PermRandom, PermSwap, PermCustom };

QLabel *sectionNote(const QString &text)
{
    auto *label = new QLabel(text);
    label->setWordWrap(true);
    QPalette p = label->palette();
    p.setColor(QPalette::WindowText, p.color(QPalette::PlaceholderText));
    label->setPalette(p);
    return label;
}

QString scopeText(const attn::EquivarianceScope &s) { return QString::fromStdString(attn::equivarianceScopeText(s)); }

// The scope as a person reads it ("L1 H2"); scopeText() is the session's and the CLI's spelling ("head:1.2").
QString scopeDisplayText(const attn::EquivarianceScope &s)
{
    switch (s.kind) {
    case attn::EquivarianceScope::Kind::Head: return headName(int(s.head.layer), int(s.head.head));
    case attn::EquivarianceScope::Kind::Layer: return layerName(int(s.layer));
    case attn::EquivarianceScope::Kind::Model: break;
    }
    return QObject::tr("model");
}

} // namespace

EquivarianceView::EquivarianceView(Subject *subject, QWidget *parent)
    : Workspace(subject, QStringLiteral("equivariance"), {.debounceMs = kDebounceMs, .followBackend = false}, parent)
{
    buildUi();
    updateControls();
}

EquivarianceView::~EquivarianceView() = default;

QString EquivarianceView::guide() const
{
    return tr("<p><b>Equivariance</b> tests a property of self-attention: without positions and with every token "
              "seeing every other, permuting the tokens permutes the attention map and the outputs the same way. The "
              "two large numbers are the largest differences; near 1e-7 is float round-off, anything larger is broken "
              "equivariance.</p>"
              "<p>Choose the permutation (reverse, a seeded shuffle, a swap of two positions, or drag the tokens into any "
              "order), then what breaks it: the model's positions and its causal mask, or none of them (\"No positions, "
              "bidirectional\"). The grid at the bottom left gives the difference for every head.</p>"
              "<p>Try: press \"No positions, bidirectional\" and watch every difference fall to round-off.</p>");
}

QString EquivarianceView::explanation() const
{
    return tr("Self-attention without positions treats its input as a set: permuting the tokens (P) permutes the "
              "attention map and the outputs the same way, A(PX) = P·A(X)·Pᵀ and Y(PX) = P·Y(X). Positional "
              "encodings and the causal mask break this; the errors below show by how much.");
}

void EquivarianceView::buildUi()
{
    auto *controls = new QWidget;
    auto *side = new QVBoxLayout(controls);
    side->setContentsMargins(0, 0, 0, 0);

    // Permutation.
    auto *permBox = new QGroupBox(tr("Permutation P"));
    auto *permForm = new QFormLayout(permBox);
    m_permKind = new QComboBox;
    m_permKind->addItem(tr("Reverse"), PermReverse);
    m_permKind->addItem(tr("Random (seeded)"), PermRandom);
    m_permKind->addItem(tr("Swap two tokens"), PermSwap);
    m_permKind->addItem(tr("My order (drag tokens)"), PermCustom);
    permForm->addRow(tr("Kind:"), m_permKind);
    m_seed = new QSpinBox;
    m_seed->setRange(0, 1000000);
    m_seed->setValue(1);
    permForm->addRow(tr("Seed:"), m_seed);
    auto *swapRow = new QHBoxLayout;
    m_swapA = new QSpinBox;
    m_swapB = new QSpinBox;
    m_swapB->setValue(1);
    swapRow->addWidget(m_swapA);
    swapRow->addWidget(new QLabel(QStringLiteral("↔")));
    swapRow->addWidget(m_swapB);
    permForm->addRow(tr("Swap positions:"), swapRow);
    m_keepSpecial = new QCheckBox(tr("Keep [CLS]/[SEP] in place"));
    m_keepSpecial->setChecked(true);
    permForm->addRow(m_keepSpecial);
    m_strip = new PermutationStrip;
    permForm->addRow(sectionNote(tr("Tokens of PX (drag to reorder):")));
    permForm->addRow(m_strip);
    side->addWidget(permBox);

    // What breaks equivariance.
    auto *breakBox = new QGroupBox(tr("Break equivariance"));
    auto *breakForm = new QFormLayout(breakBox);
    m_positional = new QComboBox;
    m_positional->addItem(tr("Model's own"), QStringLiteral("model"));
    m_positional->addItem(tr("Dropped (none)"), QStringLiteral("none"));
    m_positional->addItem(tr("Sinusoidal"), QStringLiteral("sinusoidal"));
    m_positional->addItem(tr("RoPE"), QStringLiteral("rope"));
    breakForm->addRow(tr("Positions:"), m_positional);
    m_mask = new QComboBox;
    m_mask->addItem(tr("Model's own"), QStringLiteral("model"));
    m_mask->addItem(tr("Bidirectional"), QStringLiteral("bidirectional"));
    m_mask->addItem(tr("Causal"), QStringLiteral("causal"));
    breakForm->addRow(tr("Mask:"), m_mask);
    m_makeEquivariant = new QPushButton(tr("No positions, bidirectional"));
    m_makeEquivariant->setToolTip(tr("The settings under which self-attention is exactly permutation equivariant"));
    breakForm->addRow(m_makeEquivariant);
    side->addWidget(breakBox);

    // Scope and the head on screen.
    auto *scopeBox = new QGroupBox(tr("Scope"));
    auto *scopeForm = new QFormLayout(scopeBox);
    m_scope = new QComboBox;
    m_scope->addItem(tr("One head"), int(attn::EquivarianceScope::Kind::Head));
    m_scope->addItem(tr("One layer"), int(attn::EquivarianceScope::Kind::Layer));
    m_scope->addItem(tr("Whole model"), int(attn::EquivarianceScope::Kind::Model));
    m_scope->setCurrentIndex(2);
    scopeForm->addRow(tr("Compare:"), m_scope);
    auto *headRow = new QHBoxLayout;
    m_layer = makeIndexSpinBox(tr("layer "));
    m_head = makeIndexSpinBox(tr("head "));
    headRow->addWidget(m_layer);
    headRow->addWidget(m_head);
    scopeForm->addRow(tr("Shown:"), headRow);
    m_headErrors = new HeatmapPlot;
    // A 120 px matrix (tst_ui_layout's minimum) under its title and axes; the controls column scrolls.
    m_headErrors->setMinimumHeight(215);
    m_headErrors->setTitle(tr("max |ΔA| per head"));
    m_headErrors->setAxisTitles(tr("layer"), tr("head"));
    m_headErrors->setValueLabel(tr("max |ΔA|"));
    scopeForm->addRow(m_headErrors);
    side->addWidget(scopeBox);
    m_status = sectionNote(QString());
    side->addWidget(m_status);
    side->addStretch(1);

    m_figure = new EquivarianceFigure;
    makeControlsPage(controls, m_figure, 330);
    refreshExplanation();

    const auto changed = [this] { updateControls(); scheduleRun(); };
    connect(m_permKind, &QComboBox::currentIndexChanged, this, changed);
    connect(m_seed, &QSpinBox::valueChanged, this, changed);
    connect(m_swapA, &QSpinBox::valueChanged, this, changed);
    connect(m_swapB, &QSpinBox::valueChanged, this, changed);
    connect(m_keepSpecial, &QCheckBox::toggled, this, changed);
    connect(m_positional, &QComboBox::currentIndexChanged, this, changed);
    connect(m_mask, &QComboBox::currentIndexChanged, this, changed);
    connect(m_scope, &QComboBox::currentIndexChanged, this, changed);
    connect(m_layer, &QSpinBox::valueChanged, this, changed);
    connect(m_head, &QSpinBox::valueChanged, this, changed);
    connect(m_strip, &PermutationStrip::orderEdited, this, &EquivarianceView::onStripEdited);
    connect(m_makeEquivariant, &QPushButton::clicked, this, [this] {
        setPositional(attn::PositionalChoice::None);
        setMask(attn::MaskChoice::Kind::Bidirectional);
    });
    connect(m_headErrors, &HeatmapPlot::cellClicked, this, [this](int layer, int head) { setFocusHead(layer, head); });
}

void EquivarianceView::updateControls()
{
    const int kind = m_permKind->currentData().toInt();
    m_seed->setEnabled(kind == PermRandom);
    m_swapA->setEnabled(kind == PermSwap);
    m_swapB->setEnabled(kind == PermSwap);
    m_keepSpecial->setEnabled(kind == PermReverse || kind == PermRandom);
    const TextModelPtr model = subject()->model();
    if (model && model != m_rangeModel) {
        // A new model: its heads, and a head a session asked for before the model was open.
        m_rangeModel = model;
        const attn::ModelConfig &c = model->model().config();
        const QSignalBlocker b1(m_layer), b2(m_head);
        setIndexCount(m_layer, int(c.layers));
        setIndexCount(m_head, int(c.heads));
        if (m_sessionHead && m_sessionHead->layer < c.layers && m_sessionHead->head < c.heads)
            setFocusHead(int(m_sessionHead->layer), int(m_sessionHead->head));
        m_sessionHead.reset();
    }
    if (model) {
        const attn::ModelConfig &c = model->model().config();
        auto *items = qobject_cast<QStandardItemModel *>(m_positional->model());
        for (int i = 0; i < m_positional->count(); ++i) {
            auto choice = attn::parsePositionalChoice(m_positional->itemData(i).toString().toStdString());
            const bool ok = choice && positionalChoiceSupported(*model, *choice);
            if (QStandardItem *item = items ? items->item(i) : nullptr) {
                item->setEnabled(ok);
                item->setToolTip(ok ? QString() : tr("Only the random: models can swap their positional encoding"));
            }
        }
        m_positional->setItemText(0, tr("Model's own (%1)")
                                         .arg(QString::fromStdString(attn::positionKindName(c.positions))));
        m_mask->setItemText(0, tr("Model's own (%1)").arg(c.causal ? tr("causal") : tr("bidirectional")));
    }
    const auto scope = attn::EquivarianceScope::Kind(m_scope->currentData().toInt());
    m_layer->setToolTip(scope == attn::EquivarianceScope::Kind::Model ? tr("the head drawn on the right") : QString());
}

attn::EquivarianceSettings EquivarianceView::settings() const
{
    attn::EquivarianceSettings s;
    switch (m_permKind->currentData().toInt()) {
    case PermReverse: s.permutation.kind = attn::PermutationSpec::Kind::Reverse; break;
    case PermRandom:
        s.permutation.kind = attn::PermutationSpec::Kind::Random;
        s.permutation.seed = std::uint64_t(m_seed->value());
        break;
    case PermSwap:
        s.permutation.kind = attn::PermutationSpec::Kind::Swap;
        s.permutation.order = {m_swapA->value(), m_swapB->value()};
        break;
    case PermCustom:
        s.permutation.kind = attn::PermutationSpec::Kind::Explicit;
        s.permutation.order = m_custom;
        break;
    }
    s.permutation.keepSpecialFixed = m_keepSpecial->isChecked();
    s.positional = *attn::parsePositionalChoice(m_positional->currentData().toString().toStdString());
    s.mask = *attn::parseMaskChoice(m_mask->currentData().toString().toStdString());
    s.scope.kind = attn::EquivarianceScope::Kind(m_scope->currentData().toInt());
    s.scope.head = focusHead();
    s.scope.layer = indexOf(m_layer);
    return s;
}

attn::HeadRef EquivarianceView::focusHead() const { return {indexOf(m_layer), indexOf(m_head)}; }

void EquivarianceView::setFocusHead(int layer, int head)
{
    setIndex(m_layer, layer);
    setIndex(m_head, head);
}

void EquivarianceView::setPermutation(const attn::PermutationSpec &spec)
{
    const QSignalBlocker b1(m_permKind), b2(m_seed), b3(m_swapA), b4(m_swapB), b5(m_keepSpecial);
    switch (spec.kind) {
    case attn::PermutationSpec::Kind::Reverse: m_permKind->setCurrentIndex(PermReverse); break;
    case attn::PermutationSpec::Kind::Random:
        m_permKind->setCurrentIndex(PermRandom);
        m_seed->setValue(int(spec.seed));
        break;
    case attn::PermutationSpec::Kind::Swap:
        m_permKind->setCurrentIndex(PermSwap);
        if (spec.order.size() == 2) {
            m_swapA->setMaximum(std::max<int>(m_swapA->maximum(), int(spec.order[0])));
            m_swapB->setMaximum(std::max<int>(m_swapB->maximum(), int(spec.order[1])));
            m_swapA->setValue(int(spec.order[0]));
            m_swapB->setValue(int(spec.order[1]));
        }
        break;
    case attn::PermutationSpec::Kind::Explicit:
        m_permKind->setCurrentIndex(PermCustom);
        m_custom = spec.order;
        break;
    }
    m_keepSpecial->setChecked(spec.keepSpecialFixed);
    updateControls();
    scheduleRun();
}

void EquivarianceView::setPositional(attn::PositionalChoice choice)
{
    m_positional->setCurrentIndex(std::max(0, m_positional->findData(QString::fromStdString(attn::positionalChoiceName(choice)))));
}

void EquivarianceView::setMask(attn::MaskChoice::Kind kind)
{
    attn::MaskChoice m;
    m.kind = kind;
    m_mask->setCurrentIndex(std::max(0, m_mask->findData(QString::fromStdString(m.kindName()))));
}

void EquivarianceView::setScope(attn::EquivarianceScope::Kind kind)
{
    m_scope->setCurrentIndex(std::max(0, m_scope->findData(int(kind))));
}

void EquivarianceView::onStripEdited(const std::vector<std::int64_t> &order)
{
    m_custom = order;
    {
        const QSignalBlocker block(m_permKind);
        m_permKind->setCurrentIndex(PermCustom);
    }
    updateControls();
    scheduleRun();
}

void EquivarianceView::onSubjectChanged()
{
    // A dragged order belongs to the old tokens.
    if (m_permKind->currentData().toInt() == PermCustom) {
        const QSignalBlocker block(m_permKind);
        m_permKind->setCurrentIndex(PermReverse);
    }
    updateControls();
    scheduleRun();
}

void EquivarianceView::submit()
{
    EquivarianceRequest r;
    r.model = requireModel(tr("Open a model in Explore first: equivariance compares two passes of a model."));
    if (!r.model) return;
    r.text = subject()->text();
    r.tokenize = subject()->tokenizeOptions();
    r.settings = settings();
    r.focus = focusHead();
    m_status->setText(tr("Running 4 forward passes…"));
    runner()->submit([r](const JobContext &ctx) { return runEquivarianceJob(r, ctx); });
}

bool EquivarianceView::onResult(const SnapshotPtr &snapshot)
{
    auto s = snapshotAs<EquivarianceSnapshot>(snapshot);
    if (!s) return false;
    // The previous result (n × n matrices) is let go of on the work pool once the panels have replaced it.
    auto previous = std::exchange(m_snapshot, std::move(s));
    showSnapshot();
    releaseInBackground(std::move(previous));
    return matricesShown();
}

void EquivarianceView::onRunFailed(const QString &message)
{
    m_status->clear();
    Workspace::onRunFailed(message);
}

void EquivarianceView::showSnapshot()
{
    const EquivarianceSnapshot &s = *m_snapshot;
    const attn::EquivarianceResult &r = s.result;
    const TextModelPtr model = subject()->model();
    const QString reason = model ? equivarianceReason(model->model().config(), settings()) : QString();
    m_figure->setSnapshot(m_snapshot, reason, [this](HeatmapPlot *plot, std::size_t cells, std::function<HeatmapData()> build) {
        showMatrix(plot, cells, std::move(build));
    });
    m_strip->setTokens(s.labels, r.permutation, s.special);
    m_swapA->setMaximum(std::max(0, s.length - 1));
    m_swapB->setMaximum(std::max(0, s.length - 1));
    m_status->setText(tr("%1 tokens · permutation %2 · positions used: %3 · mask: %4 · backend %5 · %6 ms")
                          .arg(s.length)
                          .arg(QString::fromStdString(attn::permutationSpecText(settings().permutation)))
                          .arg(QString::fromStdString(attn::positionKindName(r.positionsUsed)),
                               QString::fromStdString(r.maskUsed), QString::fromStdString(s.backend))
                          .arg(s.elapsedMs, 0, 'f', 0));

    // Per-head errors over the scope: a layers × heads grid, heads outside the scope masked.
    if (model) {
        const attn::ModelConfig &c = model->model().config();
        HeatmapData d;
        d.rows = int(c.layers);
        d.cols = int(c.heads);
        d.values.assign(std::size_t(d.rows * d.cols), 0.0f);
        d.masked.assign(d.values.size(), 1);
        double worst = 0.0;
        for (const attn::HeadEquivariance &h : r.heads) {
            const std::size_t k = std::size_t(h.head.layer * d.cols + h.head.head);
            if (k >= d.values.size()) continue;
            d.values[k] = float(h.maxAbsErrWeights);
            d.masked[k] = 0;
            worst = std::max(worst, h.maxAbsErrWeights);
        }
        d.rowLabels = layerTickLabels(d.rows);
        d.colLabels = headTickLabels(d.cols);
        // At least the round-off level, so heads that are equivariant up to round-off are drawn dark.
        m_headErrors->setValueRange(0.0, std::max(worst, EquivarianceFigure::kRoundOff));
        m_headErrors->setData(std::move(d));
        m_headErrors->setHoverFormatter([this](HeatmapCell cell) {
            const double v = m_headErrors->cellValue(cell.row, cell.col);
            const QString head = headName(cell.row, cell.col);
            return std::isnan(v) ? tr("%1: outside the scope").arg(head)
                                 : tr("%1: max |ΔA| = %2").arg(head, EquivarianceFigure::formatError(v));
        });
    }
}

QWidget *EquivarianceView::figureWidget() const { return m_snapshot ? m_figure : nullptr; }

HeatmapPlot *EquivarianceView::currentFigure() const { return m_figure->weightsPermutedInput(); }

FigureLayout EquivarianceView::figureLayout() const
{
    return {m_figure->figureSize(), 0.9, 2.4};
}

QString EquivarianceView::figureCaption() const
{
    const attn::EquivarianceSettings s = settings();
    const attn::HeadRef h = focusHead();
    return tr("%1 · %2 · permutation %3%4 · positions: %5 · mask: %6 · scope: %7")
        .arg(captionStart(), headName(int(h.layer), int(h.head)),
             QString::fromStdString(attn::permutationSpecText(s.permutation)),
             s.permutation.keepSpecialFixed ? tr(" (special tokens fixed)") : QString(),
             QString::fromStdString(attn::positionalChoiceName(s.positional)),
             QString::fromStdString(s.mask.kindName()), scopeDisplayText(s.scope));
}

QStringList EquivarianceView::dataFormats() const
{
    if (!m_snapshot) return {};
    return {tr("JSON, as attnscope-cli equivariance writes it (*.json)"), tr("CSV, A(PX) of the head on screen (*.csv)")};
}

bool EquivarianceView::exportData(const QString &path, QString *error) const
{
    if (!m_snapshot) return Workspace::exportData(path, error);
    if (!path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)) return Workspace::exportData(path, error);
    const EquivarianceRequest &r = m_snapshot->request;
    return writeTextFile(attn::equivarianceExportJson(*r.model, r.settings, m_snapshot->result), path, error);
}

void EquivarianceView::setColorMap(ColorMap map)
{
    m_colorMap = map;
    m_figure->setColorMap(map);
    m_headErrors->setColorMap(map);
}

QJsonObject EquivarianceView::sessionState() const
{
    const attn::EquivarianceSettings s = settings();
    const attn::HeadRef h = focusHead();
    return QJsonObject{
        {QStringLiteral("permutation"), QString::fromStdString(attn::permutationSpecText(s.permutation))},
        {QStringLiteral("keep_special_fixed"), s.permutation.keepSpecialFixed},
        {QStringLiteral("positional"), QString::fromStdString(attn::positionalChoiceName(s.positional))},
        {QStringLiteral("mask"), QString::fromStdString(s.mask.kindName())},
        {QStringLiteral("scope"), m_scope->currentData().toInt() == int(attn::EquivarianceScope::Kind::Model)
                                      ? QStringLiteral("model")
                                      : scopeText(s.scope)},
        {QStringLiteral("head"), QStringLiteral("%1.%2").arg(h.layer).arg(h.head)},
    };
}

bool EquivarianceView::restoreSessionState(const QJsonObject &state, QString *error)
{
    StateReader in(state, {QStringLiteral("permutation"), QStringLiteral("keep_special_fixed"), QStringLiteral("positional"),
                           QStringLiteral("mask"), QStringLiteral("scope"), QStringLiteral("head")});
    // Each field through the engine's own parser, so the session spells them as the CLI does.
    const auto parsed = [&in](const QString &key, const auto &parse, auto &out) {
        if (!in.has(key) || !in.ok(nullptr)) return;
        auto v = parse(in.state().value(key).toString().toStdString());
        if (!v) in.fail(key, QString::fromStdString(v.status().message()));
        else out = *v;
    };
    attn::PermutationSpec perm;
    attn::PositionalChoice positional = attn::PositionalChoice::Model;
    attn::MaskChoice mask;
    attn::EquivarianceScope scope;
    parsed(QStringLiteral("permutation"), attn::parsePermutationSpec, perm);
    in.boolean(QStringLiteral("keep_special_fixed"), perm.keepSpecialFixed);
    parsed(QStringLiteral("positional"), attn::parsePositionalChoice, positional);
    parsed(QStringLiteral("mask"), attn::parseMaskChoice, mask);
    if (mask.kind != attn::MaskChoice::Kind::Model && mask.kind != attn::MaskChoice::Kind::Bidirectional &&
        mask.kind != attn::MaskChoice::Kind::Causal)
        in.fail(QStringLiteral("mask"), tr("expected model, bidirectional or causal"));
    parsed(QStringLiteral("scope"), attn::parseEquivarianceScope, scope);
    attn::HeadRef head = focusHead();
    if (scope.kind == attn::EquivarianceScope::Kind::Head) head = scope.head;
    if (scope.kind == attn::EquivarianceScope::Kind::Layer) head.layer = scope.layer;
    in.head(QStringLiteral("head"), head);
    if (!in.ok(error)) return false;
    // Heads and positional choices are checked against the model when it runs: a session sets its workspace
    // states before it opens its model, so the model open now may not be the one these values are for.
    m_sessionHead = head;
    setFocusHead(int(head.layer), int(head.head));
    setScope(scope.kind);
    setPositional(positional);
    setMask(mask.kind);
    setPermutation(perm);
    return true;
}

bool EquivarianceView::showView(const QString &spec, QString *error)
{
    const QStringList parts = spec.split(QLatin1Char(':'));
    if (parts.value(0) != QLatin1String("equivariance") || parts.size() > 2)
        return Workspace::showView(spec, error);
    if (parts.size() == 2) {
        auto heads = attn::parseHeadList(parts[1].toStdString());
        if (!heads || !heads->has_value() || (*heads)->size() != 1)
            return failWith(error, tr("view '%1': expected equivariance:L.H").arg(spec));
        const attn::HeadRef h = (**heads).front();
        if (const TextModelPtr model = subject()->model()) {
            const attn::ModelConfig &c = model->model().config();
            if (h.layer >= c.layers || h.head >= c.heads)
                return failWith(error, tr("view '%1': head %2.%3 is outside the model").arg(spec).arg(h.layer).arg(h.head));
        }
        setFocusHead(int(h.layer), int(h.head));
    }
    rerun();
    return true;
}

} // namespace attnui
