// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/explore/modelrun.h"

#include "kit/tokenlimits.h"

#include <attnscope/export.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attnui {

namespace {

// Captured scores for every head cost as much memory as the weights; beyond this many floats only the focus
// head's scores are captured (a second, single-head pass).
constexpr std::size_t kAllScoresBudget = std::size_t(16) << 20;

std::vector<int> topIndices(const float *logits, int count, int k, std::vector<double> *probabilities)
{
    // Softmax in float64 with the max subtracted: the vocabulary logits can be large.
    const float maxLogit = *std::max_element(logits, logits + count);
    double sum = 0.0;
    for (int v = 0; v < count; ++v) sum += std::exp(double(logits[v]) - maxLogit);
    std::vector<int> order(static_cast<std::size_t>(count));
    std::iota(order.begin(), order.end(), 0);
    k = std::min(k, count);
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [logits](int a, int b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); });
    order.resize(std::size_t(k));
    probabilities->clear();
    for (int v : order) probabilities->push_back(std::exp(double(logits[v]) - maxLogit) / sum);
    return order;
}

QString tokenText(const attn::TextModel &model, std::int64_t id)
{
    if (!model.tokenizer()) return QString::number(id);
    const std::string text = model.tokenizer()->decode({std::int32_t(id)}, false);
    QString s = QString::fromStdString(text);
    s.replace(QLatin1Char('\n'), QStringLiteral("⏎"));
    s.replace(QLatin1Char(' '), QStringLiteral("␣"));
    return s.isEmpty() ? QString::fromStdString(model.tokenizer()->idToToken(std::int32_t(id))) : s;
}

void readOutputs(const attn::TextModel &model, const attn::ForwardResult &out, const attn::TokenizedText &tokens,
                 int topK, ModelOutputs *outputs)
{
    const attn::ModelConfig &config = model.model().config();
    outputs->head = out.head;
    const int L = int(out.length);
    switch (out.head) {
    case attn::ModelHead::None:
        outputs->note = QObject::tr("This model has no output head (hidden states only).");
        return;
    case attn::ModelHead::Classification: {
        const int classes = int(out.logits.size());
        if (classes == 0) return;
        const float maxLogit = *std::max_element(out.logits.begin(), out.logits.end());
        double sum = 0.0;
        for (float z : out.logits) sum += std::exp(double(z) - maxLogit);
        for (int c = 0; c < classes; ++c) {
            outputs->classLabels << (c < int(config.labels.size()) ? QString::fromStdString(config.labels[std::size_t(c)])
                                                                    : QStringLiteral("LABEL_%1").arg(c));
            outputs->classProbabilities.push_back(std::exp(double(out.logits[std::size_t(c)]) - maxLogit) / sum);
        }
        return;
    }
    case attn::ModelHead::CausalLM:
    case attn::ModelHead::MaskedLM: break;
    }
    if (L == 0 || out.logits.empty()) return;
    const int vocab = int(out.logits.size() / std::size_t(L));
    if (out.head == attn::ModelHead::CausalLM) {
        for (int i = 0; i < L; ++i) outputs->positions.push_back(i);
    } else {
        std::optional<std::int32_t> maskId;
        if (model.tokenizer()) maskId = model.tokenizer()->tokenToId("[MASK]");
        for (int i = 0; i < L; ++i)
            if (maskId && tokens.ids[std::size_t(i)] == *maskId) outputs->positions.push_back(i);
        if (outputs->positions.empty()) {
            outputs->note = QObject::tr("No [MASK] in the text: predictions for every position are shown. Type "
                                        "[MASK] in place of a word to ask the model for it.");
            for (int i = 0; i < L; ++i)
                if (!tokens.special[std::size_t(i)]) outputs->positions.push_back(i);
        }
    }
    for (int i : outputs->positions) {
        std::vector<double> p;
        const std::vector<int> ids = topIndices(out.logits.data() + std::size_t(i) * vocab, vocab, topK, &p);
        std::vector<TokenPrediction> row;
        for (std::size_t r = 0; r < ids.size(); ++r) row.push_back({tokenText(model, ids[r]), p[r]});
        outputs->topK.push_back(std::move(row));
    }
}

} // namespace

