// SPDX-License-Identifier: GPL-3.0-or-later
// CompareView's session state and headless views (fields and specs in compareview.h).

#include "views/compareview.h"

#include "subject.h"

#include <QLabel>

namespace attnui {

namespace {

bool fail(QString *error, const QString &message)
{
    if (error) *error = message;
    return false;
}

QString headSpec(const attn::HeadRef &h)
{
    return QStringLiteral("%1.%2").arg(h.layer).arg(h.head);
}

std::optional<attn::HeadRef> parseHead(const QString &text)
{
    const QStringList parts = text.split(QLatin1Char('.'));
    bool okL = false, okH = false;
    const int l = parts.value(0).toInt(&okL), h = parts.value(1).toInt(&okH);
    if (parts.size() != 2 || !okL || !okH || l < 0 || h < 0) return std::nullopt;
    return attn::HeadRef{l, h};
}

// A head within the Subject's model (when one is open).
bool headFits(const Subject *subject, const attn::HeadRef &h)
{
    if (!subject->model()) return true;
    const attn::ModelConfig &c = subject->model()->model().config();
    return h.layer < c.layers && h.head < c.heads;
}

} // namespace

QJsonObject CompareView::sessionState() const
{
    QJsonObject state{{QStringLiteral("mode"), compareModeName(m_request.mode)},
                      {QStringLiteral("text_b"), m_request.textB},
                      {QStringLiteral("settings_a"), settingsSpec(m_request.settingsA)},
                      {QStringLiteral("settings_b"), settingsSpec(m_request.settingsB)}};
    // Until the first result picks them, the heads are "the defaults for this model": nothing to save.
    if (!m_defaultHeads) {
        state.insert(QStringLiteral("head_a"), headSpec(m_request.headA));
        state.insert(QStringLiteral("head_b"), headSpec(m_request.headB));
    }
    return state;
}

bool CompareView::restoreSessionState(const QJsonObject &state, QString *error)
{
    CompareRequest r = m_request;
    if (state.contains(QStringLiteral("mode"))) {
        const auto m = compareModeFromName(state.value(QStringLiteral("mode")).toString());
        if (!m) return fail(error, tr("mode: expected texts, heads or settings"));
        r.mode = *m;
    }
    if (state.contains(QStringLiteral("text_b"))) {
        const QJsonValue v = state.value(QStringLiteral("text_b"));
        if (!v.isString()) return fail(error, tr("text_b: expected a string"));
        r.textB = v.toString();
    }
    for (const auto &[key, head] : {std::pair{QStringLiteral("head_a"), &r.headA}, std::pair{QStringLiteral("head_b"), &r.headB}}) {
        if (!state.contains(key)) continue;
        const auto h = parseHead(state.value(key).toString());
        if (!h) return fail(error, tr("%1: expected \"L.H\" with layer and head counted from 0").arg(key));
        // Not checked against the open model: a session sets the state before it opens its own model; a head
        // the model lacks is reported when the view runs.
        *head = *h;
    }
    for (const auto &[key, settings] : {std::pair{QStringLiteral("settings_a"), &r.settingsA},
                                        std::pair{QStringLiteral("settings_b"), &r.settingsB}}) {
        if (!state.contains(key)) continue;
        const auto s = parseSettingsSpec(state.value(key).toString());
        if (!s) return fail(error, tr("%1: expected model, bidirectional, causal or window:W, optionally with /nopos").arg(key));
        *settings = *s;
    }
    m_request = r;
    m_defaultHeads = !state.contains(QStringLiteral("head_a")) && !state.contains(QStringLiteral("head_b")) && m_defaultHeads;
    syncControls();
    m_explanation->setText(explanation());
    rerun();
    return true;
}

bool CompareView::showView(const QString &spec, QString *error)
{
    if (spec == QLatin1String("compare")) {
        rerun();
        return true;
    }
    const QString usage = tr("use compare, compare:heads:L.H,L.H, compare:text:TEXT or compare:settings:SPEC,SPEC");
    if (spec.startsWith(QLatin1String("compare:heads:"))) {
        const QStringList heads = spec.mid(14).split(QLatin1Char(','));
        const auto a = parseHead(heads.value(0)), b = parseHead(heads.value(1));
        if (heads.size() != 2 || !a || !b) return fail(error, tr("view '%1': expected compare:heads:L.H,L.H (from 0)").arg(spec));
        if (!headFits(subject(), *a) || !headFits(subject(), *b))
            return fail(error, tr("view '%1': a head outside this model").arg(spec));
        m_request.mode = CompareMode::Heads;
        setHeads(*a, *b);
        syncControls();
        return true;
    }
    if (spec.startsWith(QLatin1String("compare:text:"))) {
        const QString text = spec.mid(13);
        if (text.trimmed().isEmpty()) return fail(error, tr("view '%1': the second text is empty").arg(spec));
        m_request.mode = CompareMode::Texts;
        setTextB(text);
        return true;
    }
    if (spec.startsWith(QLatin1String("compare:settings:"))) {
        const QStringList specs = spec.mid(17).split(QLatin1Char(','));
        const auto a = parseSettingsSpec(specs.value(0)), b = parseSettingsSpec(specs.value(1));
        if (specs.size() != 2 || !a || !b) return fail(error, tr("view '%1': %2").arg(spec, usage));
        m_request.mode = CompareMode::Settings;
        setSettings(*a, *b);
        return true;
    }
    return fail(error, tr("the Compare workspace has no view '%1' (%2)").arg(spec, usage));
}

} // namespace attnui
