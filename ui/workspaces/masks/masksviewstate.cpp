// SPDX-License-Identifier: GPL-3.0-or-later
// MasksView's caption, session state and headless views (the fields and specs are listed in masksview.h).

#include "workspaces/masks/masksview.h"

#include "kit/numbering.h"
#include "kit/stateio.h"
#include "kit/subject.h"
#include "plots/heatmapplot.h"

#include <QGridLayout>
#include <QJsonArray>

#include <cmath>

namespace attnui {

FigureLayout MasksView::figureLayout() const
{
    // The small multiples with cells of up to 20 px (one text line: every token keeps its label), the notes under
    // them, and the change in the head's output below, as wide as the row of panels.
    int width = 0, weights = 0, diffs = 0;
    for (int i = 0; i < m_weightPlots.size(); ++i) {
        const QSize w = m_weightPlots[i]->figureSize(20, 240);
        width += w.width() + m_grid->horizontalSpacing();
        weights = std::max(weights, w.height());
        if (m_diffPlots.value(i)) diffs = std::max(diffs, m_diffPlots[i]->figureSize(20, 240).height());
    }
    const int notes = 2 * fontMetrics().height() + 8;
    return {QSize(std::max(width, 480), weights + diffs + notes + 280), 0.8, 3.0};
}

QString MasksView::figureCaption() const
{
    const MasksRequest &shown = m_snapshot ? m_snapshot->request : m_request;
    QStringList parts{captionStart(), headName(shown.layer, shown.head)};
    if (m_snapshot) {
        QStringList masks;
        for (const attn::HeadUnderMask &h : m_snapshot->comparison.variants) masks << QString::fromStdString(h.name);
        parts << tr("masks: %1").arg(masks.join(QStringLiteral(", ")));
        if (!m_snapshot->request.padding.empty()) {
            QStringList pads;
            for (int p : m_snapshot->request.padding) pads << QString::number(p);
            parts << tr("padding keys %1").arg(pads.join(QLatin1Char(',')));
        }
        parts << tr("perturbed %1").arg(tokenName(m_snapshot->request.perturb));
    }
    return parts.join(QStringLiteral(" · "));
}

QJsonObject MasksView::sessionState() const
{
    // Only what was chosen (see m_headChosen): what a run resolved is left out and resolved again after opening.
    QJsonArray masks, padding, allowed;
    for (MaskChoice c : m_request.choices) masks << maskChoiceName(c);
    for (int p : m_request.padding) padding << p;
    const int L = m_customEdited ? m_request.customLength : 0;
    for (int i = 0; i < L; ++i) {
        QString row(L, QLatin1Char('0'));
        for (int j = 0; j < L; ++j)
            if (m_request.customAllowed[std::size_t(i * L + j)]) row[j] = QLatin1Char('1');
        allowed << row;
    }
    QJsonObject state{{QStringLiteral("masks"), masks},
                      {QStringLiteral("window"), m_request.window},
                      {QStringLiteral("replacement"), m_request.replacement},
                      {QStringLiteral("pads"), m_request.pads}};
    if (m_headChosen) {
        state.insert(QStringLiteral("layer"), m_request.layer);
        state.insert(QStringLiteral("head"), m_request.head);
    }
    if (!m_request.paddingDefault) state.insert(QStringLiteral("padding"), padding);
    if (m_perturbChosen) state.insert(QStringLiteral("perturb"), m_request.perturb);
    if (L > 0) state.insert(QStringLiteral("custom"), QJsonObject{{QStringLiteral("length"), L}, {QStringLiteral("allowed"), allowed}});
    return state;
}

bool MasksView::restoreSessionState(const QJsonObject &state, QString *error)
{
    // Everything is checked before anything changes: a bad field leaves the view as it was.
    MasksRequest r = m_request;
    StateReader in(state);
    in.integer(QStringLiteral("layer"), 0, 4095, r.layer)
        .integer(QStringLiteral("head"), 0, 4095, r.head)
        .integer(QStringLiteral("window"), 0, 4096, r.window)
        .integer(QStringLiteral("perturb"), -1, 1 << 20, r.perturb)   // -1 or absent: the middle token
        .integer(QStringLiteral("replacement"), -1, 1 << 24, r.replacement)
        .integer(QStringLiteral("pads"), 1, 64, r.pads);
    if (!in.ok(error)) return false;
    if (state.contains(QStringLiteral("masks"))) {
        const QJsonValue v = state.value(QStringLiteral("masks"));
        if (!v.isArray()) return failWith(error, tr("masks: expected an array of mask names"));
        r.choices.clear();
        for (const QJsonValue &m : v.toArray()) {
            const auto c = maskChoiceFromName(m.toString());
            if (!c) return failWith(error, tr("masks: unknown mask '%1' (use bidirectional, causal, padding, window, custom)").arg(m.toString()));
            if (std::find(r.choices.begin(), r.choices.end(), *c) == r.choices.end()) r.choices.push_back(*c);
        }
    }
    if (!state.contains(QStringLiteral("padding"))) {
        r.paddingDefault = true;
        r.padding.clear();
    } else {
        const QJsonValue v = state.value(QStringLiteral("padding"));
        if (!v.isArray()) return failWith(error, tr("padding: expected an array of token positions"));
        r.padding.clear();
        for (const QJsonValue &p : v.toArray()) {
            const double d = p.toDouble(-1);
            if (!p.isDouble() || d != std::floor(d) || d < 0 || d > (1 << 20))
                return failWith(error, tr("padding: expected token positions (integers ≥ 0)"));
            r.padding.push_back(int(d));
        }
        r.paddingDefault = false;
        std::sort(r.padding.begin(), r.padding.end());
        r.padding.erase(std::unique(r.padding.begin(), r.padding.end()), r.padding.end());
    }
    const bool customGiven = state.contains(QStringLiteral("custom"));
    if (!customGiven) {
        r.customLength = 0;   // the next run starts it as causal
        r.customAllowed.clear();
    } else {
        const QJsonValue v = state.value(QStringLiteral("custom"));
        if (!v.isObject()) return failWith(error, tr("custom: expected an object with length and allowed"));
        const QJsonObject c = v.toObject();
        int L = -1;
        if (!c.contains(QStringLiteral("length"))) return failWith(error, tr("custom.length: missing"));
        QString why;
        if (!StateReader(c).integer(QStringLiteral("length"), 1, 4096, L).ok(&why)) return failWith(error, QStringLiteral("custom.") + why);
        const QJsonArray rows = c.value(QStringLiteral("allowed")).toArray();
        if (rows.size() != L) return failWith(error, tr("custom.allowed: expected %1 rows, got %2").arg(L).arg(rows.size()));
        r.customLength = L;
        r.customAllowed.assign(std::size_t(L) * std::size_t(L), 0);
        for (int i = 0; i < L; ++i) {
            const QString row = rows[i].toString();
            if (row.size() != L)
                return failWith(error, tr("custom.allowed: row %1 must have %2 characters '0' or '1'").arg(i).arg(L));
            for (int j = 0; j < L; ++j) {
                if (row[j] != QLatin1Char('0') && row[j] != QLatin1Char('1'))
                    return failWith(error, tr("custom.allowed: row %1 must have %2 characters '0' or '1'").arg(i).arg(L));
                r.customAllowed[std::size_t(i * L + j)] = row[j] == QLatin1Char('1');
            }
        }
    }
    const bool headGiven = state.contains(QStringLiteral("layer")) || state.contains(QStringLiteral("head"));
    r.autoHead = !headGiven;
    const bool perturbGiven = state.contains(QStringLiteral("perturb"));
    if (!perturbGiven) r.perturb = -1;
    m_request = r;
    m_headChosen = headGiven;
    m_perturbChosen = perturbGiven && r.perturb >= 0;
    m_customEdited = customGiven;
    rerun();
    return true;
}

bool MasksView::showView(const QString &spec, QString *error)
{
    if (spec == QLatin1String("masks")) {
        rerun();
        return true;
    }
    if (!spec.startsWith(QLatin1String("masks:")))
        return failWith(error, tr("the Masks workspace has no view '%1' (use masks or masks:L.H)").arg(spec));
    const QStringList parts = spec.mid(6).split(QLatin1Char('.'));
    bool okL = false, okH = false;
    const int layer = parts.value(0).toInt(&okL), head = parts.value(1).toInt(&okH);
    if (parts.size() != 2 || !okL || !okH || layer < 0 || head < 0)
        return failWith(error, tr("view '%1': expected masks:L.H with layer and head counted from 0").arg(spec));
    if (const TextModelPtr model = subject()->model()) {
        const attn::ModelConfig &c = model->model().config();
        if (layer >= c.layers || head >= c.heads)
            return failWith(error, tr("view '%1': the model has %2 layers × %3 heads (counted from 0)").arg(spec).arg(c.layers).arg(c.heads));
    }
    selectHead(layer, head);
    return true;
}

} // namespace attnui