QString describeModel(const attn::TextModel &model)
{
    const attn::ModelConfig &c = model.model().config();
    QString head;
    switch (c.head) {
    case attn::ModelHead::None: head = QObject::tr("no output head"); break;
    case attn::ModelHead::CausalLM: head = QObject::tr("causal LM"); break;
    case attn::ModelHead::MaskedLM: head = QObject::tr("masked LM"); break;
    case attn::ModelHead::Classification: head = QObject::tr("classifier, %n classes", nullptr, int(c.numLabels)); break;
    }
    QString text = QObject::tr("%1 · %2 layers × %3 heads · d_model %4 · %5 · %6")
                       .arg(QString::fromStdString(attn::architectureName(c.architecture)))
                       .arg(c.layers)
                       .arg(c.heads)
                       .arg(c.dModel)
                       .arg(c.causal ? QObject::tr("causal") : QObject::tr("bidirectional"))
                       .arg(head);
    if (c.maxPositions > 0) text += QObject::tr(" · %1 positions").arg(c.maxPositions);
    const QString details = describeAttention(c);
    return details.isEmpty() ? text : text + QLatin1Char('\n') + details;
}

namespace {

// "0–5, 7" for sorted layer numbers.
QString layerRanges(const std::vector<int> &layers)
{
    QStringList parts;
    for (std::size_t i = 0; i < layers.size();) {
        std::size_t j = i;
        while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
        parts << (j == i ? QString::number(layers[i]) : QStringLiteral("%1–%2").arg(layers[i]).arg(layers[j]));
        i = j + 1;
    }
    return parts.join(QStringLiteral(", "));
}

QString ropeText(const attn::RopeConfig &r)
{
    QString t = QObject::tr("RoPE θ %1").arg(r.theta, 0, 'g', 7);
    if (r.type != attn::RopeType::Default)
        t += QObject::tr(", %1 scaling ×%2").arg(QString::fromStdString(attn::ropeTypeName(r.type))).arg(r.factor, 0, 'g', 6);
    return t;
}

} // namespace

QString describeAttention(const attn::ModelConfig &c)
{
    if (c.architecture == attn::Architecture::Synthetic) return {};
    QStringList parts;
    if (!c.family.empty()) parts << QString::fromStdString(c.family);
    if (c.kvHeads > 0 && c.kvHeads < c.heads)
        parts << QObject::tr("GQA: %1 query heads share %2 K/V heads (%3 per group)")
                     .arg(c.heads).arg(c.kvHeads).arg(c.heads / c.kvHeads);
    if (c.dHead > 0 && c.dHead * c.heads != c.dModel) parts << QObject::tr("head_dim %1").arg(c.dHead);
    if (c.positions == attn::PositionKind::RoPE) {
        QString rope = ropeText(c.rope);
        if (c.rotaryDim > 0 && c.rotaryDim < c.dHead) rope += QObject::tr(" on %1 of %2 dims").arg(c.rotaryDim).arg(c.dHead);
        bool local = false;
        for (const attn::LayerAttention &a : c.layerAttention) local = local || a.localRope;
        if (local) rope += QObject::tr("; sliding layers %1").arg(ropeText(c.ropeLocal));
        parts << rope;
    }
    // Sliding-window layers, grouped by window.
    std::vector<std::pair<int, std::vector<int>>> windows;
    for (int l = 0; l < int(c.layers); ++l) {
        const int w = int(attn::layerWindow(c, l));
        if (w <= 0) continue;
        auto it = std::find_if(windows.begin(), windows.end(), [w](const auto &p) { return p.first == w; });
        if (it == windows.end()) windows.push_back({w, {l}});
        else it->second.push_back(l);
    }
    for (const auto &[w, layers] : windows)
        parts << (int(layers.size()) == c.layers ? QObject::tr("sliding window %1 on every layer").arg(w)
                                                 : QObject::tr("sliding window %1 on layer%2 %3")
                                                       .arg(w).arg(layers.size() > 1 ? QStringLiteral("s") : QString())
                                                       .arg(layerRanges(layers)));
    if (c.attnSoftcap > 0) parts << QObject::tr("attention soft-cap %1").arg(double(c.attnSoftcap), 0, 'g', 6);
    if (c.finalSoftcap > 0) parts << QObject::tr("logit soft-cap %1").arg(double(c.finalSoftcap), 0, 'g', 6);
    if (c.head == attn::ModelHead::CausalLM || c.head == attn::ModelHead::MaskedLM)
        parts << (c.tiedEmbeddings ? QObject::tr("tied embeddings") : QObject::tr("untied LM head"));
    // The family alone repeats the first line's architecture: no second line then.
    if (parts.size() == 1 && !c.family.empty()) return {};
    return parts.join(QStringLiteral(" · "));
}

