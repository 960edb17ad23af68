// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/pipeline/pipelinestages.h"
#include "kit/tokenlimits.h"

#include "workspaces/explore/modelrun.h"

#include <attnscope/export.h>

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace attnui {

namespace {

QString tr(const char *s) { return QCoreApplication::translate("attnui::PipelineStages", s); }

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

const char *const kStageNames[kPipelineStageCount] = {"input", "qkv", "dot", "scale", "mask", "softmax", "output", "tiled", "heads"};
const char *const kMaskNames[] = {"model", "bidirectional", "causal", "window"};

QString positionalLabel(attn::PositionKind p)
{
    switch (p) {
    case attn::PositionKind::None: return tr("none");
    case attn::PositionKind::Learned: return tr("learned");
    case attn::PositionKind::Sinusoidal: return tr("sinusoidal");
    case attn::PositionKind::RoPE: return tr("RoPE");
    case attn::PositionKind::ALiBi: return tr("ALiBi");
    }
    return {};
}

} // namespace

QString maskName(PipelineSettings::Mask mask) { return QString::fromLatin1(kMaskNames[int(mask)]); }

bool maskFromName(const QString &name, PipelineSettings::Mask *mask)
{
    for (int i = 0; i < 4; ++i)
        if (name == QLatin1String(kMaskNames[i])) { *mask = PipelineSettings::Mask(i); return true; }
    return false;
}

QString scoreLabel(attn::ScoreFunction f)
{
    switch (f) {
    case attn::ScoreFunction::ScaledDot: return tr("scaled dot (Transformer)");
    case attn::ScoreFunction::Dot: return tr("dot (Luong)");
    case attn::ScoreFunction::General: return tr("general q·W·k (Luong)");
    case attn::ScoreFunction::Additive: return tr("additive (Bahdanau)");
    }
    return {};
}

QString stageName(PipelineStage s) { return QString::fromLatin1(kStageNames[int(s)]); }

bool stageFromName(const QString &name, PipelineStage *stage)
{
    for (int i = 0; i < kPipelineStageCount; ++i)
        if (name == QLatin1String(kStageNames[i])) { *stage = PipelineStage(i); return true; }
    return false;
}

QString stageTitle(PipelineStage s)
{
    switch (s) {
    case PipelineStage::Input: return QStringLiteral("X");
    case PipelineStage::Projections: return QStringLiteral("Q, K, V");
    case PipelineStage::Dot: return QStringLiteral("QKᵀ");
    case PipelineStage::Scale: return QStringLiteral("÷√d_k");
    case PipelineStage::Mask: return QStringLiteral("+ M");
    case PipelineStage::Softmax: return QStringLiteral("softmax");
    case PipelineStage::Output: return QStringLiteral("·V");
    case PipelineStage::Tiled: return QStringLiteral("tiled");
    case PipelineStage::Heads: return QStringLiteral("⊕ · W_O");
    }
    return {};
}

QString stageFormula(PipelineStage s)
{
    switch (s) {
    case PipelineStage::Input: return QStringLiteral("X ∈ ℝ^(n × d_model): one row per token");
    case PipelineStage::Projections: return QStringLiteral("Q = X W_Q,   K = X W_K,   V = X W_V   (this head's d_k columns)");
    case PipelineStage::Dot: return QStringLiteral("S_ij = q_i · k_j = Σ_c Q_ic K_jc");
    case PipelineStage::Scale: return QStringLiteral("S′ = S / √d_k   (÷ T for temperature T)");
    case PipelineStage::Mask: return QStringLiteral("S″ = S′ + M,   M_ij = 0 (allowed) or −∞ (masked)");
    case PipelineStage::Softmax: return QStringLiteral("P_ij = exp(S″_ij) / Σ_j′ exp(S″_ij′)");
    case PipelineStage::Output: return QStringLiteral("Y = P V:   y_i = Σ_j P_ij v_j");
    case PipelineStage::Tiled:
        return QStringLiteral("block b:  m ← max(m, max_b S″),  l ← α l + Σ_b e^(S″−m),  Õ ← α Õ + e^(S″_b−m) V_b\n"
                              "α = e^(m′−m) (m′: m before the block);   after the last block  O = Õ / l");
    case PipelineStage::Heads: return QStringLiteral("MultiHead(X) = [Y_0 | Y_1 | … | Y_(H−1)] W_O + b_O");
    }
    return {};
}

QString stageExplanation(PipelineStage s)
{
    switch (s) {
    case PipelineStage::Input:
        return tr("The vectors that enter this layer, one row per token (the residual stream; pre-LN models normalise "
                  "it before the projections). Only the first columns are written out.");
    case PipelineStage::Projections:
        return tr("Three learned linear maps give each token a query (what it looks for), a key (what it offers) and a "
                  "value (what it passes on). These are the engine's own Q, K, V for this head, after RoPE if any.");
    case PipelineStage::Dot:
        return tr("Every query is compared with every key by a dot product: a large value means \"this key matches "
                  "what this query looks for\". Rows are queries, columns are keys.");
    case PipelineStage::Scale:
        return tr("Dot products of d_k-dimensional vectors grow like √d_k; dividing keeps the scores near unit size "
                  "so softmax does not saturate. Turn scaling off on the right to see what happens.");
    case PipelineStage::Mask:
        return tr("The mask adds −∞ where a query may not look (future tokens for a causal model, padding, outside a "
                  "window) and 0 elsewhere; ALiBi adds a distance penalty here too.");
    case PipelineStage::Softmax:
        return tr("Each row is exponentiated and normalised: the weights are positive and sum to 1 over the allowed "
                  "keys; −∞ becomes exactly 0. This is the attention pattern other views show.");
    case PipelineStage::Output:
        return tr("Each token's output is the weighted average of the value vectors, using its row of weights. The "
                  "heads' outputs are concatenated and projected by W_O back into the residual stream.");
    case PipelineStage::Tiled:
        return tr("How a fast kernel (FlashAttention) gets the same Y without ever holding the n × n weights: it reads "
                  "the keys a block at a time and keeps, per query row, only the largest score so far (m), the sum of "
                  "e^(score − m) so far (l) and an unnormalised output Õ. When a block raises m, l and Õ are rescaled "
                  "by e^(m′ − m). After the last block O = Õ / l is exactly P V: memory O(n), work still O(n²).");
    case PipelineStage::Heads:
        return tr("Every head of the layer does the same with its own Q, K and V. Their outputs, n × d_k each, are put "
                  "side by side (head 0 in the first d_k columns, then head 1, …) and one learned matrix W_O maps the "
                  "n × H·d_k result back to d_model: the layer's attention output, added to the residual stream.");
    }
    return {};
}

QString scoreFormula(attn::ScoreFunction f)
{
    switch (f) {
    case attn::ScoreFunction::ScaledDot: return stageFormula(PipelineStage::Dot);
    case attn::ScoreFunction::Dot: return QStringLiteral("S_ij = q_i · k_j   (then no ÷√d_k)");
    case attn::ScoreFunction::General: return QStringLiteral("S_ij = q_iᵀ W k_j = (Q W Kᵀ)_ij,   W ∈ ℝ^(d_k × d_k)");
    case attn::ScoreFunction::Additive:
        return QStringLiteral("S_ij = v_aᵀ tanh(W_a [q_i; k_j]) = v_aᵀ tanh(W_q q_i + W_k k_j),   W_q, W_k ∈ ℝ^(d_attn × d_k)");
    }
    return {};
}

QString scoreExplanation(attn::ScoreFunction f)
{
    switch (f) {
    case attn::ScoreFunction::ScaledDot: return stageExplanation(PipelineStage::Dot);
    case attn::ScoreFunction::Dot:
        return tr("Luong's \"dot\" score: the plain dot product, not divided by √d_k, so the scores of large heads "
                  "are large and softmax saturates (the saturation box on the right shows how much).");
    case attn::ScoreFunction::General:
        return tr("Luong's \"general\" score puts a learned matrix W between query and key: each query is first mapped "
                  "into the key space (Q W, left), then compared by a dot product. This model never learned a W: it is "
                  "drawn from the seed, so the pattern shows what the form does to these real q and k.");
    case attn::ScoreFunction::Additive:
        return tr("Bahdanau's additive score, the first attention (2015): query and key are projected into a hidden "
                  "layer (W_q q_i, W_k k_j, left), added, squashed by tanh and read out by a vector v_a — a small "
                  "network per pair, where the Transformer uses one dot product. W_a = [W_q | W_k] and v_a are seeded, "
                  "not learned by this model.");
    }
    return {};
}

QString rnnAttentionExplanation()
{
    return tr("<p><b>Before the Transformer</b> (Bahdanau 2015, Luong 2015): an RNN decoder's state s<sub>t</sub> "
              "scores every encoder state h<sub>j</sub>, e<sub>tj</sub> = score(s<sub>t</sub>, h<sub>j</sub>); "
              "α<sub>t</sub> = softmax(e<sub>t</sub>); the context c<sub>t</sub> = Σ<sub>j</sub> α<sub>tj</sub> "
              "h<sub>j</sub> feeds the next word — one target step at a time, the encoder states serving as both keys "
              "and values.</p><p><b>The Transformer</b> runs that step for every position at once, with "
              "q<sub>i</sub> = x<sub>i</sub>W<sub>Q</sub>, k<sub>j</sub> = x<sub>j</sub>W<sub>K</sub>, "
              "v<sub>j</sub> = x<sub>j</sub>W<sub>V</sub> and the scaled dot product as the score (cross-attention: "
              "queries from the decoder, keys and values from the encoder).</p>");
}

Saturation saturation(const std::vector<double> &weights, int n)
{
    Saturation s;
    int rows = 0;
    for (int i = 0; i < n; ++i) {
        double maxW = 0.0, h = 0.0;
        int allowed = 0;
        for (int j = 0; j < n; ++j) {
            const double p = weights[std::size_t(i) * std::size_t(n) + std::size_t(j)];
            maxW = std::max(maxW, p);
            if (p > 0.0) { h -= p * std::log2(p); ++allowed; }
        }
        if (allowed == 0) continue;
        s.meanMaxWeight += maxW;
        s.meanEntropyBits += h;
        s.meanUniformBits += std::log2(double(allowed));
        ++rows;
    }
    if (rows > 0) {
        s.meanMaxWeight /= rows;
        s.meanEntropyBits /= rows;
        s.meanUniformBits /= rows;
    }
    return s;
}

namespace {

// S = Q Kᵀ [n, n] for q, k [n, d_k].
std::vector<double> dotProducts(const std::vector<double> &q, const std::vector<double> &k, int n, int dHead)
{
    const std::size_t N = std::size_t(n), D = std::size_t(dHead);
    std::vector<double> dot(N * N, 0.0);
    for (std::size_t i = 0; i < N; ++i)
        for (std::size_t j = 0; j < N; ++j) {
            double s = 0.0;
            for (std::size_t c = 0; c < D; ++c) s += q[i * D + c] * k[j * D + c];
            dot[i * N + j] = s;
        }
    return dot;
}

} // namespace

HeadStages computeHeadStages(const std::vector<double> &q, const std::vector<double> &k, const std::vector<double> &v,
                             const std::vector<double> &bias, int n, int dHead, double factor, double temperature)
{
    return computeHeadStagesFromScores(dotProducts(q, k, n, dHead), v, bias, n, dHead, factor, temperature);
}

HeadStages computeHeadStagesFromScores(std::vector<double> raw, const std::vector<double> &v,
                                       const std::vector<double> &bias, int n, int dHead, double factor,
                                       double temperature)
{
    const std::size_t N = std::size_t(n), D = std::size_t(dHead);
    HeadStages h;
    h.dot = std::move(raw);
    h.scaled.assign(N * N, 0.0);
    h.masked.assign(N * N, 0.0);
    h.weights.assign(N * N, 0.0);
    h.output.assign(N * D, 0.0);
    for (std::size_t i = 0; i < N; ++i) {
        for (std::size_t j = 0; j < N; ++j) {
            h.scaled[i * N + j] = h.dot[i * N + j] * factor / temperature;
            h.masked[i * N + j] = h.scaled[i * N + j] + bias[i * N + j];   // −inf stays −inf
        }
        // Softmax with the row maximum subtracted; a row with no allowed key stays 0 (as the engine does).
        double m = kNegInf;
        for (std::size_t j = 0; j < N; ++j) m = std::max(m, h.masked[i * N + j]);
        if (m == kNegInf) continue;
        double sum = 0.0;
        for (std::size_t j = 0; j < N; ++j) {
            const double e = h.masked[i * N + j] == kNegInf ? 0.0 : std::exp(h.masked[i * N + j] - m);
            h.weights[i * N + j] = e;
            sum += e;
        }
        for (std::size_t j = 0; j < N; ++j) h.weights[i * N + j] /= sum;
        for (std::size_t j = 0; j < N; ++j)
            for (std::size_t c = 0; c < D; ++c) h.output[i * D + c] += h.weights[i * N + j] * v[j * D + c];
    }
    return h;
}

attn::Result<ScoreStage> scoreStage(const std::vector<double> &q, const std::vector<double> &k, int n, int dHead,
                                    const PipelineSettings &st)
{
    ScoreStage out;
    if (st.score == attn::ScoreFunction::Dot || st.score == attn::ScoreFunction::ScaledDot) {
        // The dot products here: scoreAttention's teaching limit (2^22 scores) is below the Pipeline's 4096 tokens.
        out.raw = dotProducts(q, k, n, dHead);
        return out;
    }
    const auto matrix = [&](const std::vector<double> &values) {
        attn::MatrixD m(n, dHead);
        m.values = values;
        return m;
    };
    const attn::MatrixD Q = matrix(q), K = matrix(k);
    out.dAttn = st.score == attn::ScoreFunction::Additive ? dHead : 0;
    out.params = attn::ScoreParams::random(st.score, dHead, dHead, out.dAttn, st.scoreSeed);
    attn::ScoringOptions options;
    options.keepHidden = false;
    // V only sizes the trace's output, which is not used: Y is P V of the stages, after temperature and M.
    auto trace = attn::scoreAttention(Q, K, attn::MatrixD(n, 1), st.score, out.params, options);
    if (!trace) return attn::Status::invalid("score: " + trace.status().message());
    out.raw = std::move(trace->raw.values);
    out.qW = std::move(trace->qW.values);
    out.projQ = std::move(trace->projQ.values);
    out.projK = std::move(trace->projK.values);
    return out;
}

attn::Result<DropoutStage> dropoutStage(const std::vector<double> &weights, const std::vector<double> &v, int n,
                                        int dHead, double p, std::uint64_t seed)
{
    if (!(p >= 0.0 && p <= kMaxDropout))
        return attn::Status::invalid("dropout: p must be in [0, " + std::to_string(kMaxDropout).substr(0, 3) + "]");
    attn::MatrixD P(n, n), V(n, dHead);
    P.values = weights;
    V.values = v;
    auto view = attn::attentionDropout(P, p, seed, &V);
    if (!view) return attn::Status::invalid("dropout: " + view.status().message());
    const std::size_t N = std::size_t(n), W = N + 1;
    DropoutStage d;
    d.p = p;
    d.seed = seed;
    d.dropped.assign(N * W, 0.0);
    d.rescaled.assign(N * W, 0.0);
    d.keepBias.assign(N * W, 0.0);
    d.output = std::move(view->output.values);
    d.minRowSum = std::numeric_limits<double>::infinity();
    d.maxRowSum = -std::numeric_limits<double>::infinity();
    int rows = 0;
    for (std::size_t i = 0; i < N; ++i) {
        bool anyAllowed = false;
        for (std::size_t j = 0; j < N; ++j) {
            d.dropped[i * W + j] = view->dropped.at(std::int64_t(i), std::int64_t(j));
            d.rescaled[i * W + j] = view->rescaled.at(std::int64_t(i), std::int64_t(j));
            const bool kept = view->keep[i * N + j] != 0;
            if (!kept) d.keepBias[i * W + j] = kNegInf;
            if (weights[i * N + j] > 0.0) {
                anyAllowed = true;
                ++d.allowed;
                d.kept += kept;
            }
        }
        d.dropped[i * W + N] = view->droppedRowSums[i];
        d.rescaled[i * W + N] = view->rescaledRowSums[i];
        if (!anyAllowed) continue;
        d.minRowSum = std::min(d.minRowSum, view->droppedRowSums[i]);
        d.maxRowSum = std::max(d.maxRowSum, view->droppedRowSums[i]);
        d.meanRescaledRowSum += view->rescaledRowSums[i];
        ++rows;
    }
    if (rows > 0) d.meanRescaledRowSum /= rows;
    else d.minRowSum = d.maxRowSum = 0.0;
    return d;
}

TiledStep tiledStep(const std::vector<double> &masked, const std::vector<double> &v, int n, int dHead, int blockKeys,
                    int block)
{
    TiledStep t;
    const std::size_t N = std::size_t(std::max(n, 0)), D = std::size_t(std::max(dHead, 0));
    if (N == 0) return t;
    blockKeys = std::clamp(blockKeys, 1, n);
    t.blocks = (n + blockKeys - 1) / blockKeys;
    t.block = std::clamp(block, 0, t.blocks - 1);
    t.keyBegin = t.block * blockKeys;
    t.keyEnd = std::min(n, t.keyBegin + blockKeys);
    const std::size_t width = std::size_t(t.keyEnd - t.keyBegin);
    t.tile.assign(N * width, 0.0);
    t.rescale.assign(N, 1.0);
    t.m.assign(N, kNegInf);
    t.l.assign(N, 0.0);
    t.acc.assign(N * D, 0.0);
    t.out.assign(N * D, 0.0);
    t.lse.assign(N, kNegInf);
    for (std::size_t i = 0; i < N; ++i) {
        double m = kNegInf, l = 0.0;
        double *acc = t.acc.data() + i * D;
        // The blocks in order, as the kernel sweeps them; the last one is the step shown.
        for (int b = 0; b <= t.block; ++b) {
            const std::size_t j0 = std::size_t(b * blockKeys), j1 = std::min(N, j0 + std::size_t(blockKeys));
            double blockMax = kNegInf;
            for (std::size_t j = j0; j < j1; ++j) blockMax = std::max(blockMax, masked[i * N + j]);
            const double mNew = std::max(m, blockMax);
            // e^(m − mNew): 1 when the maximum did not grow; 0 when nothing was seen before (l and Õ are 0 anyway).
            const double alpha = mNew == kNegInf ? 1.0 : (m == kNegInf ? 0.0 : std::exp(m - mNew));
            l *= alpha;
            for (std::size_t c = 0; c < D; ++c) acc[c] *= alpha;
            for (std::size_t j = j0; j < j1; ++j) {
                const double s = masked[i * N + j];
                if (s == kNegInf) continue;
                const double e = std::exp(s - mNew);
                l += e;
                for (std::size_t c = 0; c < D; ++c) acc[c] += e * v[j * D + c];
            }
            m = mNew;
            if (b == t.block) t.rescale[i] = alpha;
        }
        for (std::size_t j = 0; j < width; ++j) t.tile[i * width + j] = masked[i * N + std::size_t(t.keyBegin) + j];
        t.m[i] = m;
        t.l[i] = l;
        if (l > 0.0) {
            for (std::size_t c = 0; c < D; ++c) t.out[i * D + c] = acc[c] / l;
            t.lse[i] = m + std::log(l);
        }
    }
    return t;
}

namespace {

// The stages of one head under the settings' score function, factor and temperature.
attn::Result<HeadStages> stagesFor(const std::vector<double> &q, const std::vector<double> &k, const std::vector<double> &v,
                                   const std::vector<double> &bias, int n, int dHead, double factor,
                                   const PipelineSettings &st, ScoreStage *keep = nullptr)
{
    auto score = scoreStage(q, k, n, dHead, st);
    if (!score) return score.status();
    HeadStages h = computeHeadStagesFromScores(score->raw, v, bias, n, dHead, factor, st.temperature);
    if (keep) *keep = std::move(*score);
    return h;
}

// Validates the teaching fields and fills the snapshot's score, stages and dropout view for its own head.
attn::Status fillTeachingStages(PipelineSnapshot &snap, const PipelineSettings &st)
{
    auto stages = stagesFor(snap.q, snap.k, snap.v, snap.bias, snap.n, snap.dHead, snap.factor, st, &snap.score);
    if (!stages) return stages.status();
    snap.stages = std::move(*stages);
    if (st.dropout > 0.0) {
        auto d = dropoutStage(snap.stages.weights, snap.v, snap.n, snap.dHead, st.dropout, st.dropoutSeed);
        if (!d) return d.status();
        // Cells M masks are drawn masked too (their weight is 0 whether kept or not).
        const std::size_t N = std::size_t(snap.n), W = N + 1;
        for (std::size_t i = 0; i < N; ++i)
            for (std::size_t j = 0; j < N; ++j)
                if (snap.bias[i * N + j] == kNegInf) d->keepBias[i * W + j] = kNegInf;
        snap.dropout = std::move(*d);
    }
    return attn::Status::ok();
}

attn::Status checkTeachingSettings(const PipelineSettings &st)
{
    if (!(st.dropout >= 0.0 && st.dropout <= kMaxDropout))
        return attn::Status::invalid("dropout: p must be in [0, 0.9]");
    if (st.scoreSeed > kMaxSeed || st.dropoutSeed > kMaxSeed)
        return attn::Status::invalid("seed: must be 0 … " + std::to_string(kMaxSeed));
    return attn::Status::ok();
}

// The factor the stages use: the model's own scale for the scaled dot product with scaling on, else 1.
double stageFactor(const PipelineSettings &st, double modelFactor)
{
    return st.score == attn::ScoreFunction::ScaledDot && st.scale ? modelFactor : 1.0;
}

} // namespace

attn::Result<std::shared_ptr<Snapshot>> runPipeline(const TextModelPtr &model, const QString &text,
                                                    const attn::TokenizeOptions &tokenize,
                                                    const PipelineSettings &st, const JobContext &ctx)
{
    using attn::Status;
    if (!model) return Status::invalid("pipeline: no model is open");
    const attn::ModelConfig &cfg = model->model().config();
    if (st.layer < 0 || st.layer >= cfg.layers)
        return Status::invalid("layer: " + std::to_string(st.layer) + " is outside [0, " +
                                       std::to_string(cfg.layers) + ")");
    if (st.head < 0 || st.head >= cfg.heads)
        return Status::invalid("head: " + std::to_string(st.head) + " is outside [0, " +
                                       std::to_string(cfg.heads) + ")");
    if (!(st.temperature > 0.0) || !std::isfinite(st.temperature))
        return Status::invalid("temperature: must be a positive number");
    if (st.mask == PipelineSettings::Mask::Window && st.window < 0)
        return Status::invalid("window: must be 0 or more");
    if (Status s = checkTeachingSettings(st); !s) return s;

    auto tokens = model->tokenize(text.toStdString(), tokenize);
    if (!tokens) return tokens.status();
    const int n = int(tokens->ids.size());
    if (n == 0) return Status::invalid("text: there are no tokens to show");
    if (auto s = checkTokenLimit(n, kPipelineMaxTokens, "Pipeline", "every stage of the head as an n × n matrix"); !s) return s;

    const bool drop = st.positional == PipelineSettings::Positional::None;
    attn::MaskSpec structure;
    switch (st.mask) {
    case PipelineSettings::Mask::Model:
        // The model's own mask of this layer: a sliding-window layer's window too (Hugging Face's W keys).
        structure.causal = cfg.causal;
        if (const std::int64_t w = attn::layerWindow(cfg, st.layer); w > 0) structure.window = w - 1;
        break;
    case PipelineSettings::Mask::Bidirectional: break;
    case PipelineSettings::Mask::Causal: structure.causal = true; break;
    case PipelineSettings::Mask::Window: structure = attn::MaskSpec::slidingWindow(st.window, cfg.causal); break;
    }

    attn::ForwardInput in;
    in.tokenIds = tokens->ids;
    attn::ForwardOptions opt;
    opt.weightsMode = attn::WeightsRequest::Mode::Heads;
    opt.weightHeads = {attn::HeadRef{st.layer, st.head}};
    opt.captureScores = true;
    opt.captureQKV = true;
    opt.captureHiddenStates = true;
    opt.computeLogits = false;
    opt.dropPositions = drop;
    if (st.mask != PipelineSettings::Mask::Model) opt.maskOverride = structure;
    opt.cancel = ctx.cancelFn();
    auto fwd = model->model().forward(in, opt);
    if (!fwd) return fwd.status();

    auto snap = std::make_shared<PipelineSnapshot>();
    snap->settings = st;
    snap->modelName = QString::fromStdString(model->displayName());
    snap->text = text;
    for (const std::string &label : tokens->labels) snap->tokens << tokenDisplayLabel(label);
    snap->n = n;
    snap->dModel = int(cfg.dModel);
    snap->dHead = int(cfg.dHead);
    snap->layers = int(cfg.layers);
    snap->heads = int(cfg.heads);
    snap->modelCausal = cfg.causal;
    snap->canDropPositions = cfg.positions != attn::PositionKind::None;
    snap->positionalName = drop ? tr("none (dropped)") : positionalLabel(cfg.positions);
    snap->backend = attn::backendName(fwd->backend);

    // The model's score scale (attn::attentionScale, in double): 1/√d_k, GPT-2's variants, Gemma's
    // query_pre_attn_scalar^-½.
    double modelFactor = cfg.scaleAttnWeights ? 1.0 / std::sqrt(double(cfg.dHead)) : 1.0;
    if (cfg.scaleAttnByInverseLayerIdx) modelFactor /= double(st.layer + 1);
    if (cfg.queryPreAttnScalar) modelFactor = std::pow(*cfg.queryPreAttnScalar, -0.5);
    snap->modelFactor = modelFactor;
    snap->factor = stageFactor(st, modelFactor);

    const std::size_t N = std::size_t(n), D = std::size_t(cfg.dHead), DM = std::size_t(cfg.dModel);
    const std::vector<float> &hidden = fwd->hiddenStates.at(std::size_t(st.layer));
    snap->x.assign(hidden.begin(), hidden.begin() + std::ptrdiff_t(N * DM));
    // Q/K/V are [1, H, L, dHead] contiguous: this head's block.
    const attn::LayerQKV &lq = fwd->qkv.at(std::size_t(st.layer));
    const std::size_t off = std::size_t(st.head) * N * D;
    snap->q.assign(lq.q.values.data() + off, lq.q.values.data() + off + N * D);
    snap->k.assign(lq.k.values.data() + off, lq.k.values.data() + off + N * D);
    snap->v.assign(lq.v.values.data() + off, lq.v.values.data() + off + N * D);

    // M: the mask the forward pass used for this layer (the model's own or the override; ALiBi's slopes unless
    // positions were dropped), through the engine's single definition maskBias().
    attn::MaskSpec used = structure;
    if (cfg.positions == attn::PositionKind::ALiBi && !drop) used.alibiSlopes = attn::alibiSlopes(cfg.heads);
    snap->bias.assign(N * N, 0.0);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            snap->bias[std::size_t(i) * N + std::size_t(j)] = double(attn::maskBias(used, 0, st.head, i, j, n, n));

    if (Status s = fillTeachingStages(*snap, st); !s) return s;
    const HeadStages scaled = computeHeadStages(snap->q, snap->k, snap->v, snap->bias, n, int(D), modelFactor,
                                                st.temperature);
    const HeadStages unscaled = computeHeadStages(snap->q, snap->k, snap->v, snap->bias, n, int(D), 1.0,
                                                  st.temperature);
    snap->withScale = saturation(scaled.weights, n);
    snap->withoutScale = saturation(unscaled.weights, n);
    {
        double sum = 0.0, sum2 = 0.0;
        std::size_t count = 0;
        for (std::size_t c = 0; c < N * N; ++c) {
            if (std::isinf(snap->bias[c])) continue;
            sum += scaled.dot[c];   // the dot products, whatever the score function on screen
            sum2 += scaled.dot[c] * scaled.dot[c];
            ++count;
        }
        if (count > 1) {
            const double mean = sum / double(count);
            snap->dotStd = std::sqrt(std::max(0.0, sum2 / double(count) - mean * mean));
        }
    }

    // The multi-head step: every head of the layer with the same settings (its own ALiBi slope), side by side.
    const std::size_t H = std::size_t(cfg.heads), HK = std::size_t(lq.k.shape[1]);
    const std::size_t groups = HK > 0 && H % HK == 0 ? H / HK : 1;
    snap->concat.assign(N * H * D, 0.0);
    std::vector<double> ownOutputs(H * N * D);   // at the model's own settings, for the check
    const auto headBlock = [&](const attn::Tensor &t, std::size_t h) {
        const std::size_t o = h * N * D;
        return std::vector<double>(t.values.data() + o, t.values.data() + o + N * D);
    };
    for (std::size_t h = 0; h < H; ++h) {
        const std::vector<double> qh = headBlock(lq.q, h), kh = headBlock(lq.k, h / groups), vh = headBlock(lq.v, h / groups);
        std::vector<double> bias(N * N);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) bias[std::size_t(i) * N + std::size_t(j)] = double(attn::maskBias(used, 0, int(h), i, j, n, n));
        auto stages = stagesFor(qh, kh, vh, bias, n, int(D), snap->factor, st);
        if (!stages) return stages.status();
        const HeadStages &hs = *stages;
        for (std::size_t i = 0; i < N; ++i)
            for (std::size_t c = 0; c < D; ++c) snap->concat[i * H * D + h * D + c] = hs.output[i * D + c];
        // The stages are the check's already at the model's own settings.
        const bool own = st.score == attn::ScoreFunction::ScaledDot && snap->factor == modelFactor && st.temperature == 1.0;
        const HeadStages mine = own ? hs : computeHeadStages(qh, kh, vh, bias, n, int(D), modelFactor, 1.0);
        std::copy(mine.output.begin(), mine.output.end(), ownOutputs.begin() + std::ptrdiff_t(h * N * D));
    }
    const std::string prefix = "layer." + std::to_string(st.layer) + ".o.";
    const std::vector<float> *wo = model->model().parameter(prefix + "weight");
    const std::vector<float> *bo = model->model().parameter(prefix + "bias");
    if (wo && wo->size() == H * D * DM) {
        snap->wo.assign(wo->begin(), wo->end());
        snap->layerOutput.assign(N * DM, 0.0);
        for (std::size_t i = 0; i < N; ++i)
            for (std::size_t r = 0; r < H * D; ++r) {
                const double a = snap->concat[i * H * D + r];
                if (a == 0.0) continue;
                for (std::size_t c = 0; c < DM; ++c) snap->layerOutput[i * DM + c] += a * snap->wo[r * DM + c];
            }
        if (bo && bo->size() == DM)
            for (std::size_t i = 0; i < N; ++i)
                for (std::size_t c = 0; c < DM; ++c) snap->layerOutput[i * DM + c] += double((*bo)[c]);
    }
    // Check the heads against the engine's own attention() on the captured Q, K, V (its Reference backend).
    if (cfg.attnSoftcap <= 0) {
        attn::AttentionOptions ao;
        ao.backend = attn::Backend::Reference;
        ao.scale = float(modelFactor);
        ao.cancel = ctx.cancelFn();
        attn::MaskSpec checkMask = used;
        auto engine = attn::attention(lq.q.view(), lq.k.view(), lq.v.view(), checkMask, ao);
        if (engine) {
            snap->maxErrHeadOutputs = 0.0;
            for (std::size_t e = 0; e < ownOutputs.size(); ++e)
                snap->maxErrHeadOutputs = std::max(snap->maxErrHeadOutputs, std::abs(ownOutputs[e] - double(engine->out.values[e])));
        }
    }

    // The check: the model's own settings (its scale, temperature 1) against what the engine captured.
    const HeadStages own = computeHeadStages(snap->q, snap->k, snap->v, snap->bias, n, int(D), modelFactor, 1.0);
    const attn::CapturedHead &cap = fwd->heads.at(0);
    for (std::size_t c = 0; c < N * N; ++c) {
        snap->maxErrWeights = std::max(snap->maxErrWeights, std::abs(own.weights[c] - double(cap.weights[c])));
        const double engine = double(cap.scores[c]);
        const bool engineMasked = std::isinf(engine) && engine < 0;
        const bool ourMasked = own.masked[c] == kNegInf;
        if (engineMasked != ourMasked) snap->scoresMaskAgree = false;
        else if (!ourMasked) snap->maxErrScores = std::max(snap->maxErrScores, std::abs(own.masked[c] - engine));
    }
    return std::shared_ptr<Snapshot>(std::move(snap));
}

