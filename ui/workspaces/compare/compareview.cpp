// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/compare/compareview.h"

#include "kit/numbering.h"
#include "plots/heatmapplot.h"
#include "runner/enginerunner.h"
#include "kit/subject.h"
#include "runner/workpool.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace attnui {

namespace {

constexpr int kDebounceMs = 150;
const QStringList kSettingPresets{QStringLiteral("model"), QStringLiteral("bidirectional"), QStringLiteral("causal"),
                                  QStringLiteral("window:2"), QStringLiteral("window:4"), QStringLiteral("model/nopos"),
                                  QStringLiteral("bidirectional/nopos"), QStringLiteral("causal/nopos")};

QLabel *label(const QString &text)
{
    return new QLabel(text);
}

void selectSpec(QComboBox *combo, const QString &spec)
{
    int i = combo->findData(spec);
    if (i < 0) {
        const auto s = parseSettingsSpec(spec);
        combo->addItem(s ? describeSettings(*s) : spec, spec);
        i = combo->count() - 1;
    }
    combo->setCurrentIndex(i);
}

} // namespace

CompareView::CompareView(Subject *subject, QWidget *parent)
    : Workspace(subject, QStringLiteral("compare"), {.debounceMs = kDebounceMs}, parent)
{
    // Until the user picks: the first head against the last one, which differ in most models.
    m_request.headA = {0, 0};
    m_request.headB = {kDefaultHead, kDefaultHead};
    m_request.settingsB.mask = CompareSettings::Mask::Bidirectional;
    buildUi();
    scheduleRun();
}

void CompareView::onModelChanged()
{
    if (m_defaultHeads) m_request.headB = {kDefaultHead, kDefaultHead};
    scheduleRun();
}

CompareView::~CompareView() = default;