QString tokenDisplayLabel(const std::string &label)
{
    QString s = QString::fromStdString(label);
    const QString trimmed = s.trimmed();
    if (trimmed.isEmpty()) {
        if (s.contains(QLatin1Char('\n'))) return QStringLiteral("⏎");
        if (s.contains(QLatin1Char('\t'))) return QStringLiteral("⇥");
        return QStringLiteral("␣");
    }
    return QString(trimmed).replace(QLatin1Char('\n'), QStringLiteral("⏎"));
}

attn::Result<std::shared_ptr<Snapshot>> runModel(const ModelRequest &request, const JobContext &ctx)
{
    TextModelPtr model = request.model;
    const bool opened = !model;
    // A model that opens first takes the first 90 % of the progress bar (its checkpoint's bytes converted; a large
    // BF16 model takes seconds), the forward pass the rest; Cancel stops the load between tensors.
    const double loadShare = opened ? 0.9 : 0.0;
    if (opened) {
        attn::LoadOptions load;
        load.progress = [&ctx, loadShare](double f) { ctx.reportProgress(loadShare * f); };
        load.cancel = ctx.cancelFn();
        auto loaded = attn::TextModel::open(request.spec.toStdString(), load);
        if (!loaded) return loaded.status();
        model = std::make_shared<const attn::TextModel>(std::move(loaded).value());
    }
    if (ctx.isCancelled()) return attn::Status::cancelled();

    auto snap = std::make_shared<ModelSnapshot>();
    snap->model = model;
    snap->source = QString::fromStdString(model->displayName());
    snap->text = request.text;
    if (auto folder = attn::resolveModelSpec(model->spec()); folder && QDir(QString::fromStdString(*folder)).exists())
        readExamples(QString::fromStdString(*folder), &snap->examples, &snap->exampleHints);
    if (request.useFirstExample && !snap->examples.isEmpty()) snap->text = snap->examples.first();

    // A model that just opened is handed back even when the text cannot run, so the view can switch to it.
    auto fail = [&](const attn::Status &status) -> attn::Result<std::shared_ptr<Snapshot>> {
        if (!opened || status.code() == attn::ErrorCode::Cancelled) return status;
        snap->runError = QString::fromStdString(status.message());
        return std::shared_ptr<Snapshot>(snap);
    };

    if (snap->text.trimmed().isEmpty()) return fail(attn::Status::invalid("the text is empty: type a few words to see their attention"));
    auto tokenized = model->tokenize(snap->text.toStdString(), request.tokenize);
    if (!tokenized) return fail(tokenized.status());
    if (tokenized->ids.empty()) return fail(attn::Status::invalid("the text gives no tokens"));
    // Padding tokens (attnscope-cli figure --pad), as `run --pad` appends them: masked as keys.
    std::vector<std::uint8_t> keyValid(tokenized->ids.size(), 1);
    if (request.padding > 0) {
        const auto &tok = model->tokenizer();
        const std::int64_t padId = attn::paddingTokenId(model->model().config(), tok ? &*tok : nullptr);
        std::string label = tok ? tok->idToToken(static_cast<std::int32_t>(padId)) : std::string();
        if (label.empty()) label = "<pad>";
        for (int k = 0; k < request.padding; ++k) {
            tokenized->ids.push_back(padId);
            tokenized->labels.push_back(label);
            tokenized->begins.push_back(tokenized->text.size());
            tokenized->ends.push_back(tokenized->text.size());
            tokenized->special.push_back(1);
            tokenized->sequence.push_back(-1);
            tokenized->typeIds.push_back(0);
            keyValid.push_back(0);
        }
    }
    if (request.tokenize.pair) snap->textPair = QString::fromStdString(*request.tokenize.pair);
    if (tokenized->truncated)
        snap->inputNote = QObject::tr("Truncated: the first %1 of %2 tokens, the model's positions%3.")
                              .arg(tokenized->ids.size() - std::size_t(request.padding)).arg(tokenized->untruncatedLength)
                              .arg(request.tokenize.pair ? QObject::tr(" (the longer text lost its last tokens first)") : QString());
    const attn::TokenizedText &tokens = *tokenized;
    const int L = int(tokens.ids.size());
    if (auto s = checkTokenLimit(L, kExploreMaxTokens, "Explore", "one head's weights, scores and masked cells"); !s)
        return fail(s);

    const attn::ModelConfig &config = model->model().config();
    const int layers = int(config.layers), heads = int(config.heads);
    const int focusLayer = std::clamp(request.focusLayer, 0, layers - 1);
    const int focusHead = std::clamp(request.focusHead, 0, heads - 1);
    const bool allHeads = L <= request.allHeadsUpTo;
    const std::size_t perHead = std::size_t(L) * std::size_t(L);

    attn::ForwardInput input = model->forwardInput(tokens);
    snap->tokenTypeIds = input.tokenTypeIds;
    if (request.padding > 0) input.attentionMask = keyValid;
    attn::ForwardOptions options;
    options.maskOverride = request.maskOverride;
    options.cancel = ctx.cancelFn();
    options.progress = [&ctx, loadShare](double f) { ctx.reportProgress(loadShare + (1.0 - loadShare) * f); };
    options.backend = request.backend;
    options.weightsMode = allHeads ? attn::WeightsRequest::Mode::All : attn::WeightsRequest::Mode::Heads;
    if (!allHeads) options.weightHeads = {attn::HeadRef{focusLayer, focusHead}};
    options.captureScores = !allHeads || perHead * std::size_t(layers * heads) <= kAllScoresBudget;
    auto forward = model->model().forward(input, options);
    if (!forward) return fail(forward.status());
    const attn::ForwardResult &out = *forward;

    snap->layers = layers;
    snap->heads = heads;
    snap->backend = attn::backendName(options.backend);
    snap->weights.resize(std::size_t(layers * heads));
    snap->scores.resize(std::size_t(layers * heads));
    for (const attn::CapturedHead &h : out.heads) {
        const std::size_t k = std::size_t(h.head.layer * heads + h.head.head);
        snap->weights[k] = h.weights;
        snap->scores[k] = h.scores;
    }
    if (!options.captureScores) {
        // The hover read-out needs the raw scores of the head on screen: one more pass for that head only.
        attn::ForwardOptions one = options;
        one.weightsMode = attn::WeightsRequest::Mode::Heads;
        one.weightHeads = {attn::HeadRef{focusLayer, focusHead}};
        one.captureScores = true;
        one.computeLogits = false;
        one.progress = {};
        auto again = model->model().forward(input, one);
        if (!again) return fail(again.status());
        if (!again->heads.empty()) snap->scores[std::size_t(focusLayer * heads + focusHead)] = again->heads.front().scores;
    }

    for (int i = 0; i < L; ++i) snap->tokens << tokenDisplayLabel(tokens.labels[std::size_t(i)]);
    snap->tokenIds = tokens.ids;
    snap->special = tokens.special;
    attn::MaskSpec structure = request.maskOverride ? *request.maskOverride
                                                    : (config.causal ? attn::MaskSpec::causalMask() : attn::MaskSpec::bidirectional());
    const auto maskedCells = [&](const attn::MaskSpec &spec) {
        std::vector<std::uint8_t> m(perHead, 0);
        for (int i = 0; i < L; ++i)
            for (int j = 0; j < L; ++j)
                if (!attn::structurallyAllowed(spec, i, j, L, L) || !keyValid[std::size_t(j)]) m[std::size_t(i) * L + j] = 1;
        return m;
    };
    snap->masked = maskedCells(structure);
    // Sliding-window layers run the model's mask with their window (attentionlayer.cpp); an override replaces
    // every layer's mask, as in the engine.
    bool windows = false;
    for (int l = 0; l < layers; ++l) {
        const int w = request.maskOverride ? 0 : int(attn::layerWindow(config, l));
        snap->layerWindow.push_back(w);
        windows = windows || w > 0;
    }
    if (request.padding > 0) structure.keyValid = keyValid;
    snap->maskDescription = QString::fromStdString(structure.describe());
    if (windows) {
        for (int l = 0; l < layers; ++l) {
            const int w = snap->layerWindow[std::size_t(l)];
            attn::MaskSpec layerSpec = structure;
            if (w > 0) layerSpec.window = w - 1;   // MaskSpec: keys at most `window` positions before the query
            snap->layerMasked.push_back(w > 0 ? maskedCells(layerSpec) : std::vector<std::uint8_t>());
            snap->layerMaskDescription << (w > 0 ? QObject::tr("%1 + sliding window W = %2 (%2 keys, the query included)")
                                                       .arg(snap->maskDescription).arg(w)
                                                 : snap->maskDescription);
        }
    } else {
        snap->layerWindow.clear();
    }
    if (config.kvHeads > 0 && config.kvHeads < config.heads)
        for (int h = 0; h < heads; ++h) snap->kvHeadOf.push_back(int(h / (config.heads / config.kvHeads)));

    readOutputs(*model, out, tokens, request.topK, &snap->outputs);
    if (attn::Status s = analyseSnapshot(*snap, ctx, request.flow); !s.isOk()) return fail(s);
    return std::shared_ptr<Snapshot>(snap);
}

