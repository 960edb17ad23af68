// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/faithfulness/faithfulnessfigure.h"
#include "kit/fontscale.h"

#include "plots/heatmapplot.h"
#include "plots/xyplot.h"
#include "workspaces/faithfulness/faithfulnesstable.h"
#include "kit/numbering.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>

#include <algorithm>
#include <cmath>

namespace attnui {

namespace {

QLabel *noteLabel()
{
    auto *label = new QLabel;
    label->setWordWrap(true);
    label->setTextFormat(Qt::RichText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

const attn::Importance *findImportance(const attn::FaithfulnessResult &r, const std::string &name)
{
    for (const attn::Importance &imp : r.importances)
        if (imp.name == name) return &imp;
    return nullptr;
}

const attn::MethodMetrics *findOrdering(const attn::FaithfulnessResult &r, const std::string &method)
{
    for (const attn::MethodMetrics &m : r.orderings)
        if (m.method == method) return &m;
    return nullptr;
}

QString attentionUnit(const std::string &name)
{
    if (name == "rollout") return QObject::tr("rollout weight");
    if (name == "flow") return QObject::tr("flow [share of capacity]");
    return QObject::tr("attention weight (row renormalized)");
}

// x positions of a curve's points: the fraction of scored tokens removed (inserted) so far.
std::vector<double> curveX(std::size_t points, int step, int scored)
{
    std::vector<double> x(points);
    for (std::size_t i = 0; i < points; ++i)
        x[i] = scored > 0 ? std::min(1.0, double(i) * double(step) / double(scored)) : 0.0;
    return x;
}

HeatmapData headGrid(const attn::FaithfulnessResult &r, int layers, int heads, double attn::HeadTest::*field, double *lo,
                     double *hi)
{
    HeatmapData d;
    d.rows = layers;
    d.cols = heads;
    d.values.assign(std::size_t(layers * heads), 0.0f);
    d.masked.assign(d.values.size(), 1);
    *lo = 0.0;
    *hi = 0.0;
    for (const attn::HeadTest &h : r.heads) {
        const std::size_t k = std::size_t(h.head.layer * heads + h.head.head);
        if (k >= d.values.size()) continue;
        d.values[k] = float(h.*field);
        d.masked[k] = 0;
        *lo = std::min(*lo, h.*field);
        *hi = std::max(*hi, h.*field);
    }
    d.rowLabels = layerTickLabels(layers);
    d.colLabels = headTickLabels(heads);
    return d;
}

} // namespace

FaithfulnessFigure::FaithfulnessFigure(QWidget *parent) : QWidget(parent)
{
    // A 12-column grid: three plots, the table across, the curves across, then the three head grids.
    auto *grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(6);
    m_summary = noteLabel();
    m_rationale = noteLabel();
    grid->addWidget(m_summary, 0, 0, 1, 8);
    grid->addWidget(m_rationale, 0, 8, 1, 4);

    // Tall enough that the y-axis labels fit along their axes.
    const auto xy = [this] { auto *p = new XYPlot(this); p->setMinimumSize(240, 320); return p; };
    m_attnBars = xy();
    m_pertBars = xy();
    m_scatter = xy();
    grid->addWidget(m_attnBars, 1, 0, 1, 4);
    grid->addWidget(m_pertBars, 1, 4, 1, 4);
    grid->addWidget(m_scatter, 1, 8, 1, 4);

    m_table = new QTableWidget(this);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setMinimumHeight(160);
    m_table->setWordWrap(false);
    setRelativeFont(m_table, 0.92);
    grid->addWidget(m_table, 2, 0, 1, 12);

    // The curves across the whole width, the three head grids below them: four side by side left each grid
    // ~60 px of matrix at 1280×720, and their colour-scale labels did not fit. Below its minimum the figure scrolls.
    const auto heat = [this] { auto *p = new HeatmapPlot(this); p->setMinimumSize(260, 230); p->setAxisTitles(tr("layer"), tr("head")); return p; };
    m_curves = xy();
    m_permGrid = heat();
    m_uniformGrid = heat();
    m_ablationGrid = heat();
    m_ablationGrid->setColorMap(ColorMap::Diverging);
    grid->addWidget(m_curves, 3, 0, 1, 12);
    grid->addWidget(m_permGrid, 4, 0, 1, 4);
    grid->addWidget(m_uniformGrid, 4, 4, 1, 4);
    grid->addWidget(m_ablationGrid, 4, 8, 1, 4);
    m_sanity = noteLabel();
    m_sanity->setTextInteractionFlags(Qt::TextBrowserInteraction);
    m_sanity->setOpenExternalLinks(false);
    m_sanity->setToolTip(tr("Click a check to show or hide its numbers"));
    connect(m_sanity, &QLabel::linkActivated, this, [this](const QString &link) {
        if (link.startsWith(QLatin1String("check:"))) toggleSanityDetails(link.mid(6).toInt());
    });
    grid->addWidget(m_sanity, 5, 0, 1, 12);
    grid->setRowStretch(1, 3);
    grid->setRowStretch(2, 3);
    grid->setRowStretch(3, 3);
    grid->setRowStretch(4, 3);
    for (int c = 0; c < 12; ++c) grid->setColumnStretch(c, 1);
}

QString FaithfulnessFigure::summaryText() const { return m_summary->text(); }
QString FaithfulnessFigure::sanityText() const { return m_sanity->text(); }
QString FaithfulnessFigure::rationaleText() const { return m_rationale->text(); }

void FaithfulnessFigure::setColorMap(ColorMap map)
{
    m_colorMap = map;
    for (XYPlot *p : {m_attnBars, m_pertBars, m_scatter, m_curves}) p->setColorMap(map);
    m_permGrid->setColorMap(map);
    m_uniformGrid->setColorMap(map);
}

void FaithfulnessFigure::setSnapshot(const std::shared_ptr<const FaithfulnessSnapshot> &snapshot,
                                     const std::string &attention, const std::string &perturbation,
                                     const QString &ablation)
{
    if (!snapshot) return;
    const FaithfulnessSnapshot &s = *snapshot;
    showNotes(s);
    showBars(s, attention, perturbation);
    fillFaithfulnessTable(m_table, s, perturbation);
    showCurves(s, attention);
    showHeads(s, ablation);
}

void FaithfulnessFigure::showNotes(const FaithfulnessSnapshot &s)
{
    const attn::FaithfulnessResult &r = s.result;
    const attn::FaithfulnessSettings &st = s.settings;
    const QString target = r.target.kind == "class_probability"
                               ? tr("probability of “%1” (class %2)").arg(QString::fromStdString(r.target.label)).arg(r.target.index)
                               : tr("log p(“%1” | text) at position %2").arg(QString::fromStdString(r.target.label)).arg(r.target.position);
    QStringList lines;
    // The text the suite scored, whole: it may come from Explore or from a rationale example.
    lines << tr("<b>Text</b>: “%1”").arg(QString::fromStdString(r.tokens.text).toHtmlEscaped());
    lines << tr("<b>Target m(x)</b> = %1 = <b>%2 %3</b>, fixed on the unperturbed input. %4 scored tokens (special "
                "tokens excluded); removal for the orderings: %5; occlusion baseline: %6.")
                 .arg(target, formatMetric(r.target.score), QString::fromStdString(r.target.unit))
                 .arg(r.scoredTokens)
                 .arg(QString::fromStdString(r.removal),
                      QString::fromStdString(r.occlusionBaseline) +
                          (r.occlusionBaselineId >= 0 ? tr(" (id %1)").arg(r.occlusionBaselineId) : QString()));
    lines << tr("%1 forward passes in %2 s · seed %3; random orderings: %4 seeds (%5–%6); %7 attention permutations "
                "per head; ERASER bins 1/5/10/20/50 %; curve step %8 token(s).")
                 .arg(r.forwardPasses).arg(r.seconds, 0, 'f', 2).arg(st.seed).arg(st.randomSeeds)
                 .arg(st.seed + 1).arg(st.seed + std::uint64_t(std::max(1, st.randomSeeds)))
                 .arg(st.permutations).arg(r.curveStep);
    if (!r.skipped.empty()) {
        QStringList skipped;
        for (const std::string &k : r.skipped) skipped << QString::fromStdString(k).toHtmlEscaped();
        lines << tr("Skipped: %1.").arg(skipped.join(QStringLiteral("; ")));
    }
    m_summary->setText(lines.join(QStringLiteral("<br>")));

    if (s.gold.empty()) {
        m_rationale->setText(tr("<i>No ground-truth rationale for this text. Pick one of the rationale examples "
                                "(sample:rationale-bert) to score each method's token F1 and precision@k.</i>"));
    } else {
        QStringList words;
        for (std::int64_t g : s.gold) words << s.labels.value(int(g)).toHtmlEscaped();
        m_rationale->setText(tr("<b>Ground-truth evidence ★</b> (rationales.json): %1.<br>Token F1 and precision@%2 "
                                "per method are in the table; a random ranking expects %3.")
                                 .arg(words.join(QStringLiteral(", "))).arg(s.gold.size())
                                 .arg(formatMetric(s.randomPrecision)));
    }

    // One verdict line per check; a click on it shows (or hides) its numbers underneath.
    m_checks.clear();
    if (r.randomLogit) {
        const attn::RandomLogitCheck &c = *r.randomLogit;
        QStringList parts, agnostic;
        for (std::size_t i = 0; i < c.methods.size(); ++i) {
            const QString name = importanceDisplayName(c.methods[i]);
            const QString rho = formatMetric(i < c.spearman.size() ? c.spearman[i] : std::nan(""));
            const bool same = i < c.classAgnostic.size() && c.classAgnostic[i];
            if (same) agnostic << name;
            parts << (same ? tr("<b style='color:#c62828'>%1: ρ = %2 ⚠ class-agnostic</b>").arg(name, rho)
                           : tr("%1: ρ = %2").arg(name, rho));
        }
        const QString other = r.target.kind == "class_probability" ? tr("class %1").arg(c.otherIndex)
                                                                    : tr("token id %1").arg(c.otherIndex);
        SanityCheck check;
        check.verdict = agnostic.isEmpty()
                            ? tr("✓ <b>Another target</b>: every method's importance changes when it explains %1 instead.").arg(other)
                            : tr("<b style='color:#c62828'>⚠ Another target</b>: %1 of %2 methods give the same ranking for %3 "
                                 "— class-agnostic: %4.")
                                  .arg(agnostic.size()).arg(c.methods.size()).arg(other, agnostic.join(QStringLiteral(", ")));
        check.details = tr("Importance recomputed for %1; Spearman ρ with the original (1: the map ignores which output "
                           "it explains): %2").arg(other, parts.join(QStringLiteral(" · ")));
        m_checks << check;
    }
    if (r.randomization) {
        // One entry per method: ρ with the original map after randomizing the head, then each layer from the top.
        const attn::RandomizationCheck &c = *r.randomization;
        QStringList parts, failing;
        for (std::size_t i = 0; i < c.methods.size(); ++i) {
            QStringList rhos;
            for (const attn::RandomizationStep &step : c.steps)
                rhos << formatMetric(i < step.spearman.size() ? step.spearman[i] : std::nan(""));
            const QString name = importanceDisplayName(c.methods[i]);
            const QString text = tr("%1: %2").arg(name, rhos.join(QStringLiteral(" → ")));
            if (c.fails[i]) failing << name;
            if (c.fails[i] && c.structural[i])
                parts << tr("<b style='color:#c62828'>%1 ⚠ ignores the output head</b>").arg(text);
            else if (c.fails[i])
                parts << tr("<b style='color:#c62828'>%1 ⚠ fails</b>").arg(text);
            else
                parts << text;
        }
        SanityCheck check;
        check.verdict = failing.isEmpty()
                            ? tr("✓ <b>Parameter randomization</b>: every method's importance changes once the output head is "
                                 "re-initialized.")
                            : tr("<b style='color:#c62828'>⚠ Parameter randomization</b>: %1 of %2 methods barely change when "
                                 "the output head is re-initialized: %3.")
                                  .arg(failing.size()).arg(c.methods.size()).arg(failing.join(QStringLiteral(", ")));
        check.details = tr("Spearman ρ with the original map after re-initializing the output head, then also each layer "
                           "from the top (seed %1; |ρ| ≥ %2 after the head alone fails): %3")
                            .arg(c.seed).arg(c.threshold).arg(parts.join(QStringLiteral(" · ")));
        m_checks << check;
    }
    showSanity();
}

void FaithfulnessFigure::toggleSanityDetails(int check)
{
    if (check < 0 || check >= m_checks.size()) return;
    m_checks[check].open = !m_checks[check].open;
    showSanity();
}

void FaithfulnessFigure::showSanity()
{
    if (m_checks.isEmpty()) {
        m_sanity->setText(tr("<i>Sanity checks not run.</i>"));
        return;
    }
    // The verdict is the link: it reads as plain text, on screen and in exported figures.
    QStringList lines;
    for (int k = 0; k < m_checks.size(); ++k) {
        const SanityCheck &c = m_checks[k];
        lines << QStringLiteral("<a href=\"check:%1\" style=\"color:palette(text); text-decoration:none\">%2</a>")
                     .arg(k).arg(c.verdict);
        if (c.open) lines << QStringLiteral("<span style=\"margin-left:12px\">%1</span>").arg(c.details);
    }
    m_sanity->setText(lines.join(QStringLiteral("<br>")));
}

void FaithfulnessFigure::showBars(const FaithfulnessSnapshot &s, const std::string &attention, const std::string &perturbation)
{
    const attn::FaithfulnessResult &r = s.result;
    QStringList categories;
    std::vector<int> scored;
    for (int i = 0; i < s.labels.size(); ++i) {
        if (i < int(r.tokens.special.size()) && r.tokens.special[std::size_t(i)]) continue;
        scored.push_back(i);
        const bool gold = std::find(s.gold.begin(), s.gold.end(), std::int64_t(i)) != s.gold.end();
        categories << s.labels[i] + (gold ? QStringLiteral("★") : QString());
    }
    const auto values = [&](const attn::Importance *imp, bool absolute) {
        std::vector<double> v;
        for (int i : scored) {
            const double x = imp && std::size_t(i) < imp->scores.size() ? imp->scores[std::size_t(i)] : std::nan("");
            v.push_back(absolute ? std::abs(x) : x);
        }
        return v;
    };
    const attn::Importance *a = findImportance(r, attention);
    const attn::Importance *p = findImportance(r, perturbation);
    const QString aName = importanceDisplayName(attention, s.settings.head);
    const QString pName = importanceDisplayName(perturbation);
    const QString unit = QString::fromStdString(r.target.unit);

    m_attnBars->setBars(categories, {XYSeries{aName, {}, values(a, false), {}}});
    m_attnBars->setTitle(a ? tr("Attention: %1").arg(aName) : tr("Attention: %1 (not computed)").arg(aName));
    // Long axis labels on two lines: in one they are longer than the axes at 1280×720 (or beside the lesson dock).
    const QString tokenAxis = tr("token\n(★ = ground-truth evidence)");
    m_attnBars->setAxisLabels(tokenAxis,
                              attentionUnit(attention).replace(QStringLiteral(" ("), QStringLiteral("\n(")));
    m_pertBars->setBars(categories, {XYSeries{pName, {}, values(p, false), {}}});
    m_pertBars->setTitle(p ? tr("Perturbation: %1").arg(pName) : tr("Perturbation: %1 (not computed)").arg(pName));
    m_pertBars->setAxisLabels(tokenAxis, tr("Δ m(x) when removed\n[%1]").arg(unit));

    XYSeries points{tr("tokens"), values(a, false), values(p, true), categories};
    m_scatter->setScatter(points, true);
    QString stats = tr("not computed");
    for (const attn::AgreementScores &g : r.agreement)
        if (g.method == attention && g.reference == perturbation)
            stats = tr("τ-b %1 · ρ %2 · top-%3 %4 (random ≈ 0)")
                        .arg(formatMetric(g.kendallTauB, 2), formatMetric(g.spearman, 2)).arg(g.k)
                        .arg(formatMetric(g.topKOverlap, 2));
    m_scatter->setTitle(stats);
    // The unit on a line of its own: method and unit in one line are wider than the plot at 1280×720.
    m_scatter->setAxisLabels(aName + QStringLiteral("\n[") + attentionUnit(attention).replace(QStringLiteral(" ("), QStringLiteral("\n(")) + QStringLiteral("]"),
                             tr("|%1|\n[%2]").arg(pName, unit));
}

void FaithfulnessFigure::showCurves(const FaithfulnessSnapshot &s, const std::string &attention)
{
    const attn::FaithfulnessResult &r = s.result;
    const attn::MethodMetrics *m = findOrdering(r, attention);
    const attn::MethodMetrics *rnd = findOrdering(r, "random");
    QList<XYSeries> series;
    const auto add = [&](const QString &name, const std::vector<double> &y) {
        if (y.empty()) return;
        series << XYSeries{name, curveX(y.size(), r.curveStep, r.scoredTokens), y, {}};
    };
    const QString name = importanceDisplayName(attention);
    if (m) {
        add(tr("del"), m->metrics.deletion);
        add(tr("ins"), m->metrics.insertion);
    }
    if (rnd) {
        add(tr("del, random"), rnd->metrics.deletion);
        add(tr("ins, random"), rnd->metrics.insertion);
    }
    m_curves->setLines(series);
    m_curves->setAxisLabels(tr("fraction of tokens, in %1 order").arg(name),
                            tr("m(x) [%1]").arg(QString::fromStdString(r.target.unit)));
    if (m && rnd)
        m_curves->setTitle(tr("AUC del %1 (r %2) ↓ · ins %3 (r %4) ↑")
                               .arg(formatMetric(m->metrics.aucDeletion, 2), formatMetric(rnd->metrics.aucDeletion, 2),
                                    formatMetric(m->metrics.aucInsertion, 2), formatMetric(rnd->metrics.aucInsertion, 2)));
    else
        m_curves->setTitle(tr("Deletion / insertion curves"));
}

void FaithfulnessFigure::showHeads(const FaithfulnessSnapshot &s, const QString &ablation)
{
    const attn::FaithfulnessResult &r = s.result;
    int layers = 0, heads = 0;
    for (const attn::HeadTest &h : r.heads) {
        layers = std::max(layers, int(h.head.layer) + 1);
        heads = std::max(heads, int(h.head.head) + 1);
    }
    double lo = 0, hi = 0;
    const auto show = [&](HeatmapPlot *plot, double attn::HeadTest::*field, const QString &title, const QString &unit,
                          bool diverging) {
        HeatmapData d = headGrid(r, layers, heads, field, &lo, &hi);
        if (diverging) {
            const double m = std::max({std::abs(lo), std::abs(hi), 1e-9});
            plot->setValueRange(-m, m);
        } else {
            plot->setValueRange(0.0, std::max(hi, 1e-9));
        }
        plot->setValueLabel(unit);
        plot->setTitle(title);
        plot->setData(std::move(d));
        plot->setHoverFormatter([plot, unit](HeatmapCell c) {
            const double v = plot->cellValue(c.row, c.col);
            const QString head = headName(c.row, c.col);
            return std::isnan(v) ? QObject::tr("%1: not tested").arg(head)
                                 : QObject::tr("%1: %2 %3").arg(head).arg(v, 0, 'g', 4).arg(unit);
        });
    };
    if (r.heads.empty()) {
        for (HeatmapPlot *p : {m_permGrid, m_uniformGrid, m_ablationGrid}) {
            p->clear();
            p->setTitle(tr("head tests off"));
        }
        return;
    }
    // The number of permutations in the title, which wraps: on the colour scale it was longer than the scale.
    show(m_permGrid, &attn::HeadTest::permutationMedianTvd,
         tr("Permuted head: median TVD of %1 perms").arg(s.settings.permutations), tr("TVD [0…1]"), false);
    show(m_uniformGrid, &attn::HeadTest::uniformTvd, tr("Uniform head: TVD"), tr("TVD [0…1]"), false);
    const bool zero = ablation != QLatin1String("mean");
    show(m_ablationGrid, zero ? &attn::HeadTest::zeroAblationDelta : &attn::HeadTest::meanAblationDelta,
         zero ? tr("Head zeroed: Δ target") : tr("Head mean-ablated: Δ target"),
         tr("Δ [%1]").arg(QString::fromStdString(r.target.unit)), true);
}

} // namespace attnui