void CompareView::buildUi()
{
    QVBoxLayout *outer = makePage();

    auto *controls = new QHBoxLayout;
    controls->addWidget(label(tr("Compare")));
    m_mode = new QComboBox;
    m_mode->addItem(tr("two heads"), compareModeName(CompareMode::Heads));
    m_mode->addItem(tr("two texts"), compareModeName(CompareMode::Texts));
    m_mode->addItem(tr("two settings"), compareModeName(CompareMode::Settings));
    connect(m_mode, &QComboBox::activated, this, [this] {
        if (auto m = compareModeFromName(m_mode->currentData().toString())) setMode(*m);
    });
    controls->addWidget(m_mode);
    controls->addSpacing(12);

    const auto headCombo = [this](const QString &tip) {
        auto *c = new QComboBox;
        c->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        c->setToolTip(tip);
        connect(c, &QComboBox::activated, this, [this] {
            const QPoint a = (m_request.mode == CompareMode::Heads ? m_headA : m_headShared)->currentData().toPoint();
            const QPoint b = m_headB->currentData().toPoint();
            // Texts and Settings modes choose only A's head; B keeps the one shown (a default resolved by the run).
            const attn::HeadRef shownB = m_snapshot ? m_snapshot->request.headB : m_request.headB;
            setHeads({a.x(), a.y()}, m_request.mode == CompareMode::Heads ? attn::HeadRef{b.x(), b.y()} : shownB);
        });
        return c;
    };
    m_headSharedLabel = label(tr("Head"));
    m_headShared = headCombo(tr("The head both sides show"));
    controls->addWidget(m_headSharedLabel);
    controls->addWidget(m_headShared);
    m_modeControls = new QStackedWidget;
    // Heads.
    auto *heads = new QWidget;
    auto *hl = new QHBoxLayout(heads);
    hl->setContentsMargins(0, 0, 0, 0);
    m_headA = headCombo(tr("Head A, on the text typed in Explore"));
    m_headB = headCombo(tr("Head B, on the same text"));
    hl->addWidget(label(tr("Head A")));
    hl->addWidget(m_headA);
    hl->addWidget(label(tr("Head B")));
    hl->addWidget(m_headB);
    hl->addStretch(1);
    m_modeControls->addWidget(heads);
    // Texts.
    auto *texts = new QWidget;
    auto *tl = new QHBoxLayout(texts);
    tl->setContentsMargins(0, 0, 0, 0);
    tl->addWidget(label(tr("Text B")));
    m_textB = new QLineEdit;
    m_textB->setPlaceholderText(tr("a second text to compare with the one in Explore"));
    connect(m_textB, &QLineEdit::textEdited, this, [this](const QString &t) {
        m_request.textB = t;
        scheduleRun();
    });
    tl->addWidget(m_textB, 1);
    m_modeControls->addWidget(texts);
    // Settings.
    auto *settings = new QWidget;
    auto *sl = new QHBoxLayout(settings);
    sl->setContentsMargins(0, 0, 0, 0);
    m_settingsA = new QComboBox;
    m_settingsB = new QComboBox;
    for (QComboBox *c : {m_settingsA, m_settingsB}) {
        for (const QString &spec : kSettingPresets) c->addItem(describeSettings(*parseSettingsSpec(spec)), spec);
        connect(c, &QComboBox::activated, this, [this] {
            setSettings(*parseSettingsSpec(m_settingsA->currentData().toString()),
                        *parseSettingsSpec(m_settingsB->currentData().toString()));
        });
    }
    sl->addWidget(label(tr("A")));
    sl->addWidget(m_settingsA);
    sl->addWidget(label(tr("B")));
    sl->addWidget(m_settingsB);
    sl->addStretch(1);
    m_modeControls->addWidget(settings);
    controls->addWidget(m_modeControls, 1);
    outer->addLayout(controls);

    m_figure = new QWidget;
    auto *fig = new QVBoxLayout(m_figure);
    fig->setContentsMargins(0, 0, 0, 0);
    auto *row = new QHBoxLayout;
    m_plotA = new HeatmapPlot;
    m_plotB = new HeatmapPlot;
    m_diffPlot = new HeatmapPlot;
    m_diffPlot->setValueLabel(tr("A − B (weight)"));
    for (HeatmapPlot *p : {m_plotA, m_plotB, m_diffPlot}) {
        row->addWidget(p, 1);
        connect(p, &HeatmapPlot::cellHovered, this, &CompareView::hoverCell);
        connect(p, &HeatmapPlot::hoverLeft, this, &CompareView::clearHover);
        p->setHoverFormatter([this](HeatmapCell c) { return cellText(c.row, c.col); });
    }
    fig->addLayout(row, 1);
    m_readout = new QLabel(tr("Hover a cell: it is outlined in all three panels, with A, B and A − B here."));
    m_readout->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_readout->setProperty(kExcludeFromFigure, true);   // a hover read-out
    fig->addWidget(m_readout);
    m_note = new QLabel;
    m_note->setWordWrap(true);
    m_note->hide();
    fig->addWidget(m_note);
    outer->addWidget(m_figure, 1);
    refreshExplanation();
}

QString CompareView::guide() const
{
    return tr("<p><b>Compare</b> puts two attention matrices side by side with their difference A − B (red: A attends "
              "more, blue: B does): two heads on the same text, the same head on two texts (type text B here), or the "
              "same head under two settings (mask, positional information), where the whole model runs again.</p>"
              "<p>Hover a cell to read all three values at once.</p>"
              "<p>Try: two heads of the same layer on a repeated sequence, to see how differently they spend their "
              "attention.</p>");
}

QString CompareView::explanation() const
{
    switch (m_request.mode) {
    case CompareMode::Texts:
        return tr("The same head on two texts: A is the text from Explore, B the one typed here; right, A − B where both "
                  "have positions (red: A attends more, blue: B does). Hover a cell to read all three values.");
    case CompareMode::Settings:
        return tr("The same head and text under two settings (mask, positional information): the whole model runs "
                  "again under each, so earlier layers change too. Right: A − B (red: more weight under A).");
    case CompareMode::Heads:
        break;
    }
    return tr("Two heads of the model on the text from Explore, and their difference A − B (red: A attends more, blue: "
              "B does). Hover a cell to read all three values.");
}

QWidget *CompareView::figureWidget() const
{
    return m_figure;
}

