// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/approx/approxview.h"

#include "kit/numbering.h"
#include "kit/stateio.h"
#include "plots/heatmapplot.h"
#include "plots/xyplot.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace attnui {

namespace {

constexpr int kDebounceMs = 150;
constexpr int kMaxParameter = 4096;
const attn::ApproxKind kKinds[] = {attn::ApproxKind::LocalWindow, attn::ApproxKind::BlockLocal, attn::ApproxKind::Strided,
                                   attn::ApproxKind::Dilated, attn::ApproxKind::LinearElu, attn::ApproxKind::RandomFeatures};

QString kindTitle(attn::ApproxKind k)
{
    switch (k) {
    case attn::ApproxKind::LocalWindow: return QObject::tr("local window");
    case attn::ApproxKind::BlockLocal: return QObject::tr("block-local");
    case attn::ApproxKind::Strided: return QObject::tr("strided (Sparse Transformer)");
    case attn::ApproxKind::Dilated: return QObject::tr("dilated window (Longformer)");
    case attn::ApproxKind::LinearElu: return QObject::tr("linear, elu + 1 (Katharopoulos)");
    case attn::ApproxKind::RandomFeatures: return QObject::tr("random features (Performer)");
    }
    return {};
}

// Hatched: the future under a causal mask, and the cells a sparse pattern does not compute (`pattern`, 1 =
// computed; null for a kernel form, which computes none and implies all).
HeatmapData matrixData(const attn::MatrixD &m, const QStringList &tokens, bool causal,
                       const std::vector<std::uint8_t> *pattern)
{
    HeatmapData h;
    h.rows = int(m.rows);
    h.cols = int(m.cols);
    h.values.assign(m.values.begin(), m.values.end());
    h.rowLabels = tokens;
    h.colLabels = tokens;
    if (causal || pattern) {
        h.masked.assign(std::size_t(h.rows) * std::size_t(h.cols), 0);
        for (int i = 0; i < h.rows; ++i)
            for (int j = 0; j < h.cols; ++j) {
                const std::size_t k = std::size_t(i) * std::size_t(h.cols) + std::size_t(j);
                h.masked[k] = (causal && j > i) || (pattern && k < pattern->size() && !(*pattern)[k]);
            }
    }
    return h;
}

} // namespace

ApproxView::ApproxView(Subject *subject, QWidget *parent)
    : Workspace(subject, QStringLiteral("approx"), {.debounceMs = kDebounceMs}, parent)
{
    m_request.spec.kind = attn::ApproxKind::LocalWindow;
    m_request.spec.window = 2;
    buildUi();
    scheduleRun();
}

ApproxView::~ApproxView() = default;

void ApproxView::buildUi()
{
    QVBoxLayout *outer = makePage();
    auto *controls = new QHBoxLayout;
    m_layer = makeIndexSpinBox(tr("layer "));
    m_head = makeIndexSpinBox(tr("head "));
    for (QSpinBox *b : {m_layer, m_head}) {
        connect(b, &QSpinBox::valueChanged, this, [this] { setHead(indexOf(m_layer), indexOf(m_head)); });
        controls->addWidget(b);
    }
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Approximation")));
    m_kind = new QComboBox;
    for (attn::ApproxKind k : kKinds) m_kind->addItem(kindTitle(k), QString::fromStdString(attn::approxKindName(k)));
    connect(m_kind, &QComboBox::activated, this, [this] {
        attn::ApproxSpec s = m_request.spec;
        s.kind = *attn::parseApproxKind(m_kind->currentData().toString().toStdString());
        setSpec(s);
    });
    controls->addWidget(m_kind);
    m_parameterLabel = new QLabel;
    m_parameter = new QSpinBox;
    m_parameter->setRange(1, kMaxParameter);
    connect(m_parameter, &QSpinBox::valueChanged, this, [this](int v) {
        attn::ApproxSpec s = m_request.spec;
        setApproxParameter(s, v);
        setSpec(s);
    });
    controls->addWidget(m_parameterLabel);
    controls->addWidget(m_parameter);
    m_seedLabel = new QLabel(tr("seed"));
    m_seed = new QSpinBox;
    m_seed->setRange(0, 1000000);
    connect(m_seed, &QSpinBox::valueChanged, this, [this](int v) {
        attn::ApproxSpec s = m_request.spec;
        s.seed = std::uint64_t(v);
        setSpec(s);
    });
    controls->addWidget(m_seedLabel);
    controls->addWidget(m_seed);
    controls->addStretch(1);
    outer->addLayout(controls);

    m_figure = new QWidget;
    auto *fig = new QVBoxLayout(m_figure);
    fig->setContentsMargins(0, 0, 0, 0);
    auto *maps = new QHBoxLayout;
    m_exactPlot = new HeatmapPlot;
    m_approxPlot = new HeatmapPlot;
    m_diffPlot = new HeatmapPlot;
    m_diffPlot->setValueLabel(tr("approximate − exact"));
    for (HeatmapPlot *p : {m_exactPlot, m_approxPlot, m_diffPlot}) maps->addWidget(p, 1);
    fig->addLayout(maps, 3);
    m_readout = new QLabel;
    m_readout->setWordWrap(true);
    m_readout->setContentsMargins(8, 4, 8, 4);
    m_readout->setTextInteractionFlags(Qt::TextSelectableByMouse);
    fig->addWidget(m_readout);
    auto *costs = new QHBoxLayout;
    m_flops = new XYPlot;
    m_memory = new XYPlot;
    m_flops->setAxisLabels(tr("log₁₀ n (tokens)"), tr("log₁₀ FLOPs"));
    m_memory->setAxisLabels(tr("log₁₀ n (tokens)"), tr("log₁₀ values held"));
    costs->addWidget(m_flops, 1);
    costs->addWidget(m_memory, 1);
    fig->addLayout(costs, 2);
    outer->addWidget(scrollable(m_figure), 1);
    syncControls();
    refreshExplanation();
}

