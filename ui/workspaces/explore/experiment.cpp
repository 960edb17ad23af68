// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/explore/experiment.h"

#include <QHash>
#include <QObject>
#include <QRegularExpression>

#include <cmath>
#include <limits>

namespace attnui {

namespace {

constexpr int kMaxTokens = 8192;

std::uint64_t fnv1a(const QByteArray &bytes)
{
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ull;
    }
    return h;
}

std::uint64_t splitMix(std::uint64_t &state)
{
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double unitUniform(std::uint64_t &state)   // (0, 1): never 0, so the logarithm below is finite
{
    return (double(splitMix(state) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

} // namespace

QString maskKindName(MaskKind kind)
{
    switch (kind) {
    case MaskKind::Bidirectional: return QStringLiteral("bidirectional");
    case MaskKind::Causal: return QStringLiteral("causal");
    case MaskKind::SlidingWindow: return QStringLiteral("sliding window");
    }
    return {};
}

const std::vector<std::uint8_t> &ExploreSnapshot::maskedOf(int layer) const
{
    if (layer >= 0 && layer < int(layerMasked.size()) && !layerMasked[std::size_t(layer)].empty())
        return layerMasked[std::size_t(layer)];
    return masked;
}

QString ExploreSnapshot::maskDescriptionOf(int layer) const
{
    return layer >= 0 && layer < layerMaskDescription.size() ? layerMaskDescription[layer] : maskDescription;
}

bool ExploreSnapshot::hasWeights(int layer, int head) const
{
    const int idx = layer * heads + head;
    return layer >= 0 && layer < layers && head >= 0 && head < heads && idx < int(weights.size()) &&
           !weights[std::size_t(idx)].empty();
}

attn::Status analyseSnapshot(ExploreSnapshot &s, const JobContext &ctx, bool flow)
{
    const int n = s.length();
    const std::size_t count = std::size_t(s.layers) * std::size_t(s.heads);
    s.stats.assign(count, attn::HeadStatistics{});
    bool all = n > 0;
    for (std::size_t k = 0; k < count; ++k) {
        if (k >= s.weights.size() || s.weights[k].empty()) {
            const double nan = std::numeric_limits<double>::quiet_NaN();
            s.stats[k] = {nan, nan, nan, nan, nan, nan, nan};
            all = false;
            continue;
        }
        s.stats[k] = attn::headStatistics(s.weights[k].data(), s.tokenIds);
    }
    if (!all) {
        s.aggregationNote = QObject::tr("Rollout and flow need every head; this input is long, so only the heads "
                                        "on screen were computed.");
        return attn::Status::ok();
    }
    s.layerMeans.resize(std::size_t(s.layers));
    for (int l = 0; l < s.layers; ++l) {
        std::vector<const float *> heads;
        for (int h = 0; h < s.heads; ++h) heads.push_back(s.weightsOf(l, h).data());
        s.layerMeans[std::size_t(l)] = attn::meanOverHeads(heads, n);
    }
    auto rollout = attn::attentionRollout(s.layerMeans, n);
    if (!rollout) return rollout.status();
    s.rollout = std::move(rollout).value();
    if (n > attn::kMaxFlowTokens) {
        s.aggregationNote = QObject::tr("Attention flow solves one max-flow per token pair, so it is computed "
                                        "for up to %1 tokens; this input has %2.").arg(attn::kMaxFlowTokens).arg(n);
        return attn::Status::ok();
    }
    if (!flow) {
        s.flowDeferred = true;
        s.aggregationNote = QObject::tr("Attention flow is computed when this tab is shown.");
        return attn::Status::ok();
    }
    auto f = attn::attentionFlow(s.layerMeans, n, true, ctx.cancelFn());
    if (!f) return f.status();
    s.flow = std::move(f).value();
    return attn::Status::ok();
}

QStringList tokenizeWords(const QString &text)
{
    static const QRegularExpression space(QStringLiteral("\\s+"));
    return text.split(space, Qt::SkipEmptyParts);
}

std::vector<float> wordEmbedding(const QString &word, int dModel)
{
    // Box–Muller from a SplitMix64 stream seeded by the word's hash: identical on every platform.
    std::uint64_t state = fnv1a(word.toCaseFolded().toUtf8());
    std::vector<float> e(std::size_t(std::max(dModel, 0)));
    for (std::size_t i = 0; i < e.size(); i += 2) {
        const double r = std::sqrt(-2.0 * std::log(unitUniform(state)));
        const double t = 2.0 * M_PI * unitUniform(state);
        e[i] = float(r * std::cos(t));
        if (i + 1 < e.size()) e[i + 1] = float(r * std::sin(t));
    }
    return e;
}

attn::MaskSpec maskFor(const ExperimentRequest &request)
{
    switch (request.mask) {
    case MaskKind::Bidirectional: return attn::MaskSpec::bidirectional();
    case MaskKind::Causal: return attn::MaskSpec::causalMask();
    case MaskKind::SlidingWindow: return attn::MaskSpec::slidingWindow(request.window);
    }
    return {};
}

attn::Result<std::shared_ptr<Snapshot>> runExperiment(const ExperimentRequest &request, const JobContext &ctx)
{
    const QStringList tokens = tokenizeWords(request.text);
    const int L = int(tokens.size());
    if (L == 0) return attn::Status::invalid("the text is empty: type a few words to see their attention");
    if (L > kMaxTokens)
        return attn::Status::invalid("the text has " + std::to_string(L) + " words; the raw experiment takes at most " +
                                     std::to_string(kMaxTokens));
    if (request.heads < 1) return attn::Status::invalid("heads is " + std::to_string(request.heads) + "; use at least 1");
    if (request.dModel < 1 || request.dModel % request.heads != 0)
        return attn::Status::invalid("d_model " + std::to_string(request.dModel) + " is not a positive multiple of " +
                                     std::to_string(request.heads) + " heads");
    if (request.mask == MaskKind::SlidingWindow && request.window < 0)
        return attn::Status::invalid("the sliding window is " + std::to_string(request.window) + "; use 0 or more");
    const int H = request.heads, D = request.dModel, dHead = D / H;

    std::vector<float> x(std::size_t(L) * std::size_t(D));
    for (int i = 0; i < L; ++i) {
        const std::vector<float> e = wordEmbedding(tokens[i], D);
        std::copy(e.begin(), e.end(), x.begin() + std::ptrdiff_t(i) * D);
    }
    const attn::MhaWeights w = attn::MhaWeights::random(D, H, dHead, request.seed);
    const attn::MaskSpec mask = maskFor(request);

    attn::MhaOptions options;
    options.positional = request.positional;
    options.attention.backend = request.backend;
    options.attention.cancel = ctx.cancelFn();
    options.attention.progress = ctx.progressFn();
    const bool allHeads = L <= request.allHeadsUpTo;
    const int focus = std::clamp(request.focusHead, 0, H - 1);
    options.attention.weights =
        allHeads ? attn::WeightsRequest::all() : attn::WeightsRequest::only({attn::HeadIndex{0, focus}});

    auto result = attn::multiHeadAttention(x.data(), 1, L, w, mask, options);
    if (!result) return result.status();
    const attn::MhaOutput &out = *result;

    auto snap = std::make_shared<ExploreSnapshot>();
    snap->request = request;
    snap->tokens = tokens;
    snap->heads = H;
    snap->source = QObject::tr("random attention layer");
    snap->text = request.text;
    snap->special.assign(std::size_t(L), 0);
    // Equal words get equal ids, so the duplicate and induction scores see repeats as a tokenizer would.
    QHash<QString, std::int64_t> ids;
    for (const QString &t : tokens) snap->tokenIds.push_back(ids.insert(t.toCaseFolded(), ids.size()).value());
    snap->backend = attn::backendName(out.attention.backend);
    snap->weights.resize(std::size_t(H));
    snap->scores.resize(std::size_t(H));
    attn::MaskSpec scoreMask = mask;
    if (request.positional == attn::PositionalEncoding::ALiBi) scoreMask.alibiSlopes = attn::alibiSlopes(H);
    snap->maskDescription = QString::fromStdString(scoreMask.describe());

    snap->masked.resize(std::size_t(L) * std::size_t(L));
    for (int i = 0; i < L; ++i)
        for (int j = 0; j < L; ++j)
            snap->masked[std::size_t(i) * L + j] = attn::structurallyAllowed(mask, i, j, L, L) ? 0 : 1;

    // The scores the softmax saw, from the Q and K the engine used (after RoPE), for the hover read-out.
    const float scale = 1.0f / std::sqrt(float(dHead));
    const attn::TensorView q = out.q.view(), k = out.k.view();
    for (const attn::HeadWeights &hw : out.attention.weights) {
        if (ctx.isCancelled()) return attn::Status::cancelled();
        const int h = int(hw.index.head);
        std::vector<float> s(std::size_t(L) * std::size_t(L));
        for (int i = 0; i < L; ++i) {
            const float *qi = q.row(0, h, i);
            for (int j = 0; j < L; ++j) {
                const float *kj = k.row(0, h, j);
                float dot = 0.0f;
                for (int c = 0; c < dHead; ++c) dot += qi[c] * kj[c];
                s[std::size_t(i) * L + j] = scale * dot + attn::maskBias(scoreMask, 0, h, i, j, L, L);
            }
        }
        snap->scores[std::size_t(h)] = std::move(s);
        snap->weights[std::size_t(h)] = hw.P;
    }
    if (attn::Status s = analyseSnapshot(*snap, ctx, request.flow); !s.isOk()) return s;
    return std::shared_ptr<Snapshot>(std::move(snap));
}

} // namespace attnui