FigureLayout CompareView::figureLayout() const
{
    // A, B and A − B in a row, each with cells of up to 32 px, and the note under them.
    QSize row(0, 0);
    for (const HeatmapPlot *p : {m_plotA, m_plotB, m_diffPlot}) {
        const QSize s = p->figureSize(32, 420);
        row = QSize(row.width() + s.width(), std::max(row.height(), s.height()));
    }
    const int note = m_note->isVisibleTo(m_figure) ? m_note->heightForWidth(row.width()) + 6 : 0;
    return {row + QSize(12, note), 1.4, 4.0};
}

QString CompareView::figureCaption() const
{
    QStringList parts{captionStart(50)};
    if (m_snapshot) parts << tr("%1 vs %2").arg(m_snapshot->labelA, m_snapshot->labelB);
    if (m_request.mode != CompareMode::Heads && m_snapshot)
        parts << headName(int(m_snapshot->request.headA.layer), int(m_snapshot->request.headA.head));
    return parts.join(QStringLiteral(" · "));
}

void CompareView::setColorMap(ColorMap map)
{
    m_colorMap = map;
    m_plotA->setColorMap(map);
    m_plotB->setColorMap(map);
}

void CompareView::submit()
{
    CompareRequest r = m_request;
    r.model = requireModel(tr("Open a model in Explore: Compare shows two of its attention matrices."));
    if (!r.model) return;
    r.textA = subject()->text();
    r.tokenize = subject()->tokenizeOptions();
    r.backend = subject()->backend();
    runner()->submit([r](const JobContext &ctx) { return runCompare(r, ctx); });
}

bool CompareView::onResult(const SnapshotPtr &snapshot)
{
    auto s = snapshotAs<CompareSnapshot>(snapshot);
    if (!s || s->request.model != subject()->model() || s->request.textA != subject()->text()) return false;
    // The previous result (n × n matrices) is let go of on the work pool once the panels have replaced it.
    auto previous = std::exchange(m_snapshot, std::move(s));
    showSnapshot();
    releaseInBackground(std::move(previous));
    return matricesShown();
}

void CompareView::showSnapshot()
{
    const CompareSnapshot &s = *m_snapshot;
    syncControls();
    // Built where they are prepared (kit: showMatrix), from the snapshot they hold.
    using Side = CompareSide CompareSnapshot::*;
    const auto side = [this](HeatmapPlot *plot, Side which) {
        const CompareSide &c = (*m_snapshot).*which;
        showMatrix(plot, std::size_t(c.length()) * std::size_t(c.length()), [snap = m_snapshot, which] {
            const CompareSide &c = (*snap).*which;
            HeatmapData d;
            d.rows = d.cols = c.length();
            d.values = c.weights;
            d.masked = c.masked;
            d.rowLabels = d.colLabels = c.tokens;
            return d;
        });
    };
    m_plotA->setTitle(s.labelA);
    side(m_plotA, &CompareSnapshot::a);
    m_plotB->setTitle(s.labelB);
    side(m_plotB, &CompareSnapshot::b);
    m_diffPlot->setTitle(tr("A − B (max |A − B| %1)").arg(s.maxAbsDiff, 0, 'f', 4));
    m_diffPlot->setDivergingRange(s.maxAbsDiff);
    m_diffPlot->setNoiseFloor(kWeightNoiseFloor);
    showMatrix(m_diffPlot, std::size_t(s.common) * std::size_t(s.common), [snap = m_snapshot] {
        const CompareSnapshot &s = *snap;
        HeatmapData diff;
        diff.rows = diff.cols = s.common;
        diff.values = s.diff;
        // Hatched where both sides are masked: nothing to compare there (0 − 0).
        diff.masked.resize(s.diff.size());
        for (int i = 0; i < s.common; ++i)
            for (int j = 0; j < s.common; ++j)
                diff.masked[std::size_t(i * s.common + j)] = s.a.masked[std::size_t(i * s.a.length() + j)] &&
                                                             s.b.masked[std::size_t(i * s.b.length() + j)];
        for (int i = 0; i < s.common; ++i) {
            const QString a = s.a.tokens[i], b = s.b.tokens[i];
            diff.rowLabels << (a == b ? a : QStringLiteral("%1|%2").arg(a, b));
        }
        diff.colLabels = diff.rowLabels;
        return diff;
    });
    m_note->setText(s.note);
    m_note->setVisible(!s.note.isEmpty());
    refreshExplanation();
}