QString ApproxView::explanation() const
{
    return tr("Exact softmax attention of one head beside an approximation that trades accuracy for cost: a sparse "
              "pattern computes only some scores (hatched: not computed), a kernel form never builds the n × n matrix "
              "(its implied weights are shown). Right: the difference; below: what each costs as n grows.");
}

QString ApproxView::guide() const
{
    return tr("<p><b>Approximate</b> answers the n² cost of attention the way the long-sequence papers did. Sparse "
              "patterns — a local window, blocks, a stride (Sparse Transformer) or a dilated window (Longformer) — "
              "compute only some scores and renormalise the softmax over them. Kernel forms — linear attention with "
              "φ = elu + 1, and Performer's random features — rewrite softmax(QKᵀ)V so that the n × n matrix is never "
              "formed, in time linear in n.</p>"
              "<p>The maps are this head's exact weights, the approximation's weights (for a kernel form, the weights it "
              "implies) and their difference; the line under them gives max |ΔY| of the outputs, max |ΔP| and the worst "
              "row's total variation. The two plots count FLOPs and the values held in memory for both as n grows (log "
              "scales). A flash kernel computes exact attention in O(n) memory as well: what an approximation saves is "
              "the n² work.</p>"
              "<p>Try: widen the window until it covers the text — the difference becomes exactly 0; raise the random "
              "features from 4 to 256 and watch the error shrink (about 1/√m); linear attention's error does not "
              "vanish: it is another kernel, not an estimate of softmax.</p>");
}

void ApproxView::setHead(int layer, int head)
{
    if (layer == m_request.layer && head == m_request.head) return;
    m_request.layer = layer;
    m_request.head = head;
    syncControls();
    scheduleRun();
}

void ApproxView::setSpec(const attn::ApproxSpec &spec)
{
    m_request.spec = spec;
    syncControls();
    scheduleRun();
}

void ApproxView::syncControls()
{
    const QSignalBlocker b1(m_layer), b2(m_head), b3(m_kind), b4(m_parameter), b5(m_seed);
    if (const TextModelPtr model = subject()->model()) {
        setIndexCount(m_layer, int(model->model().config().layers));
        setIndexCount(m_head, int(model->model().config().heads));
    }
    setIndex(m_layer, m_request.layer);
    setIndex(m_head, m_request.head);
    const attn::ApproxSpec &s = m_request.spec;
    m_kind->setCurrentIndex(m_kind->findData(QString::fromStdString(attn::approxKindName(s.kind))));
    const QString name = approxParameterName(s.kind);
    m_parameterLabel->setText(name);
    m_parameterLabel->setVisible(!name.isEmpty());
    m_parameter->setVisible(!name.isEmpty());
    m_parameter->setMinimum(s.kind == attn::ApproxKind::LocalWindow ? 0 : 1);
    m_parameter->setValue(approxParameter(s));
    m_seedLabel->setVisible(s.kind == attn::ApproxKind::RandomFeatures);
    m_seed->setVisible(s.kind == attn::ApproxKind::RandomFeatures);
    m_seed->setValue(int(s.seed));
}

