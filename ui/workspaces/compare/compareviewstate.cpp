// SPDX-License-Identifier: GPL-3.0-or-later
// CompareView's session state and headless views (fields and specs in compareview.h).

#include "workspaces/compare/compareview.h"

#include "kit/stateio.h"
#include "kit/subject.h"

#include <QLabel>
#include <QLineEdit>

namespace attnui {

namespace {

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
    // Until heads are chosen (by the user, a session or a view) they are "the defaults for this model", whatever a
    // run resolved them to: nothing to save, so a session saved before or after the first result reads the same.
    if (!m_defaultHeads) {
        state.insert(QStringLiteral("head_a"), headSpec(m_request.headA));
        state.insert(QStringLiteral("head_b"), headSpec(m_request.headB));
    }
    return state;
}

bool CompareView::restoreSessionState(const QJsonObject &state, QString *error)
{
    CompareRequest r = m_request;
    StateReader in(state);
    QString mode = compareModeName(r.mode), settingsA = settingsSpec(r.settingsA), settingsB = settingsSpec(r.settingsB);
    in.choice(QStringLiteral("mode"), {compareModeName(CompareMode::Texts), compareModeName(CompareMode::Heads),
                                       compareModeName(CompareMode::Settings)}, mode);
    in.string(QStringLiteral("text_b"), r.textB, m_textB->maxLength());   // what the line edit can hold
    // Not checked against the open model: a session sets the state before it opens its own model; a head the
    // model lacks is reported when the view runs.
    in.head(QStringLiteral("head_a"), r.headA).head(QStringLiteral("head_b"), r.headB);
    in.string(QStringLiteral("settings_a"), settingsA).string(QStringLiteral("settings_b"), settingsB);
    const auto a = parseSettingsSpec(settingsA), b = parseSettingsSpec(settingsB);
    const QString settingsUsage = tr("expected model, bidirectional, causal or window:W, optionally with /nopos");
    if (!a) in.fail(QStringLiteral("settings_a"), settingsUsage);
    if (!b) in.fail(QStringLiteral("settings_b"), settingsUsage);
    if (!in.ok(error)) return false;
    r.mode = *compareModeFromName(mode);
    r.settingsA = *a;
    r.settingsB = *b;
    // No heads in the state: the defaults for the model (whatever this window showed before), so that opening a
    // session gives the same view in any window.
    const bool headsGiven = state.contains(QStringLiteral("head_a")) || state.contains(QStringLiteral("head_b"));
    if (!headsGiven) {
        r.headA = {0, 0};
        r.headB = {kDefaultHead, kDefaultHead};
    }
    m_request = r;
    m_defaultHeads = !headsGiven;
    syncControls();
    refreshExplanation();
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
        const auto a = parseHeadSpec(heads.value(0)), b = parseHeadSpec(heads.value(1));
        if (heads.size() != 2 || !a || !b) return failWith(error, tr("view '%1': expected compare:heads:L.H,L.H (from 0)").arg(spec));
        if (!headFits(subject(), *a) || !headFits(subject(), *b))
            return failWith(error, tr("view '%1': a head outside this model").arg(spec));
        m_request.mode = CompareMode::Heads;
        setHeads(*a, *b);
        syncControls();
        return true;
    }
    if (spec.startsWith(QLatin1String("compare:text:"))) {
        const QString text = spec.mid(13);
        if (text.trimmed().isEmpty()) return failWith(error, tr("view '%1': the second text is empty").arg(spec));
        m_request.mode = CompareMode::Texts;
        setTextB(text);
        return true;
    }
    if (spec.startsWith(QLatin1String("compare:settings:"))) {
        const QStringList specs = spec.mid(17).split(QLatin1Char(','));
        const auto a = parseSettingsSpec(specs.value(0)), b = parseSettingsSpec(specs.value(1));
        if (specs.size() != 2 || !a || !b) return failWith(error, tr("view '%1': %2").arg(spec, usage));
        m_request.mode = CompareMode::Settings;
        setSettings(*a, *b);
        return true;
    }
    return failWith(error, tr("the Compare workspace has no view '%1' (%2)").arg(spec, usage));
}

} // namespace attnui