void CompareView::hoverCell(int row, int col)
{
    if (!m_snapshot) return;
    for (HeatmapPlot *p : {m_plotA, m_plotB, m_diffPlot}) p->highlightCell(HeatmapCell{row, col});
    m_readout->setText(cellText(row, col));
}

QString CompareView::cellText(int row, int col) const
{
    if (!m_snapshot) return {};
    const CompareSnapshot &s = *m_snapshot;
    const auto value = [](const CompareSide &c, int i, int j) -> QString {
        if (i >= c.length() || j >= c.length()) return tr("—");
        const std::size_t e = std::size_t(i * c.length() + j);
        return c.masked[e] ? tr("masked (0)") : QString::number(c.weights[e], 'f', 4);
    };
    const QString q = row < s.a.length() ? s.a.tokens[row] : s.b.tokens.value(row);
    const QString k = col < s.a.length() ? s.a.tokens[col] : s.b.tokens.value(col);
    QString text = tr("query %1 “%2” → key %3 “%4”:   A = %5   B = %6").arg(row).arg(q).arg(col).arg(k)
                       .arg(value(s.a, row, col), value(s.b, row, col));
    if (row < s.common && col < s.common)
        return text + tr("   A − B = %1").arg(s.diff[std::size_t(row * s.common + col)], 0, 'f', 4);
    return text + tr("   (not compared: only one side has this position)");
}

void CompareView::clearHover()
{
    for (HeatmapPlot *p : {m_plotA, m_plotB, m_diffPlot}) p->highlightCell(std::nullopt);
}

QString CompareView::readout() const
{
    return m_readout->text();
}

QString CompareView::noteText() const
{
    return m_note->isHidden() ? QString() : m_note->text();
}

void CompareView::syncControls()
{
    const int mode = int(m_request.mode == CompareMode::Heads ? 0 : m_request.mode == CompareMode::Texts ? 1 : 2);
    m_mode->setCurrentIndex(mode);
    m_modeControls->setCurrentIndex(mode);
    m_headSharedLabel->setVisible(mode != 0);
    m_headShared->setVisible(mode != 0);
    if (m_snapshot) {
        const attn::ModelConfig &c = m_snapshot->request.model->model().config();
        for (QComboBox *combo : {m_headA, m_headB, m_headShared}) {
            if (combo->count() == c.layers * c.heads) continue;
            combo->clear();
            for (int l = 0; l < c.layers; ++l)
                for (int h = 0; h < c.heads; ++h) combo->addItem(headName(l, h), QPoint(l, h));
        }
        const auto index = [&c](const attn::HeadRef &h) { return int(h.layer * c.heads + h.head); };
        m_headA->setCurrentIndex(index(m_snapshot->request.headA));
        m_headShared->setCurrentIndex(index(m_snapshot->request.headA));
        m_headB->setCurrentIndex(index(m_snapshot->request.headB));
    }
    if (m_textB->text() != m_request.textB) m_textB->setText(m_request.textB);
    selectSpec(m_settingsA, settingsSpec(m_request.settingsA));
    selectSpec(m_settingsB, settingsSpec(m_request.settingsB));
}

void CompareView::setMode(CompareMode mode)
{
    m_request.mode = mode;
    if (mode == CompareMode::Texts && m_request.textB.isEmpty()) {
        // Something to compare at once: the Subject's words in reverse order (same tokens, other positions).
        QStringList words = subject()->text().split(QLatin1Char(' '), Qt::SkipEmptyParts);
        std::reverse(words.begin(), words.end());
        m_request.textB = words.join(QLatin1Char(' '));
    }
    syncControls();
    refreshExplanation();
    rerun();
}

void CompareView::setTextB(const QString &text)
{
    m_request.textB = text;
    syncControls();
    rerun();
}

void CompareView::setHeads(attn::HeadRef a, attn::HeadRef b)
{
    m_request.headA = a;
    m_request.headB = b;
    m_defaultHeads = false;
    rerun();
}

void CompareView::setSettings(const CompareSettings &a, const CompareSettings &b)
{
    m_request.settingsA = a;
    m_request.settingsB = b;
    syncControls();
    rerun();
}

} // namespace attnui