namespace {

// The run document's form of a mask override: the structures `run --mask` can ask for.
std::optional<attn::MaskChoice> maskChoiceOf(const std::optional<attn::MaskSpec> &spec)
{
    attn::MaskChoice choice;
    if (!spec) return choice;
    if (spec->block > 0 || spec->hasCustom() || !spec->alibiSlopes.empty()) return std::nullopt;
    using K = attn::MaskChoice::Kind;
    choice.kind = spec->window >= 0 ? (spec->causal ? K::CausalWindow : K::Window) : (spec->causal ? K::Causal : K::Bidirectional);
    choice.window = spec->window;
    return choice;
}

} // namespace

attn::Result<std::string> runExportOf(const ModelSnapshot &snapshot, const ModelRequest &request)
{
    if (!snapshot.model) return attn::Status::invalid("this result has no model to export");
    const auto mask = maskChoiceOf(request.maskOverride);
    if (!mask) return attn::Status::invalid("the mask override has no form in the run document (run --mask)");
    attn::RunRequest run;
    run.text = snapshot.text.toStdString();
    if (!snapshot.textPair.isEmpty()) run.textPair = snapshot.textPair.toStdString();
    run.truncate = request.tokenize.truncate;
    run.mask = *mask;
    run.padding = request.padding;
    run.backend = request.backend;
    run.topK = request.topK;
    bool every = true;
    std::vector<attn::HeadRef> heads;
    for (int l = 0; l < snapshot.layers; ++l)
        for (int h = 0; h < snapshot.heads; ++h) {
            if (snapshot.hasWeights(l, h)) heads.push_back({l, h});
            else every = false;
        }
    if (!every) run.heads = heads;
    run.analyses = {true, !snapshot.rollout.empty(), !snapshot.flow.empty()};
    const attn::OpenedModel opened = attn::openedModelOf(*snapshot.model);
    auto data = attn::runModel(opened, run);
    if (!data) return data.status();
    return attn::runExportJson(opened, run, *data);
}

} // namespace attnui