ToyHead ToyHead::example()
{
    ToyHead t;
    t.x = {1, 0, 1,
           0, 2, 0,
           1, 1, 0};
    t.wq = {1, 0,
            0, 1,
            1, 1};
    t.wk = {0, 1,
            1, 0,
            1, 1};
    t.wv = {1, 0,
            0, 1,
            1, -1};
    return t;
}

void ToyHead::resize(int newN, int newD, int newDk)
{
    const auto remap = [](const std::vector<double> &m, int rows, int cols, int newRows, int newCols) {
        std::vector<double> out(std::size_t(newRows) * std::size_t(newCols), 0.0);
        for (int r = 0; r < std::min(rows, newRows); ++r)
            for (int c = 0; c < std::min(cols, newCols); ++c)
                if (std::size_t(r * cols + c) < m.size()) out[std::size_t(r * newCols + c)] = m[std::size_t(r * cols + c)];
        return out;
    };
    x = remap(x, n, dModel, newN, newD);
    wq = remap(wq, dModel, dHead, newD, newDk);
    wk = remap(wk, dModel, dHead, newD, newDk);
    wv = remap(wv, dModel, dHead, newD, newDk);
    if (direct) {
        q = remap(q, n, dHead, newN, newDk);
        k = remap(k, n, dHead, newN, newDk);
        v = remap(v, n, dHead, newN, newDk);
    }
    n = newN, dModel = newD, dHead = newDk;
}

