// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/faithfulness/faithfulnesstable.h"

#include "kit/numbering.h"

#include <QHeaderView>
#include <QTableWidget>

#include <cmath>

namespace attnui {

QString importanceDisplayName(const std::string &name, const std::optional<attn::HeadRef> &head)
{
    if (name == "head")
        return head ? QObject::tr("head %1").arg(headName(int(head->layer), int(head->head))) : QObject::tr("one head");
    if (name == "head_mean") return QObject::tr("mean of heads (last layer)");
    if (name == "rollout") return QObject::tr("attention rollout");
    if (name == "flow") return QObject::tr("attention flow");
    if (name == "loo_deletion") return QObject::tr("LOO (deletion)");
    if (name == "loo_knockout") return QObject::tr("LOO (key knockout)");
    if (name == "occlusion") return QObject::tr("occlusion");   // the baseline is named in the summary
    if (name == "random") return QObject::tr("random order");
    return QString::fromStdString(name);
}

QString formatMetric(double value, int digits)
{
    if (std::isnan(value)) return QStringLiteral("NaN");
    return QString::number(value, 'f', digits);
}

namespace {

const attn::MethodMetrics *findOrdering(const attn::FaithfulnessResult &r, const std::string &method)
{
    for (const attn::MethodMetrics &m : r.orderings)
        if (m.method == method) return &m;
    return nullptr;
}

QString withRandom(double value, double random, int digits = 2)
{
    return QObject::tr("%1 (r %2)").arg(formatMetric(value, digits), formatMetric(random, digits));
}

QString flipText(int tokens, double fraction)
{
    if (tokens < 0) return QObject::tr("never");
    return QObject::tr("%1 (%2 %)").arg(tokens).arg(fraction * 100.0, 0, 'f', 0);
}

} // namespace

void fillFaithfulnessTable(QTableWidget *table, const FaithfulnessSnapshot &s, const std::string &reference)
{
    const attn::FaithfulnessResult &r = s.result;
    const QString unit = QString::fromStdString(r.target.unit);
    const bool gold = !s.gold.empty();
    QStringList headers{QObject::tr("importance\n(r = random order)"),
                        QObject::tr("comprehensiveness\nAOPC ↑ [%1]").arg(unit),
                        QObject::tr("sufficiency\nAOPC ↓ [%1]").arg(unit),
                        QObject::tr("deletion\nAUC ↓ [%1]").arg(unit),
                        QObject::tr("insertion\nAUC ↑ [%1]").arg(unit),
                        QObject::tr("tokens to\nflip ↓"),
                        QObject::tr("Bhatt faithf.\ncorr. ↑ [r]"),
                        QObject::tr("τ-b vs |%1|\n[−1…1]").arg(importanceDisplayName(reference))};
    if (gold) {
        headers << QObject::tr("token F1 vs gold\n[0…1]") << QObject::tr("precision@%1\n[0…1]").arg(s.gold.size());
    }
    table->clear();
    table->setColumnCount(headers.size());
    table->setHorizontalHeaderLabels(headers);
    const attn::MethodMetrics *random = findOrdering(r, "random");
    const attn::OrderingMetrics rnd = random ? random->metrics : attn::OrderingMetrics{};
    table->setRowCount(int(r.orderings.size()));
    int row = 0;
    for (const attn::MethodMetrics &m : r.orderings) {
        const bool isRandom = m.method == "random";
        QString name = importanceDisplayName(m.method, s.settings.head);
        if (isRandom && !m.seeds.empty())
            name = QObject::tr("random order (%1 seeds: %2–%3)").arg(m.seeds.size()).arg(m.seeds.front()).arg(m.seeds.back());
        const attn::OrderingMetrics &o = m.metrics;
        QStringList cells{name};
        if (isRandom) {
            cells << formatMetric(o.aopcComprehensiveness, 2) << formatMetric(o.aopcSufficiency, 2)
                  << formatMetric(o.aucDeletion, 2) << formatMetric(o.aucInsertion, 2)
                  << (o.tokensToFlip < 0 ? QObject::tr("never") : QObject::tr("%1 (%2 never)").arg(o.tokensToFlip).arg(m.neverFlipped))
                  << formatMetric(o.faithfulnessCorrelation, 2) << QStringLiteral("0 (by definition)");
        } else {
            cells << withRandom(o.aopcComprehensiveness, rnd.aopcComprehensiveness)
                  << withRandom(o.aopcSufficiency, rnd.aopcSufficiency) << withRandom(o.aucDeletion, rnd.aucDeletion)
                  << withRandom(o.aucInsertion, rnd.aucInsertion)
                  << QObject::tr("%1 (r %2)").arg(flipText(o.tokensToFlip, o.fractionToFlip),
                                                      rnd.tokensToFlip < 0 ? QObject::tr("never") : QString::number(rnd.tokensToFlip))
                  << withRandom(o.faithfulnessCorrelation, rnd.faithfulnessCorrelation);
            QString tau = QStringLiteral("—");
            for (const attn::AgreementScores &a : r.agreement)
                if (a.method == m.method && a.reference == reference)
                    tau = QObject::tr("%1 (ρ %2)").arg(formatMetric(a.kendallTauB, 2), formatMetric(a.spearman, 2));
            cells << tau;
        }
        if (gold) {
            QString f1 = QStringLiteral("—"), pk = QStringLiteral("—");
            if (isRandom) {
                f1 = pk = QObject::tr("%1 (expected)").arg(formatMetric(s.randomPrecision, 2));
            } else {
                for (const RationaleRow &rr : s.rationale)
                    if (rr.method == m.method) {
                        f1 = QObject::tr("%1 (r %2)").arg(formatMetric(rr.scores.f1, 2), formatMetric(s.randomPrecision, 2));
                        pk = QObject::tr("%1 (r %2)").arg(formatMetric(rr.scores.precisionAtK, 2), formatMetric(s.randomPrecision, 2));
                    }
            }
            cells << f1 << pk;
        }
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = new QTableWidgetItem(cells[c]);
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
            if (c > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (isRandom) {
                QFont f = item->font();
                f.setItalic(true);
                item->setFont(f);
            }
            table->setItem(row, c, item);
        }
        ++row;
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
}

} // namespace attnui