void ApproxView::submit()
{
    const TextModelPtr model = requireModel(tr("The approximations run on a head of a model: open one in Explore."));
    if (!model) return;
    ApproxRequest request = m_request;
    request.model = model;
    request.text = subject()->text();
    request.tokenize = subject()->tokenizeOptions();
    request.backend = subject()->backend();
    runner()->submit([request](const JobContext &ctx) { return runApprox(request, ctx); });
}

bool ApproxView::onResult(const SnapshotPtr &snapshot)
{
    auto snap = snapshotAs<ApproxSnapshot>(snapshot);
    if (!snap) return false;
    m_snapshot = snap;
    hideError();
    showSnapshot();
    return matricesShown();
}

QString ApproxView::readout() const
{
    if (!m_snapshot) return {};
    const attn::ApproxResult &r = m_snapshot->result;
    const double n = double(m_snapshot->tokens.size());
    const QString computed = r.pattern.empty()
                                 ? tr("no score matrix (linear time)")
                                 : tr("%1 of %2 scores computed").arg(r.computedScores).arg(qint64(r.exactWeights.rows * r.exactWeights.cols));
    return tr("%1 on %2 tokens: max |ΔY| = %3 · max |ΔP| = %4 · worst row's total variation %5 · %6 · FLOPs %7 "
              "vs exact %8")
        .arg(describeApprox(r.spec))
        .arg(n)
        .arg(r.maxAbsDeltaY, 0, 'g', 3)
        .arg(r.maxAbsDeltaP, 0, 'g', 3)
        .arg(r.maxRowTvd, 0, 'g', 3)
        .arg(computed)
        .arg(r.approxCost.flops, 0, 'g', 3)
        .arg(r.exactCost.flops, 0, 'g', 3);
}

void ApproxView::showSnapshot()
{
    const ApproxSnapshot &s = *m_snapshot;
    const attn::ApproxResult &r = s.result;
    syncControls();
    {
        // The head shown: the one chosen, within this model (a smaller model clamps it; the choice is kept).
        const QSignalBlocker b1(m_layer), b2(m_head);
        setIndexCount(m_layer, s.layers);
        setIndexCount(m_head, s.heads);
        setIndex(m_layer, s.request.layer);
        setIndex(m_head, s.request.head);
    }
    const QString head = headName(s.request.layer, s.request.head);
    m_exactPlot->setColorMap(m_colorMap);
    m_approxPlot->setColorMap(m_colorMap);
    m_exactPlot->setTitle(tr("exact softmax, %1").arg(head));
    // Built where they are prepared (kit: showMatrix; off the UI thread above 512² cells), from the snapshot.
    const std::size_t cells = std::size_t(r.exactWeights.rows) * std::size_t(r.exactWeights.cols);
    showMatrix(m_exactPlot, cells, [snap = m_snapshot] {
        return matrixData(snap->result.exactWeights, snap->tokens, snap->result.spec.causal, nullptr);
    });
    m_approxPlot->setTitle(r.pattern.empty() ? tr("%1 (implied weights)").arg(describeApprox(r.spec)) : describeApprox(r.spec));
    showMatrix(m_approxPlot, cells, [snap = m_snapshot] {
        const attn::ApproxResult &a = snap->result;
        return matrixData(a.approxWeights, snap->tokens, a.spec.causal, a.pattern.empty() ? nullptr : &a.pattern);
    });
    m_diffPlot->setTitle(tr("approximate − exact"));
    m_diffPlot->setDivergingRange(r.maxAbsDeltaP);
    m_diffPlot->setNoiseFloor(kWeightNoiseFloor);
    showMatrix(m_diffPlot, cells, [snap = m_snapshot] {
        return matrixData(snap->result.difference, snap->tokens, snap->result.spec.causal, nullptr);
    });
    m_readout->setText(readout());
    QList<XYSeries> flops(2), memory(2);
    flops[0].name = memory[0].name = tr("exact");
    flops[1].name = memory[1].name = r.pattern.empty() ? tr("approximate (linear time)") : tr("approximate (pattern)");
    for (const attn::CostPoint &p : s.curve) {
        const double x = std::log10(double(p.n));
        flops[0].x.push_back(x), flops[0].y.push_back(std::log10(std::max(1.0, p.exact.flops)));
        flops[1].x.push_back(x), flops[1].y.push_back(std::log10(std::max(1.0, p.approx.flops)));
        memory[0].x.push_back(x), memory[0].y.push_back(std::log10(std::max(1.0, p.exact.memory)));
        memory[1].x.push_back(x), memory[1].y.push_back(std::log10(std::max(1.0, p.approx.memory)));
    }
    m_flops->setTitle(tr("FLOPs as n grows (d = %1)").arg(s.dHead));
    m_memory->setTitle(tr("memory besides Q, K, V and Y (values)"));
    m_flops->setLines(flops);
    m_memory->setLines(memory);
}

