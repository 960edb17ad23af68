// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/equivariance/equivariancerun.h"
#include "kit/tokenlimits.h"

#include "workspaces/explore/modelrun.h"

#include <QObject>

#include <algorithm>
#include <cmath>

namespace attnui {

namespace {

attn::PositionKind effectivePositions(const attn::ModelConfig &config, attn::PositionalChoice choice)
{
    switch (choice) {
    case attn::PositionalChoice::Model: return config.positions;
    case attn::PositionalChoice::None: return attn::PositionKind::None;
    case attn::PositionalChoice::Sinusoidal: return attn::PositionKind::Sinusoidal;
    case attn::PositionalChoice::Rope: return attn::PositionKind::RoPE;
    }
    return config.positions;
}

QString positionsReason(attn::PositionKind kind)
{
    switch (kind) {
    case attn::PositionKind::None: return {};
    case attn::PositionKind::Learned:
        return QObject::tr("learned positions add a different vector at each position, so a token that moves gets a "
                           "different input");
    case attn::PositionKind::Sinusoidal:
        return QObject::tr("sinusoidal positions add a different vector at each position, so a token that moves gets "
                           "a different input");
    case attn::PositionKind::RoPE:
        return QObject::tr("RoPE rotates queries and keys by their positions, so a score depends on how far apart "
                           "two tokens are");
    case attn::PositionKind::ALiBi:
        return QObject::tr("ALiBi subtracts a penalty that grows with the distance between query and key");
    }
    return {};
}

QString maskReason(const attn::ModelConfig &config, const attn::MaskChoice &mask)
{
    using K = attn::MaskChoice::Kind;
    const bool causal = mask.kind == K::Causal || mask.kind == K::CausalWindow || (mask.kind == K::Model && config.causal);
    bool windows = false;
    for (std::int64_t l = 0; l < config.layers; ++l) windows = windows || attn::layerWindow(config, l) > 0;
    if (causal && mask.kind == K::Model && windows)
        return QObject::tr("the causal mask lets a token see only the tokens before it, its sliding-window layers only "
                           "the nearest of them, and a permutation changes which tokens come before and which are near");
    if (causal)
        return QObject::tr("the causal mask lets a token see only the tokens before it, and a permutation changes "
                           "which tokens come before");
    if (mask.kind == K::Window)
        return QObject::tr("the window mask depends on positions, and a permutation changes which tokens are near");
    return {};
}

// Display form of the tokens (the same as Explore's chips).
QStringList displayLabels(const attn::TokenizedText &t)
{
    QStringList out;
    out.reserve(int(t.labels.size()));
    for (const std::string &label : t.labels) out << tokenDisplayLabel(label);
    return out;
}

} // namespace

QString equivarianceReason(const attn::ModelConfig &config, const attn::EquivarianceSettings &settings)
{
    QStringList reasons;
    const QString pos = positionsReason(effectivePositions(config, settings.positional));
    if (!pos.isEmpty()) reasons << pos;
    const QString mask = maskReason(config, settings.mask);
    if (!mask.isEmpty()) reasons << mask;
    if (reasons.isEmpty())
        return QObject::tr("There is no positional information and every token sees every other, so attention "
                           "compares only token contents: moving tokens moves their rows and columns with them. The "
                           "errors are float round-off.");
    QString text = reasons.join(QObject::tr("; and "));
    text[0] = text[0].toUpper();
    return QObject::tr("%1.").arg(text);
}

bool positionalChoiceSupported(const attn::TextModel &model, attn::PositionalChoice choice)
{
    if (choice == attn::PositionalChoice::Model || choice == attn::PositionalChoice::None) return true;
    return model.model().config().architecture == attn::Architecture::Synthetic;
}

attn::Result<std::shared_ptr<Snapshot>> runEquivarianceJob(const EquivarianceRequest &request, const JobContext &ctx)
{
    if (!request.model) return attn::Status::invalid("no model is open");
    const attn::TextModel &textModel = *request.model;
    const attn::ModelConfig &config = textModel.model().config();
    if (request.focus.layer < 0 || request.focus.layer >= config.layers || request.focus.head < 0 ||
        request.focus.head >= config.heads)
        return attn::Status::invalid("head " + std::to_string(request.focus.layer) + "." +
                                     std::to_string(request.focus.head) + " is outside the model");

    // 1. The engine's check: the numbers shown in large text.
    const auto progress = [&ctx](double f) { ctx.reportProgress(f); };   // a context without a callback: none
    auto tokens = textModel.tokenize(request.text.toStdString(), request.tokenize);
    if (!tokens) return tokens.status();
    if (auto s = checkTokenLimit(int(tokens->ids.size()), kEquivarianceMaxTokens, "Equivariance",
                                 "one head's weights on both inputs and their difference");
        !s)
        return s;
    auto checked = attn::runEquivariance(
        textModel, *tokens, request.settings, [&](double f) { progress(0.8 * f); }, ctx.cancelFn());
    if (!checked) return checked.status();

    auto snap = std::make_shared<EquivarianceSnapshot>();
    snap->result = std::move(checked.value());
    const attn::EquivarianceResult &r = snap->result;
    snap->request = request;
    snap->focus = request.focus;
    snap->backend = attn::backendName(r.backendUsed);

    // 2. The head on screen, with the same settings, on X and on PX.
    std::optional<attn::TextModel> respecified;
    const attn::Model *model = &textModel.model();
    if (!r.modelSpecUsed.empty() && r.modelSpecUsed != textModel.spec()) {
        auto opened = attn::TextModel::open(r.modelSpecUsed);
        if (!opened) return opened.status();
        respecified.emplace(std::move(opened.value()));
        model = &respecified->model();
    }
    attn::ForwardOptions options;
    options.backend = request.settings.backend;
    options.threads = request.settings.threads;
    options.weightsMode = attn::WeightsRequest::Mode::Heads;
    options.weightHeads = {request.focus};
    options.captureScores = true;
    options.computeLogits = false;
    options.maskOverride = request.settings.mask.override();
    options.dropPositions = request.settings.positional == attn::PositionalChoice::None;
    options.cancel = ctx.cancelFn();

    attn::ForwardInput x;
    x.tokenIds = r.tokens.ids;
    auto passX = model->forward(x, options);
    if (!passX) return passX.status();
    progress(0.9);
    attn::ForwardInput px;
    px.tokenIds = r.permutedIds;
    auto passPX = model->forward(px, options);
    if (!passPX) return passPX.status();

    const std::int64_t L = passX->length;
    const std::int64_t D = config.dModel;
    const std::vector<std::int64_t> &pi = r.permutation;
    if (std::int64_t(pi.size()) != L || passX->heads.empty() || passPX->heads.empty())
        return attn::Status(attn::ErrorCode::Internal, "the equivariance passes returned unexpected shapes");
    snap->length = int(L);
    snap->dModel = int(D);
    snap->labels = displayLabels(r.tokens);
    snap->special = r.tokens.special;
    for (std::int64_t i = 0; i < L; ++i) snap->permutedLabels << snap->labels.value(int(pi[std::size_t(i)]));

    const attn::CapturedHead &hx = passX->heads.front();
    const attn::CapturedHead &hpx = passPX->heads.front();
    const auto LL = std::size_t(L * L);
    snap->weightsPX = hpx.weights;
    snap->weightsXPermuted.assign(LL, 0.0f);
    snap->maskedPX.assign(LL, 0);
    snap->maskedXPermuted.assign(LL, 0);
    double errA = 0.0;
    for (std::int64_t i = 0; i < L; ++i) {
        for (std::int64_t j = 0; j < L; ++j) {
            const std::size_t dst = std::size_t(i * L + j);
            const std::size_t src = std::size_t(pi[std::size_t(i)] * L + pi[std::size_t(j)]);
            snap->weightsXPermuted[dst] = hx.weights[src];
            if (!hx.scores.empty()) snap->maskedXPermuted[dst] = std::isinf(hx.scores[src]) && hx.scores[src] < 0;
            if (!hpx.scores.empty()) snap->maskedPX[dst] = std::isinf(hpx.scores[dst]) && hpx.scores[dst] < 0;
            errA = std::max(errA, std::abs(double(hpx.weights[dst]) - double(hx.weights[src])));
            snap->weightsTop = std::max({snap->weightsTop, std::abs(double(hpx.weights[dst])), std::abs(double(hx.weights[src]))});
        }
    }
    snap->focusErrWeights = errA;

    snap->outputsPX = passPX->lastHidden;
    snap->outputsXPermuted.assign(std::size_t(L * D), 0.0f);
    double errY = 0.0;
    for (std::int64_t i = 0; i < L; ++i) {
        for (std::int64_t d = 0; d < D; ++d) {
            const float v = passX->lastHidden[std::size_t(pi[std::size_t(i)] * D + d)];
            snap->outputsXPermuted[std::size_t(i * D + d)] = v;
            const double px = passPX->lastHidden[std::size_t(i * D + d)];
            errY = std::max(errY, std::abs(px - double(v)));
            snap->outputsTop = std::max({snap->outputsTop, std::abs(px), std::abs(double(v))});
        }
    }
    snap->focusErrOutputs = errY;
    progress(1.0);
    return std::shared_ptr<Snapshot>(std::move(snap));
}

} // namespace attnui
