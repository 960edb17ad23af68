// SPDX-License-Identifier: GPL-3.0-or-later
// T5 encoder–decoder (seq2seq.h): config.json, the checked tensors, and the teacher-forced forward pass with the
// relative-position bias handed to attention() as MaskSpec::headBias.
#include "model/hf_checkpoint.h"
#include "model/ops.h"
#include "model/seq2seq_common.h"

#include <attnscope/seq2seq.h>
#include <attnscope/tensor.h>

#include <cmath>

namespace attn {

using namespace detail::hf;

namespace detail {

struct T5Attention {
    Linear q, k, v, o;   // [D, H·dKv] ×3, [H·dKv, D]; no biases
};
struct T5Block {
    std::vector<float> selfNorm, crossNorm, ffNorm;   // [D] RMS-norm weights (crossNorm: decoder only)
    T5Attention self, cross;                          // cross: decoder only
    Linear wi, wi1, wo;                               // relu: wi; gated: wi (wi_0) and wi1 (wi_1); wo [dFf, D]
};
struct T5Stack {
    std::vector<float> biasTable;   // [buckets, H] from block 0
    std::vector<T5Block> blocks;
    std::vector<float> finalNorm;   // [D]
};
struct T5Weights final : Seq2SeqWeights {
    T5Config config;
    std::vector<float> shared;   // [V, D]
    std::vector<float> lmHead;   // [V, D]; empty: the shared embedding
    T5Stack encoder, decoder;
    const T5Config *t5() const override { return &config; }
    Result<Seq2SeqResult> forward(const std::vector<std::int64_t> &source, const std::vector<std::int64_t> &decoderInput,
                                  const Seq2SeqOptions &options) const override;
};

} // namespace detail

namespace {

using detail::activate;
using detail::applyLinear;
using detail::Linear;
using detail::T5Attention;
using detail::T5Block;
using detail::T5Stack;
using detail::T5Weights;

// --- config and tensors ------------------------------------------------------------------------------------------

void readAttention(Tensors &t, T5Attention &a, const std::string &p, const T5Config &c)
{
    const std::int64_t D = c.dModel, HD = c.heads * c.dKv;
    t.linear(a.q, p + ".q", D, HD, false, "[num_heads·d_kv, d_model]");
    t.linear(a.k, p + ".k", D, HD, false, "[num_heads·d_kv, d_model]");
    t.linear(a.v, p + ".v", D, HD, false, "[num_heads·d_kv, d_model]");
    t.linear(a.o, p + ".o", HD, D, false, "[d_model, num_heads·d_kv]");
}

void readStack(Tensors &t, T5Stack &s, const std::string &name, std::int64_t layers, const T5Config &c)
{
    const std::int64_t D = c.dModel;
    const bool decoder = name == "decoder";
    s.blocks.resize(static_cast<std::size_t>(layers));
    for (std::int64_t l = 0; l < layers; ++l) {
        T5Block &b = s.blocks[static_cast<std::size_t>(l)];
        const std::string p = name + ".block." + std::to_string(l) + ".layer.";
        b.selfNorm = t.take(p + "0.layer_norm.weight", {D}, "d_model");
        readAttention(t, b.self, p + "0.SelfAttention", c);
        if (l == 0)
            s.biasTable = t.take(p + "0.SelfAttention.relative_attention_bias.weight", {c.buckets, c.heads},
                                 "[relative_attention_num_buckets, num_heads]");
        const std::string ff = p + (decoder ? "2" : "1");
        if (decoder) {
            b.crossNorm = t.take(p + "1.layer_norm.weight", {D}, "d_model");
            readAttention(t, b.cross, p + "1.EncDecAttention", c);
        }
        b.ffNorm = t.take(ff + ".layer_norm.weight", {D}, "d_model");
        if (c.gated) {
            t.linear(b.wi, ff + ".DenseReluDense.wi_0", D, c.dFf, false, "[d_ff, d_model]");
            t.linear(b.wi1, ff + ".DenseReluDense.wi_1", D, c.dFf, false, "[d_ff, d_model]");
        } else {
            t.linear(b.wi, ff + ".DenseReluDense.wi", D, c.dFf, false, "[d_ff, d_model]");
        }
        t.linear(b.wo, ff + ".DenseReluDense.wo", c.dFf, D, false, "[d_model, d_ff]");
    }
    s.finalNorm = t.take(name + ".final_layer_norm.weight", {D}, "d_model");
}

Result<std::shared_ptr<T5Weights>> loadT5(const std::string &folder)
{
    auto folderConfig = readFolderConfig(folder);
    if (!folderConfig) return folderConfig.status();
    auto config = parseT5Config(folderConfig->text, folderConfig->path);
    if (!config) return config.status();
    auto file = openModelSafetensors(folderConfig->dir);
    if (!file) return file.status();
    auto owned = std::make_shared<T5Weights>();
    T5Weights &w = *owned;
    w.config = *config;
    w.source = folder;
    const T5Config &c = w.config;
    w.shape = Seq2SeqShape{Seq2SeqFamily::T5, "t5", "T5ForConditionalGeneration", c.vocabSize, c.vocabSize, c.dModel,
                           c.layers, c.decoderLayers, c.heads, c.heads, c.dKv, c.dKv, c.decoderStartTokenId,
                           c.eosTokenId, 0};
    Tensors t(*file, [](const std::string &n) { return n; });
    w.shared = t.take("shared.weight", {c.vocabSize, c.dModel}, "[vocab_size, d_model]");
    // Tied copies of the shared embedding, when a writer stored them.
    for (const char *tied : {"encoder.embed_tokens.weight", "decoder.embed_tokens.weight"})
        if (t.has(tied)) t.take(tied, {c.vocabSize, c.dModel}, "a tied copy of shared.weight");
    if (t.has("lm_head.weight")) w.lmHead = t.take("lm_head.weight", {c.vocabSize, c.dModel}, "[vocab_size, d_model]");
    readStack(t, w.encoder, "encoder", c.layers, c);
    readStack(t, w.decoder, "decoder", c.decoderLayers, c);
    if (Status s = t.checkAllUsed("a T5ForConditionalGeneration checkpoint with this config"); !s) return s;
    return owned;
}

// --- forward -----------------------------------------------------------------------------------------------------

// In place, per row: w · x / √(mean(x²) + ε) (T5LayerNorm: no mean subtracted, no bias).
void t5LayerNorm(std::vector<float> &x, std::int64_t D, const std::vector<float> &w, float eps)
{
    const std::int64_t L = static_cast<std::int64_t>(x.size()) / D;
    for (std::int64_t r = 0; r < L; ++r) {
        float *row = x.data() + r * D;
        double sq = 0.0;
        for (std::int64_t i = 0; i < D; ++i) sq += double(row[i]) * row[i];
        const float inv = 1.0f / std::sqrt(static_cast<float>(sq / double(D)) + eps);
        for (std::int64_t i = 0; i < D; ++i) row[i] = w[static_cast<std::size_t>(i)] * (row[i] * inv);
    }
}

// [H, Lq, Lk]: bias[h, i, j] = table[bucket(j − i), h].
std::vector<float> positionBias(const T5Stack &s, const T5Config &c, std::int64_t Lq, std::int64_t Lk, bool bidirectional)
{
    std::vector<float> bias(static_cast<std::size_t>(c.heads * Lq * Lk));
    for (std::int64_t i = 0; i < Lq; ++i)
        for (std::int64_t j = 0; j < Lk; ++j) {
            const std::int64_t b = t5RelativeBucket(j - i, bidirectional, c.buckets, c.maxDistance);
            for (std::int64_t h = 0; h < c.heads; ++h)
                bias[static_cast<std::size_t>((h * Lq + i) * Lk + j)] = s.biasTable[static_cast<std::size_t>(b * c.heads + h)];
        }
    return bias;
}

// x_q [Lq, D] attends over x_kv [Lk, D]; the result [Lq, D] after the output projection. Weights appended to `out`.
Result<std::vector<float>> attend(const T5Attention &a, const T5Config &c, const std::vector<float> &xq,
                                  const std::vector<float> &xkv, const MaskSpec &mask, const Seq2SeqOptions &options,
                                  std::vector<std::vector<float>> &out, Backend &ran)
{
    // T5 does not scale scores: scale 1.
    return detail::seq2seqAttend({a.q, a.k, a.v, a.o, c.heads, c.dKv, 1.0f}, xq, xkv, mask, options, out, ran);
}

void addInPlace(std::vector<float> &x, const std::vector<float> &y)
{
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += y[i];
}

std::vector<float> feedForward(const T5Block &b, const T5Config &c, const std::vector<float> &h)
{
    const std::int64_t L = static_cast<std::int64_t>(h.size()) / c.dModel;
    std::vector<float> m = applyLinear(h.data(), L, b.wi);
    activate(m.data(), m.size(), c.activation);
    if (c.gated) {
        const std::vector<float> lin = applyLinear(h.data(), L, b.wi1);
        for (std::size_t i = 0; i < m.size(); ++i) m[i] *= lin[i];
    }
    return applyLinear(m.data(), L, b.wo);
}

// x += sublayer(RMSNorm(x)): T5's pre-norm residual.
template <class Sublayer>
Status residual(std::vector<float> &x, const std::vector<float> &norm, const T5Config &c, Sublayer &&sublayer)
{
    std::vector<float> h = x;
    t5LayerNorm(h, c.dModel, norm, c.layerNormEps);
    Result<std::vector<float>> r = sublayer(h);
    if (!r) return r.status();
    addInPlace(x, *r);
    return Status::ok();
}

std::vector<float> embedIds(const T5Weights &w, const std::vector<std::int64_t> &ids)
{
    const std::int64_t D = w.config.dModel;
    std::vector<float> x(ids.size() * static_cast<std::size_t>(D));
    for (std::size_t p = 0; p < ids.size(); ++p)
        std::copy_n(w.shared.begin() + ids[p] * D, D, x.begin() + static_cast<std::ptrdiff_t>(p) * D);
    return x;
}

} // namespace

// --- public ------------------------------------------------------------------------------------------------------

std::int64_t t5RelativeBucket(std::int64_t rel, bool bidirectional, std::int64_t buckets, std::int64_t maxDistance)
{
    std::int64_t bucket = 0, nb = buckets, n = 0;
    if (bidirectional) {
        nb /= 2;
        if (rel > 0) bucket += nb;
        n = rel < 0 ? -rel : rel;
    } else {
        n = rel < 0 ? -rel : 0;
    }
    const std::int64_t exact = nb / 2;
    if (n < exact) return bucket + n;
    // torch: log(float(n) / exact) / math.log(max_distance / exact) * (nb − exact), each step in float32.
    const float v = std::log(static_cast<float>(n) / static_cast<float>(exact)) /
                    static_cast<float>(std::log(double(maxDistance) / double(exact))) * static_cast<float>(nb - exact);
    return bucket + std::min(exact + static_cast<std::int64_t>(v), nb - 1);
}

Result<T5Config> parseT5Config(std::string_view jsonText, const std::string &source)
{
    json root = json::parse(jsonText, nullptr, false);
    if (root.is_discarded() || !root.is_object()) return formatError(source + ": not a JSON object");
    Fields f(root, source);
    T5Config c;
    const std::string type = f.text("model_type", "");
    if (!f.status()) return f.status();
    if (type != "t5") return formatError(source + ": field 'model_type' is '" + type + "'; expected 't5'");
    if (const json *a = f.get("architectures"); a && a->is_array() && !a->empty() && (*a)[0].is_string() &&
                                                 (*a)[0].get<std::string>() != "T5ForConditionalGeneration")
        return formatError(source + ": field 'architectures' names " + (*a)[0].get<std::string>() +
                           "; this engine runs T5ForConditionalGeneration");
    c.vocabSize = f.integer("vocab_size", c.vocabSize, 1, std::int64_t(1) << 24);
    c.dModel = f.integer("d_model", c.dModel, 1, 1 << 16);
    c.dKv = f.integer("d_kv", c.dKv, 1, 1 << 16);
    c.dFf = f.integer("d_ff", c.dFf, 1, 1 << 18);
    c.layers = f.integer("num_layers", c.layers, 1, 1024);
    c.decoderLayers = f.integer("num_decoder_layers", c.layers, 1, 1024);
    c.heads = f.integer("num_heads", c.heads, 1, 1024);
    c.buckets = f.integer("relative_attention_num_buckets", c.buckets, 4, 1 << 16);   // ≥ 4: an exact bucket per side
    c.maxDistance = f.integer("relative_attention_max_distance", c.maxDistance, c.buckets / 2 + 1, 1 << 24);
    c.decoderStartTokenId = f.integer("decoder_start_token_id", 0, 0, c.vocabSize - 1);
    if (const json *e = f.get("eos_token_id"); e && !e->is_array()) c.eosTokenId = f.integer("eos_token_id", 1, 0, c.vocabSize - 1);
    if (const json *e = f.get("layer_norm_epsilon")) {
        if (!e->is_number() || !(e->get<double>() > 0.0)) f.fail("layer_norm_epsilon", "must be a positive number");
        else c.layerNormEps = static_cast<float>(e->get<double>());
    }
    const std::string ff = f.text("feed_forward_proj", "relu");
    const std::string act = ff.rfind("gated-", 0) == 0 ? ff.substr(6) : ff;
    c.gated = act.size() != ff.size();
    if (ff == "gated-gelu") c.activation = Activation::GeluNew;   // transformers' backward-compatible mapping
    else if (auto a = parseActivation(act)) c.activation = *a;
    else f.fail("feed_forward_proj", "'" + ff + "' is not ACT or gated-ACT with an activation this engine implements");
    // v5 reads scale_decoder_outputs; older configs say it through tie_word_embeddings (false: v1.1, no scaling).
    if (const json *s = f.get("scale_decoder_outputs"); s && s->is_boolean()) c.scaleDecoderOutputs = s->get<bool>();
    else if (const json *t = f.get("tie_word_embeddings"); t && t->is_boolean()) c.scaleDecoderOutputs = t->get<bool>();
    if (!f.status()) return f.status();
    return c;
}

Result<std::shared_ptr<const detail::Seq2SeqWeights>> detail::loadT5Weights(const std::string &folder)
{
    auto w = loadT5(folder);
    if (!w) return w.status();
    return std::shared_ptr<const detail::Seq2SeqWeights>(std::move(w).value());
}

Result<Seq2SeqResult> detail::T5Weights::forward(const std::vector<std::int64_t> &source,
                                                 const std::vector<std::int64_t> &decoderInput,
                                                 const Seq2SeqOptions &options) const
{
    const T5Weights &w = *this;
    const T5Config &c = w.config;
    const std::int64_t D = c.dModel;
    const std::int64_t S = static_cast<std::int64_t>(source.size()), T = static_cast<std::int64_t>(decoderInput.size());
    const auto cancelled = [&] { return options.cancel && options.cancel(); };
    Seq2SeqResult result;
    result.sourceLength = S;
    result.targetLength = T;
    Backend ran = Backend::Auto;

    // Encoder: x += SA(LN(x), bias); x += FF(LN(x)); final LN.
    MaskSpec encMask;
    encMask.headBias = positionBias(w.encoder, c, S, S, true);
    std::vector<float> x = embedIds(w, source);
    const auto ff = [&](const T5Block &b) {
        return [&](const std::vector<float> &h) -> Result<std::vector<float>> { return feedForward(b, c, h); };
    };
    for (const T5Block &b : w.encoder.blocks) {
        if (cancelled()) return Status::cancelled();
        const auto self = [&](const std::vector<float> &h) {
            return attend(b.self, c, h, h, encMask, options, result.encoderAttentions, ran);
        };
        if (Status s = residual(x, b.selfNorm, c, self); !s) return s;
        if (Status s = residual(x, b.ffNorm, c, ff(b)); !s) return s;
    }
    t5LayerNorm(x, D, w.encoder.finalNorm, c.layerNormEps);
    result.encoderHidden = std::move(x);

    // Decoder: causal SA with its own bias, cross-attention over the encoder output (no bias), FF; final LN.
    MaskSpec decMask = MaskSpec::causalMask();
    decMask.headBias = positionBias(w.decoder, c, T, T, false);
    std::vector<float> y = embedIds(w, decoderInput);
    for (const T5Block &b : w.decoder.blocks) {
        if (cancelled()) return Status::cancelled();
        const auto self = [&](const std::vector<float> &h) {
            return attend(b.self, c, h, h, decMask, options, result.decoderAttentions, ran);
        };
        const auto cross = [&](const std::vector<float> &h) {
            return attend(b.cross, c, h, result.encoderHidden, MaskSpec::bidirectional(), options, result.crossAttentions, ran);
        };
        if (Status s = residual(y, b.selfNorm, c, self); !s) return s;
        if (Status s = residual(y, b.crossNorm, c, cross); !s) return s;
        if (Status s = residual(y, b.ffNorm, c, ff(b)); !s) return s;
    }
    t5LayerNorm(y, D, w.decoder.finalNorm, c.layerNormEps);
    result.decoderHidden = y;
    if (options.computeLogits) {
        if (c.scaleDecoderOutputs) {
            const float s = static_cast<float>(std::pow(double(D), -0.5));
            for (float &v : y) v *= s;
        }
        result.logits = detail::tiedProjection(y.data(), T, D, w.lmHead.empty() ? w.shared : w.lmHead, c.vocabSize, {});
    }
    result.backend = ran;
    return result;
}

} // namespace attn