QWidget *ApproxView::figureWidget() const { return m_snapshot ? m_figure : nullptr; }

FigureLayout ApproxView::figureLayout() const
{
    QSize row(0, 0);
    for (const HeatmapPlot *p : {m_exactPlot, m_approxPlot, m_diffPlot}) {
        const QSize s = p->figureSize(32, 380);
        row = QSize(row.width() + s.width(), std::max(row.height(), s.height()));
    }
    const int readout = m_readout->heightForWidth(row.width()) + 6;
    return {QSize(row.width() + 12, row.height() + readout + 300), 1.2, 3.5};
}

QString ApproxView::figureCaption() const
{
    QStringList parts{captionStart(50)};
    if (m_snapshot)
        parts << headName(m_snapshot->request.layer, m_snapshot->request.head) << describeApprox(m_snapshot->result.spec);
    return parts.join(QStringLiteral(" · "));
}

void ApproxView::setColorMap(ColorMap map)
{
    m_colorMap = map;
    if (m_snapshot) showSnapshot();
}

QJsonObject ApproxView::sessionState() const
{
    return {{QStringLiteral("layer"), m_request.layer},
            {QStringLiteral("head"), m_request.head},
            {QStringLiteral("kind"), QString::fromStdString(attn::approxKindName(m_request.spec.kind))},
            {QStringLiteral("parameter"), approxParameter(m_request.spec)},
            {QStringLiteral("seed"), qint64(m_request.spec.seed)}};
}

bool ApproxView::restoreSessionState(const QJsonObject &state, QString *error)
{
    StateReader in(state, {QStringLiteral("layer"), QStringLiteral("head"), QStringLiteral("kind"),
                           QStringLiteral("parameter"), QStringLiteral("seed")});
    int layer = m_request.layer, head = m_request.head, parameter = approxParameter(m_request.spec),
        seed = int(m_request.spec.seed);
    QString kind = QString::fromStdString(attn::approxKindName(m_request.spec.kind));
    QStringList kinds;
    for (attn::ApproxKind k : kKinds) kinds << QString::fromStdString(attn::approxKindName(k));
    in.integer(QStringLiteral("layer"), 0, 4095, layer).integer(QStringLiteral("head"), 0, 4095, head);
    in.choice(QStringLiteral("kind"), kinds, kind);
    in.integer(QStringLiteral("parameter"), 0, kMaxParameter, parameter).integer(QStringLiteral("seed"), 0, 1000000, seed);
    if (!in.ok(error)) return false;
    attn::ApproxSpec spec = m_request.spec;
    spec.kind = *attn::parseApproxKind(kind.toStdString());
    if (state.contains(QStringLiteral("parameter"))) setApproxParameter(spec, parameter);
    spec.seed = std::uint64_t(seed);
    m_request.layer = layer;
    m_request.head = head;
    m_request.spec = spec;
    syncControls();
    rerun();
    return true;
}

bool ApproxView::showView(const QString &spec, QString *error)
{
    // approx:L.H[:KIND[:P]]
    const QRegularExpressionMatch m =
        QRegularExpression(QStringLiteral("^approx:(\\d{1,4})\\.(\\d{1,4})(?::([a-z-]+)(?::(\\d{1,4}))?)?$")).match(spec);
    if (!m.hasMatch()) return failWith(error, tr("'%1': expected approx:L.H[:KIND[:P]]").arg(spec));
    attn::ApproxSpec s = m_request.spec;
    if (m.hasCaptured(3)) {
        const auto kind = attn::parseApproxKind(m.captured(3).toStdString());
        if (!kind)
            return failWith(error, tr("'%1': KIND is one of window, block, strided, dilated, linear-elu, random-features")
                                       .arg(spec));
        s.kind = *kind;
        if (m.hasCaptured(4)) setApproxParameter(s, m.captured(4).toInt());
    }
    if (const TextModelPtr model = subject()->model()) {
        const attn::ModelConfig &c = model->model().config();
        if (m.captured(1).toInt() >= c.layers || m.captured(2).toInt() >= c.heads)
            return failWith(error, tr("'%1': the model has layers 0..%2 and heads 0..%3")
                                       .arg(spec).arg(c.layers - 1).arg(c.heads - 1));
    }
    m_request.layer = m.captured(1).toInt();
    m_request.head = m.captured(2).toInt();
    m_request.spec = s;
    syncControls();
    rerun();
    return true;
}

} // namespace attnui