std::vector<double> ToyHead::project(const std::vector<double> &w) const
{
    const std::size_t N = std::size_t(n), DM = std::size_t(dModel), D = std::size_t(dHead);
    std::vector<double> out(N * D, 0.0);
    if (x.size() != N * DM || w.size() != DM * D) return out;
    for (std::size_t i = 0; i < N; ++i)
        for (std::size_t r = 0; r < DM; ++r)
            for (std::size_t c = 0; c < D; ++c) out[i * D + c] += x[i * DM + r] * w[r * D + c];
    return out;
}

void ToyHead::setDirect(bool on)
{
    if (on == direct) return;
    if (on) {
        q = project(wq);
        k = project(wk);
        v = project(wv);
    } else {
        q.clear();
        k.clear();
        v.clear();
    }
    direct = on;
}

attn::Result<std::shared_ptr<Snapshot>> runToyPipeline(const ToyHead &t, const PipelineSettings &st)
{
    using attn::Status;
    for (const auto &[name, v] : {std::pair{"n", t.n}, std::pair{"d_model", t.dModel}, std::pair{"d_k", t.dHead}})
        if (v < 1 || v > kToyMax) return Status::invalid(std::string("toy.") + name + ": must be 1 … " + std::to_string(kToyMax));
    if (Status s = checkTeachingSettings(st); !s) return s;
    const std::size_t N = std::size_t(t.n), DM = std::size_t(t.dModel), D = std::size_t(t.dHead);
    if (t.x.size() != N * DM || t.wq.size() != DM * D || t.wk.size() != DM * D || t.wv.size() != DM * D)
        return Status::invalid("toy: the matrices do not have the sizes n, d_model and d_k say");
    if (t.direct && (t.q.size() != N * D || t.k.size() != N * D || t.v.size() != N * D))
        return Status::invalid("toy: Q, K and V typed directly must be n × d_k");
    auto snap = std::make_shared<PipelineSnapshot>();
    snap->toy = true;
    snap->settings = st;
    snap->settings.layer = snap->settings.head = 0;
    snap->modelName = tr("your toy head");
    for (std::size_t i = 0; i < N; ++i) snap->tokens << QStringLiteral("t%1").arg(i);
    snap->n = t.n;
    snap->dModel = t.dModel;
    snap->dHead = t.dHead;
    snap->layers = snap->heads = 1;
    snap->positionalName = tr("none");
    snap->backend = "fp64 (here) + reference";
    snap->x = t.x;
    snap->toyDirect = t.direct;
    snap->q = t.queries();
    snap->k = t.keys();
    snap->v = t.values();
    attn::MaskSpec mask;
    switch (st.mask) {
    case PipelineSettings::Mask::Model:
    case PipelineSettings::Mask::Bidirectional: break;
    case PipelineSettings::Mask::Causal: mask.causal = true; break;
    case PipelineSettings::Mask::Window: mask = attn::MaskSpec::slidingWindow(st.window, false); break;
    }
    snap->bias.assign(N * N, 0.0);
    for (int i = 0; i < t.n; ++i)
        for (int j = 0; j < t.n; ++j) snap->bias[std::size_t(i) * N + std::size_t(j)] = double(attn::maskBias(mask, 0, 0, i, j, t.n, t.n));
    snap->modelFactor = 1.0 / std::sqrt(double(t.dHead));
    snap->factor = stageFactor(st, snap->modelFactor);
    if (Status s = fillTeachingStages(*snap, st); !s) return s;
    snap->withScale = saturation(computeHeadStages(snap->q, snap->k, snap->v, snap->bias, t.n, t.dHead, snap->modelFactor, st.temperature).weights, t.n);
    snap->withoutScale = saturation(computeHeadStages(snap->q, snap->k, snap->v, snap->bias, t.n, t.dHead, 1.0, st.temperature).weights, t.n);
    snap->concat = snap->stages.output;
    // The check: the same Q, K, V (rounded to fp32) through the engine's attention() at scale 1/√d_k, T = 1.
    const HeadStages own = computeHeadStages(snap->q, snap->k, snap->v, snap->bias, t.n, t.dHead, snap->modelFactor, 1.0);
    attn::Tensor q(attn::Shape4{1, 1, std::int64_t(N), std::int64_t(D)}), k = q, v = q;
    for (std::size_t e = 0; e < N * D; ++e) q.values[e] = float(snap->q[e]), k.values[e] = float(snap->k[e]), v.values[e] = float(snap->v[e]);
    attn::AttentionOptions ao;
    ao.backend = attn::Backend::Reference;
    ao.scale = float(snap->modelFactor);
    ao.weights = attn::WeightsRequest::all();
    auto engine = attn::attention(q.view(), k.view(), v.view(), mask, ao);
    if (!engine) return engine.status();
    for (std::size_t c = 0; c < N * N; ++c)
        snap->maxErrWeights = std::max(snap->maxErrWeights, std::abs(own.weights[c] - double(engine->weights.at(0).P[c])));
    snap->maxErrHeadOutputs = 0.0;
    for (std::size_t e = 0; e < N * D; ++e)
        snap->maxErrHeadOutputs = std::max(snap->maxErrHeadOutputs, std::abs(own.output[e] - double(engine->out.values[e])));
    return std::shared_ptr<Snapshot>(std::move(snap));
}

ScoreSpread scoreSpreadByDk(int samples, unsigned seed)
{
    ScoreSpread s;
    std::mt19937 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    for (int dk = 1; dk <= 512; dk *= 2) {
        double sum = 0.0, sum2 = 0.0;
        for (int t = 0; t < samples; ++t) {
            double dot = 0.0;
            for (int c = 0; c < dk; ++c) dot += normal(rng) * normal(rng);
            sum += dot;
            sum2 += dot * dot;
        }
        const double mean = sum / samples;
        const double sd = std::sqrt(std::max(0.0, sum2 / samples - mean * mean));
        s.dk.push_back(dk);
        s.stdRaw.push_back(sd);
        s.stdScaled.push_back(sd / std::sqrt(double(dk)));
    }
    return s;
}

} // namespace attnui
