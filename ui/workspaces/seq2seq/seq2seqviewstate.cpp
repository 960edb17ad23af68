// SPDX-License-Identifier: GPL-3.0-or-later
// Seq2SeqView's session state and headless views (fields and specs in seq2seqview.h).

#include "workspaces/seq2seq/seq2seqview.h"

#include "kit/stateio.h"

#include <QLineEdit>

#include <QRegularExpression>

namespace attnui {

namespace {

const QStringList kViewNames{QStringLiteral("alignment"), QStringLiteral("heatmap"), QStringLiteral("generation")};
const QStringList kKeys{QStringLiteral("model"),  QStringLiteral("source"), QStringLiteral("target"),
                        QStringLiteral("max_new_tokens"), QStringLiteral("view"), QStringLiteral("kind"),
                        QStringLiteral("layer"), QStringLiteral("head"), QStringLiteral("step")};

// "L.H" or "L.mean" → (layer, head); head −1 for the mean.
std::optional<std::pair<int, int>> parseLayerHead(const QString &text)
{
    const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("^(\\d{1,4})\\.(\\d{1,4}|mean)$")).match(text);
    if (!m.hasMatch()) return std::nullopt;
    return std::pair{m.captured(1).toInt(), m.captured(2) == QLatin1String("mean") ? -1 : m.captured(2).toInt()};
}

} // namespace

QJsonObject Seq2SeqView::sessionState() const
{
    QJsonObject state{{QStringLiteral("model"), m_request.spec},
                      {QStringLiteral("source"), m_request.source},
                      {QStringLiteral("target"), m_request.target},
                      {QStringLiteral("max_new_tokens"), m_request.maxNewTokens},
                      {QStringLiteral("view"), kViewNames[int(m_view)]},
                      {QStringLiteral("kind"), attentionKindName(m_kind)},
                      {QStringLiteral("head"), m_head},
                      {QStringLiteral("step"), m_step}};
    if (m_layer >= 0) state.insert(QStringLiteral("layer"), m_layer);   // absent: the last layer
    return state;
}

bool Seq2SeqView::restoreSessionState(const QJsonObject &state, QString *error)
{
    StateReader in(state, kKeys);
    QString spec = m_request.spec, source = m_request.source, target = m_request.target;
    QString viewName = kViewNames[int(m_view)], kindName = attentionKindName(m_kind);
    int maxNew = m_request.maxNewTokens, layer = m_layer, head = m_head, step = m_step;
    in.string(QStringLiteral("model"), spec, 4096).string(QStringLiteral("source"), source, m_source->maxLength());
    in.string(QStringLiteral("target"), target, m_target->maxLength());
    in.integer(QStringLiteral("max_new_tokens"), 1, 512, maxNew);
    in.choice(QStringLiteral("view"), kViewNames, viewName);
    in.choice(QStringLiteral("kind"), {QStringLiteral("enc"), QStringLiteral("dec"), QStringLiteral("cross")}, kindName);
    in.integer(QStringLiteral("layer"), 0, 4095, layer).integer(QStringLiteral("head"), -1, 4095, head);
    in.integer(QStringLiteral("step"), 0, 4095, step);
    if (!in.ok(error)) return false;
    m_request.source = source;
    m_request.target = target;
    m_request.maxNewTokens = maxNew;
    m_view = View(kViewNames.indexOf(viewName));
    m_kind = *attentionKindFromName(kindName);
    m_layer = state.contains(QStringLiteral("layer")) ? layer : -1;
    m_head = head;
    m_step = step;
    if (spec != m_request.spec) setModelSpec(spec);
    syncControls();
    refreshExplanation();
    rerun();
    return true;
}

QStringList Seq2SeqView::viewPrefixes() const
{
    return {QStringLiteral("head:enc"), QStringLiteral("head:dec"), QStringLiteral("head:cross"), QStringLiteral("align"),
            QStringLiteral("generation")};
}

bool Seq2SeqView::showView(const QString &spec, QString *error)
{
    const QStringList parts = spec.split(QLatin1Char(':'));
    const auto layerHead = [&](const QString &text, const QString &usage) -> std::optional<std::pair<int, int>> {
        const auto lh = parseLayerHead(text);
        if (!lh) {
            failWith(error, tr("'%1': expected %2").arg(spec, usage));
            return std::nullopt;
        }
        if (m_snapshot) {
            const AttentionKind k = parts[0] == QLatin1String("head") ? *attentionKindFromName(parts[1]) : AttentionKind::Cross;
            if (lh->first >= m_snapshot->layers(k) || lh->second >= m_snapshot->heads(k)) {
                failWith(error, tr("'%1': the %2 has layers 0..%3 and heads 0..%4")
                                    .arg(spec, attentionKindTitle(k)).arg(m_snapshot->layers(k) - 1)
                                    .arg(m_snapshot->heads(k) - 1));
                return std::nullopt;
            }
        }
        return lh;
    };
    if (parts.size() == 3 && parts[0] == QLatin1String("head") && attentionKindFromName(parts[1])) {
        const auto lh = layerHead(parts[2], tr("head:%1:L.H (H a head or 'mean')").arg(parts[1]));
        if (!lh) return false;
        m_view = View::Heatmap;
        m_kind = *attentionKindFromName(parts[1]);
        setHead(lh->first, lh->second);
        setView(View::Heatmap);
        return true;
    }
    if (parts.size() == 2 && parts[0] == QLatin1String("align")) {
        const auto lh = layerHead(parts[1], tr("align:L.H (H a head or 'mean')"));
        if (!lh) return false;
        setHead(lh->first, lh->second);
        setView(View::Alignment);
        return true;
    }
    if ((parts.size() == 2 || parts.size() == 3) && parts[0] == QLatin1String("generation")) {
        bool ok = false;
        const int step = parts[1].toInt(&ok);
        const int steps = m_snapshot ? m_snapshot->rows(AttentionKind::Cross) : 0;
        if (!ok || step < 0 || (m_snapshot && step >= steps))
            return failWith(error, tr("'%1': expected generation:STEP[:L.H] with STEP in 0..%2").arg(spec).arg(steps - 1));
        if (parts.size() == 3) {
            const auto lh = layerHead(parts[2], tr("generation:STEP:L.H (H a head or 'mean')"));
            if (!lh) return false;
            setHead(lh->first, lh->second);
        }
        setView(View::Generation);
        setStep(step);
        return true;
    }
    return failWith(error, tr("'%1': expected head:enc:L.H, head:dec:L.H, head:cross:L.H, align:L.H or "
                              "generation:STEP[:L.H]").arg(spec));
}

} // namespace attnui
