// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/compare/comparerun.h"
#include "kit/tokenlimits.h"

#include "kit/numbering.h"

#include "workspaces/explore/modelrun.h"

#include <QObject>

#include <algorithm>
#include <cmath>

namespace attnui {

namespace {

QString shortText(const QString &text)
{
    QString t = text.simplified();
    if (t.size() > 32) t = t.left(30) + QStringLiteral("…");
    return QStringLiteral("“%1”").arg(t);
}

QString headLabel(const attn::HeadRef &h)
{
    return headName(int(h.layer), int(h.head));
}

// One forward pass: the head's weights and where they are masked (scores −∞).
attn::Status runSide(const attn::TextModel &model, const QString &text, const attn::HeadRef &head,
                     const CompareSettings &settings, const CompareRequest &r, const JobContext &ctx, double from,
                     double to, CompareSide *side)
{
    auto tokens = model.tokenize(text.toStdString(), r.tokenize);
    if (!tokens) return tokens.status();
    if (tokens->ids.empty()) return attn::Status::invalid("the text gives no tokens");
    if (auto s = checkTokenLimit(int(tokens->ids.size()), kCompareMaxTokens, "Compare", "two heads' weights and their difference"); !s)
        return s;
    attn::ForwardInput in;
    in.tokenIds = tokens->ids;
    attn::ForwardOptions fo;
    fo.backend = r.backend;
    fo.cancel = ctx.cancelFn();
    fo.progress = [&ctx, from, to](double f) { ctx.reportProgress(from + (to - from) * f); };
    fo.computeLogits = false;
    fo.weightsMode = attn::WeightsRequest::Mode::Heads;
    fo.weightHeads = {head};
    fo.captureScores = true;
    switch (settings.mask) {
    case CompareSettings::Mask::Model: break;
    case CompareSettings::Mask::Bidirectional: fo.maskOverride = attn::MaskSpec::bidirectional(); break;
    case CompareSettings::Mask::Causal: fo.maskOverride = attn::MaskSpec::causalMask(); break;
    case CompareSettings::Mask::Window:
        fo.maskOverride = attn::MaskSpec::slidingWindow(settings.window, model.model().config().causal);
        break;
    }
    fo.dropPositions = !settings.positions;
    auto out = model.model().forward(in, fo);
    if (!out) return out.status();
    const attn::CapturedHead &h = out->heads.front();
    side->weights = h.weights;
    side->masked.resize(h.scores.size());
    for (std::size_t e = 0; e < h.scores.size(); ++e) side->masked[e] = std::isinf(h.scores[e]) && h.scores[e] < 0 ? 1 : 0;
    for (const std::string &label : tokens->labels) side->tokens << tokenDisplayLabel(label);
    return {};
}

} // namespace

QString compareModeName(CompareMode mode)
{
    switch (mode) {
    case CompareMode::Texts: return QStringLiteral("texts");
    case CompareMode::Heads: return QStringLiteral("heads");
    case CompareMode::Settings: return QStringLiteral("settings");
    }
    return {};
}

std::optional<CompareMode> compareModeFromName(const QString &name)
{
    for (CompareMode m : {CompareMode::Texts, CompareMode::Heads, CompareMode::Settings})
        if (compareModeName(m) == name) return m;
    return std::nullopt;
}

QString compareMaskName(CompareSettings::Mask mask)
{
    switch (mask) {
    case CompareSettings::Mask::Model: return QStringLiteral("model");
    case CompareSettings::Mask::Bidirectional: return QStringLiteral("bidirectional");
    case CompareSettings::Mask::Causal: return QStringLiteral("causal");
    case CompareSettings::Mask::Window: return QStringLiteral("window");
    }
    return {};
}

std::optional<CompareSettings::Mask> compareMaskFromName(const QString &name)
{
    using M = CompareSettings::Mask;
    for (M m : {M::Model, M::Bidirectional, M::Causal, M::Window})
        if (compareMaskName(m) == name) return m;
    return std::nullopt;
}

QString settingsSpec(const CompareSettings &s)
{
    QString spec = compareMaskName(s.mask);
    if (s.mask == CompareSettings::Mask::Window) spec += QStringLiteral(":%1").arg(s.window);
    if (!s.positions) spec += QStringLiteral("/nopos");
    return spec;
}

std::optional<CompareSettings> parseSettingsSpec(const QString &spec)
{
    CompareSettings s;
    QString mask = spec;
    if (mask.endsWith(QLatin1String("/nopos"))) {
        s.positions = false;
        mask.chop(6);
    }
    if (mask.startsWith(QLatin1String("window:"))) {
        bool ok = false;
        s.window = mask.mid(7).toInt(&ok);
        if (!ok || s.window < 0 || s.window > 4096) return std::nullopt;
        s.mask = CompareSettings::Mask::Window;
        return s;
    }
    const auto m = compareMaskFromName(mask);
    if (!m || *m == CompareSettings::Mask::Window) return std::nullopt;
    s.mask = *m;
    return s;
}

QString describeSettings(const CompareSettings &s)
{
    QString mask;
    switch (s.mask) {
    case CompareSettings::Mask::Model: mask = QObject::tr("the model's own mask"); break;
    case CompareSettings::Mask::Bidirectional: mask = QObject::tr("bidirectional"); break;
    case CompareSettings::Mask::Causal: mask = QObject::tr("causal"); break;
    case CompareSettings::Mask::Window: mask = QObject::tr("window %1").arg(s.window); break;
    }
    return s.positions ? mask : QObject::tr("%1, no positions").arg(mask);
}

attn::Result<std::shared_ptr<Snapshot>> runCompare(const CompareRequest &request, const JobContext &ctx)
{
    if (!request.model) return attn::Status::invalid("no model is open: pick one in Explore");
    const attn::TextModel &model = *request.model;
    const attn::ModelConfig &c = model.model().config();
    auto snap = std::make_shared<CompareSnapshot>();
    snap->request = request;
    CompareRequest &r = snap->request;
    // The view's "default heads" placeholder becomes the model's last head; a head that a session or view
    // spec named must exist (sessions set it before their model is open, so it is checked here).
    for (const auto &[name, h] : {std::pair{"head_a", &r.headA}, std::pair{"head_b", &r.headB}}) {
        if (h->layer == kDefaultHead && h->head == kDefaultHead) {
            *h = {c.layers - 1, c.heads - 1};
        } else if (h->layer >= c.layers || h->head >= c.heads) {
            return attn::Status::invalid(std::string(name) + ": " + std::to_string(h->layer) + "." +
                                         std::to_string(h->head) + " is not a head of this model (" +
                                         std::to_string(c.layers) + " layers × " + std::to_string(c.heads) +
                                         " heads, counted from 0)");
        }
    }
    snap->modelName = QString::fromStdString(model.displayName());
    snap->backend = attn::backendName(request.backend);
    if (r.textA.trimmed().isEmpty()) return attn::Status::invalid("the text is empty: type a few words in Explore");

    const CompareSettings own;
    const auto fail = [](const char *side, const attn::Status &s) {
        return attn::Status(s.code(), std::string(side) + ": " + s.message());
    };
    switch (r.mode) {
    case CompareMode::Texts:
        if (r.textB.trimmed().isEmpty()) return attn::Status::invalid("text B is empty: type a second text to compare");
        if (auto s = runSide(model, r.textA, r.headA, own, r, ctx, 0.0, 0.5, &snap->a); !s) return fail("text A", s);
        if (auto s = runSide(model, r.textB, r.headA, own, r, ctx, 0.5, 1.0, &snap->b); !s) return fail("text B", s);
        snap->labelA = QObject::tr("A: %1").arg(shortText(r.textA));
        snap->labelB = QObject::tr("B: %1").arg(shortText(r.textB));
        break;
    case CompareMode::Heads:
        if (auto s = runSide(model, r.textA, r.headA, own, r, ctx, 0.0, 0.5, &snap->a); !s) return fail("head A", s);
        if (auto s = runSide(model, r.textA, r.headB, own, r, ctx, 0.5, 1.0, &snap->b); !s) return fail("head B", s);
        snap->labelA = QObject::tr("A: %1").arg(headLabel(r.headA));
        snap->labelB = QObject::tr("B: %1").arg(headLabel(r.headB));
        break;
    case CompareMode::Settings:
        if (auto s = runSide(model, r.textA, r.headA, r.settingsA, r, ctx, 0.0, 0.5, &snap->a); !s) return fail("settings A", s);
        if (auto s = runSide(model, r.textA, r.headA, r.settingsB, r, ctx, 0.5, 1.0, &snap->b); !s) return fail("settings B", s);
        snap->labelA = QObject::tr("A: %1").arg(describeSettings(r.settingsA));
        snap->labelB = QObject::tr("B: %1").arg(describeSettings(r.settingsB));
        break;
    }

    const int LA = snap->a.length(), LB = snap->b.length();
    const int n = std::min(LA, LB);
    snap->common = n;
    snap->diff.resize(std::size_t(n) * std::size_t(n));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const double d = double(snap->a.weights[std::size_t(i * LA + j)]) - double(snap->b.weights[std::size_t(i * LB + j)]);
            snap->diff[std::size_t(i * n + j)] = float(d);
            snap->maxAbsDiff = std::max(snap->maxAbsDiff, std::abs(d));
        }
    if (LA != LB)
        snap->note = QObject::tr("The texts have %1 and %2 tokens: only the first %3 positions are compared (row i and "
                                 "column j of each, aligned by position). %4")
                         .arg(LA).arg(LB).arg(n)
                         .arg(c.causal ? QObject::tr("The model is causal, so those positions never see the tokens beyond them.")
                                       : QObject::tr("The model is bidirectional: those positions also see the tokens beyond "
                                                     "them, which differ in length."));
    else if (r.mode == CompareMode::Texts && snap->a.tokens != snap->b.tokens)
        snap->note = QObject::tr("Both texts have %1 tokens; they are compared position by position.").arg(n);
    return std::shared_ptr<Snapshot>(snap);
}

} // namespace attnui
