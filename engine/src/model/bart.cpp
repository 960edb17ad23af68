// SPDX-License-Identifier: GPL-3.0-or-later
// BART and Marian encoder–decoders (seq2seq.h): config.json, the checked tensors, and the teacher-forced forward
// pass — post-norm layers with biases, learned (BART, offset 2) or sinusoidal (Marian) positions.
#include "model/hf_checkpoint.h"
#include "model/ops.h"
#include "model/seq2seq_common.h"

#include <cmath>

namespace attn {

using namespace detail::hf;

namespace detail {

struct BartAttention {
    Linear q, k, v, o;   // [D, D] each, with biases
};
struct BartLayer {
    BartAttention self, cross;                     // cross: decoder only
    LayerNormWeights selfNorm, crossNorm, ffNorm;  // after each residual sum
    Linear fc1, fc2;                               // [D, ffn], [ffn, D]
};
struct BartStack {
    std::vector<float> tokens;      // [vocab, D]; the decoder's is empty when it uses the encoder's
    std::vector<float> positions;   // BART [maxPositions + 2, D]; Marian [maxPositions, D]
    LayerNormWeights embeddingNorm; // BART's layernorm_embedding; empty for Marian
    std::vector<BartLayer> layers;
    std::int64_t heads = 0;
};
struct BartWeights final : Seq2SeqWeights {
    BartConfig config;
    BartStack encoder, decoder;
    std::vector<float> lmHead;      // [decoderVocab, D]; empty: the decoder's token embeddings
    std::vector<float> logitsBias;  // final_logits_bias [decoderVocab]; empty when the checkpoint has none
    const BartConfig *bart() const override { return &config; }
    Result<Seq2SeqResult> forward(const std::vector<std::int64_t> &source, const std::vector<std::int64_t> &decoderInput,
                                  const Seq2SeqOptions &options) const override;
};

} // namespace detail

namespace {

using detail::BartAttention;
using detail::BartLayer;
using detail::BartStack;
using detail::BartWeights;
using detail::Linear;

bool boolean(Fields &f, const char *name, bool fallback)
{
    const json *j = f.get(name);
    if (!j) return fallback;
    if (!j->is_boolean()) f.fail(name, "is " + j->dump() + "; expected true or false");
    return j->is_boolean() ? j->get<bool>() : fallback;
}

// --- tensors -----------------------------------------------------------------------------------------------------

void readAttention(Tensors &t, BartAttention &a, const std::string &p, std::int64_t D)
{
    t.linear(a.q, p + ".q_proj", D, D, true, "[d_model, d_model]");
    t.linear(a.k, p + ".k_proj", D, D, true, "[d_model, d_model]");
    t.linear(a.v, p + ".v_proj", D, D, true, "[d_model, d_model]");
    t.linear(a.o, p + ".out_proj", D, D, true, "[d_model, d_model]");
}

void readStack(Tensors &t, BartStack &s, const std::string &name, const BartConfig &c)
{
    const bool decoder = name == "decoder";
    const std::int64_t D = c.dModel, layers = decoder ? c.decoderLayers : c.encoderLayers;
    const std::int64_t ffn = decoder ? c.decoderFfn : c.encoderFfn;
    s.heads = decoder ? c.decoderHeads : c.encoderHeads;
    const std::string pos = name + ".embed_positions.weight";
    if (!c.marian) {
        s.positions = t.take(pos, {c.maxPositions + 2, D}, "[max_position_embeddings + 2, d_model]: BART's offset 2");
        t.norm(s.embeddingNorm, name + ".layernorm_embedding", D);
    } else if (t.has(pos)) {
        s.positions = t.take(pos, {c.maxPositions, D}, "[max_position_embeddings, d_model]");
    } else {
        s.positions = marianSinusoidalPositions(c.maxPositions, D);   // not stored: transformers computes it too
    }
    s.layers.resize(static_cast<std::size_t>(layers));
    for (std::int64_t l = 0; l < layers; ++l) {
        BartLayer &b = s.layers[static_cast<std::size_t>(l)];
        const std::string p = name + ".layers." + std::to_string(l) + ".";
        readAttention(t, b.self, p + "self_attn", D);
        t.norm(b.selfNorm, p + "self_attn_layer_norm", D);
        if (decoder) {
            readAttention(t, b.cross, p + "encoder_attn", D);
            t.norm(b.crossNorm, p + "encoder_attn_layer_norm", D);
        }
        t.linear(b.fc1, p + "fc1", D, ffn, true, decoder ? "[decoder_ffn_dim, d_model]" : "[encoder_ffn_dim, d_model]");
        t.linear(b.fc2, p + "fc2", ffn, D, true, decoder ? "[d_model, decoder_ffn_dim]" : "[d_model, encoder_ffn_dim]");
        t.norm(b.ffNorm, p + "final_layer_norm", D);
    }
}

Result<std::shared_ptr<BartWeights>> loadBart(const std::string &folder)
{
    auto folderConfig = readFolderConfig(folder);
    if (!folderConfig) return folderConfig.status();
    auto config = parseBartConfig(folderConfig->text, folderConfig->path);
    if (!config) return config.status();
    auto file = openModelSafetensors(folderConfig->dir);
    if (!file) return file.status();
    auto owned = std::make_shared<BartWeights>();
    BartWeights &w = *owned;
    w.config = *config;
    w.source = folder;
    const BartConfig &c = w.config;
    const std::int64_t D = c.dModel;
    w.shape = Seq2SeqShape{c.marian ? Seq2SeqFamily::Marian : Seq2SeqFamily::Bart,
                           c.marian ? "marian" : "bart",
                           c.marian ? "MarianMTModel" : "BartForConditionalGeneration",
                           c.vocabSize, c.decoderVocabSize, D, c.encoderLayers, c.decoderLayers, c.encoderHeads,
                           c.decoderHeads, D / c.encoderHeads, D / c.decoderHeads, c.decoderStartTokenId, c.eosTokenId,
                           c.maxPositions};
    // BartForConditionalGeneration / MarianMTModel keep the seq2seq model under "model."; a bare BartModel-style
    // save has no prefix. lm_head and final_logits_bias sit outside it.
    Tensors t(*file, [](const std::string &n) { return n.rfind("model.", 0) == 0 ? n.substr(6) : n; });
    // Each stack reads its own embed_tokens when the file has it (transformers v5 saves them apart from
    // shared.weight when tie_word_embeddings is false, and the modules use them); else the shared embedding.
    const bool ownEncoder = t.has("encoder.embed_tokens.weight"), ownDecoder = t.has("decoder.embed_tokens.weight");
    if (ownEncoder) w.encoder.tokens = t.take("encoder.embed_tokens.weight", {c.vocabSize, D}, "[vocab_size, d_model]");
    if (ownDecoder)
        w.decoder.tokens = t.take("decoder.embed_tokens.weight", {c.decoderVocabSize, D}, "[decoder vocabulary, d_model]");
    if (!ownEncoder || !ownDecoder || t.has("shared.weight")) {
        std::vector<float> shared = t.take("shared.weight", {c.vocabSize, D}, "[vocab_size, d_model]");
        if (!ownEncoder) w.encoder.tokens = std::move(shared);
        else if (!ownDecoder && c.shareEmbeddings) w.decoder.tokens = std::move(shared);
        if (!ownDecoder && !c.shareEmbeddings && t.status())
            return formatError(file->path() + ": missing tensor 'model.decoder.embed_tokens.weight' (the decoder's own "
                                              "embedding: share_encoder_decoder_embeddings is false)");
    }
    if (t.has("lm_head.weight")) w.lmHead = t.take("lm_head.weight", {c.decoderVocabSize, D}, "[decoder vocabulary, d_model]");
    if (t.has("final_logits_bias")) w.logitsBias = t.take("final_logits_bias", {1, c.decoderVocabSize}, "[1, decoder vocabulary]");
    readStack(t, w.encoder, "encoder", c);
    readStack(t, w.decoder, "decoder", c);
    if (Status s = t.checkAllUsed(std::string("a ") + w.shape.architectureClass + " checkpoint with this config"); !s)
        return s;
    return owned;
}

// --- forward -----------------------------------------------------------------------------------------------------

// tokens · (√D when scale_embedding) + the position rows (BART: p + 2), then BART's embedding layer norm.
std::vector<float> embed(const BartStack &s, const std::vector<float> &tokens, const BartConfig &c,
                         const std::vector<std::int64_t> &ids)
{
    const std::int64_t D = c.dModel, offset = c.marian ? 0 : 2;
    const float scale = c.scaleEmbedding ? std::sqrt(static_cast<float>(D)) : 1.0f;
    std::vector<float> x(ids.size() * static_cast<std::size_t>(D));
    for (std::size_t p = 0; p < ids.size(); ++p) {
        const float *tok = tokens.data() + ids[p] * D;
        const float *pos = s.positions.data() + (static_cast<std::int64_t>(p) + offset) * D;
        float *row = x.data() + static_cast<std::ptrdiff_t>(p) * D;
        for (std::int64_t i = 0; i < D; ++i) row[i] = tok[i] * scale + pos[i];
    }
    if (!s.embeddingNorm.gamma.empty())
        detail::layerNorm(x.data(), static_cast<std::int64_t>(ids.size()), D, s.embeddingNorm, c.layerNormEps);
    return x;
}

// x = LN(x + sublayer(x)): the post-norm residual.
template <class Sublayer>
Status postNorm(std::vector<float> &x, const detail::LayerNormWeights &norm, const BartConfig &c, Sublayer &&sublayer)
{
    Result<std::vector<float>> r = sublayer(x);
    if (!r) return r.status();
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += (*r)[i];
    detail::layerNorm(x.data(), static_cast<std::int64_t>(x.size()) / c.dModel, c.dModel, norm, c.layerNormEps);
    return Status::ok();
}

std::vector<float> feedForward(const BartLayer &b, const BartConfig &c, const std::vector<float> &x)
{
    const std::int64_t L = static_cast<std::int64_t>(x.size()) / c.dModel;
    std::vector<float> m = detail::applyLinear(x.data(), L, b.fc1);
    detail::activate(m.data(), m.size(), c.activation);
    return detail::applyLinear(m.data(), L, b.fc2);
}

detail::AttendArgs args(const BartAttention &a, const BartStack &s, const BartConfig &c)
{
    return {a.q, a.k, a.v, a.o, s.heads, c.dModel / s.heads, 0.0f};   // scale 0: d_head^-½
}

} // namespace

// --- public ------------------------------------------------------------------------------------------------------

std::vector<float> marianSinusoidalPositions(std::int64_t positions, std::int64_t dim)
{
    // angle[p, j] = p / 10000^(2·(j // 2) / dim); columns [0, half) = sin of the even j, [half, dim) = cos of the odd.
    const std::int64_t half = dim / 2 + dim % 2;
    std::vector<float> out(static_cast<std::size_t>(positions * dim));
    for (std::int64_t p = 0; p < positions; ++p)
        for (std::int64_t j = 0; j < dim; ++j) {
            const double angle = double(p) / std::pow(10000.0, 2.0 * double(j / 2) / double(dim));
            const std::int64_t col = j % 2 == 0 ? j / 2 : half + j / 2;
            out[static_cast<std::size_t>(p * dim + col)] = static_cast<float>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    return out;
}

Result<BartConfig> parseBartConfig(std::string_view jsonText, const std::string &source)
{
    json root = json::parse(jsonText, nullptr, false);
    if (root.is_discarded() || !root.is_object()) return formatError(source + ": not a JSON object");
    Fields f(root, source);
    BartConfig c;
    const std::string type = f.text("model_type", "");
    if (!f.status()) return f.status();
    if (type != "bart" && type != "marian")
        return formatError(source + ": field 'model_type' is '" + type + "'; expected 'bart' or 'marian'");
    c.marian = type == "marian";
    const std::string arch = c.marian ? "MarianMTModel" : "BartForConditionalGeneration";
    if (const json *a = f.get("architectures"); a && a->is_array() && !a->empty() && (*a)[0].is_string() &&
                                                 (*a)[0].get<std::string>() != arch)
        return formatError(source + ": field 'architectures' names " + (*a)[0].get<std::string>() +
                           "; this engine runs " + arch);
    if (c.marian) {   // MarianConfig's defaults
        c.vocabSize = 58101;
        c.padTokenId = 58100;
        c.eosTokenId = 0;
        c.decoderStartTokenId = 58100;
    }
    c.vocabSize = f.integer("vocab_size", c.vocabSize, 1, std::int64_t(1) << 24);
    c.decoderVocabSize = c.marian ? f.integer("decoder_vocab_size", c.vocabSize, 1, std::int64_t(1) << 24) : c.vocabSize;
    c.dModel = f.integer("d_model", c.dModel, 1, 1 << 16);
    c.encoderLayers = f.integer("encoder_layers", c.encoderLayers, 1, 1024);
    c.decoderLayers = f.integer("decoder_layers", c.decoderLayers, 1, 1024);
    c.encoderHeads = f.integer("encoder_attention_heads", c.encoderHeads, 1, 1024);
    c.decoderHeads = f.integer("decoder_attention_heads", c.decoderHeads, 1, 1024);
    c.encoderFfn = f.integer("encoder_ffn_dim", c.encoderFfn, 1, 1 << 18);
    c.decoderFfn = f.integer("decoder_ffn_dim", c.decoderFfn, 1, 1 << 18);
    c.maxPositions = f.integer("max_position_embeddings", c.maxPositions, 1, 1 << 20);
    c.activation = f.activation("activation_function", Activation::Gelu);
    c.scaleEmbedding = boolean(f, "scale_embedding", false);
    c.shareEmbeddings = c.marian ? boolean(f, "share_encoder_decoder_embeddings", true) : true;
    if (c.shareEmbeddings && c.decoderVocabSize != c.vocabSize)
        f.fail("decoder_vocab_size", "is " + std::to_string(c.decoderVocabSize) + " but the embeddings are shared "
                                     "(share_encoder_decoder_embeddings) over vocab_size " + std::to_string(c.vocabSize));
    const std::int64_t vocabMax = std::min(c.vocabSize, c.decoderVocabSize) - 1;
    c.padTokenId = f.integer("pad_token_id", std::min(c.padTokenId, vocabMax), 0, vocabMax);
    c.eosTokenId = std::min(c.eosTokenId, c.decoderVocabSize - 1);   // the class default, inside a tiny vocabulary
    if (const json *e = f.get("eos_token_id"); e && !e->is_array())
        c.eosTokenId = f.integer("eos_token_id", c.eosTokenId, 0, c.decoderVocabSize - 1);
    c.decoderStartTokenId = f.integer("decoder_start_token_id", std::min(c.decoderStartTokenId, c.decoderVocabSize - 1), 0,
                                      c.decoderVocabSize - 1);
    for (auto [heads, field] : {std::pair{c.encoderHeads, "encoder_attention_heads"}, std::pair{c.decoderHeads, "decoder_attention_heads"}})
        if (f.status() && c.dModel % heads != 0)
            f.fail(field, "is " + std::to_string(heads) + ", which does not divide d_model " + std::to_string(c.dModel));
    if (!f.status()) return f.status();
    return c;
}

Result<std::shared_ptr<const detail::Seq2SeqWeights>> detail::loadBartWeights(const std::string &folder)
{
    auto w = loadBart(folder);
    if (!w) return w.status();
    return std::shared_ptr<const detail::Seq2SeqWeights>(std::move(w).value());
}

Result<Seq2SeqResult> detail::BartWeights::forward(const std::vector<std::int64_t> &source,
                                                   const std::vector<std::int64_t> &decoderInput,
                                                   const Seq2SeqOptions &options) const
{
    const BartConfig &c = config;
    const std::vector<float> &decoderTokens = decoder.tokens.empty() ? encoder.tokens : decoder.tokens;
    const auto cancelled = [&] { return options.cancel && options.cancel(); };
    Seq2SeqResult result;
    result.sourceLength = static_cast<std::int64_t>(source.size());
    result.targetLength = static_cast<std::int64_t>(decoderInput.size());
    Backend ran = Backend::Auto;
    const auto ff = [&](const BartLayer &b) {
        return [&](const std::vector<float> &h) -> Result<std::vector<float>> { return feedForward(b, c, h); };
    };

    std::vector<float> x = embed(encoder, encoder.tokens, c, source);
    for (const BartLayer &b : encoder.layers) {
        if (cancelled()) return Status::cancelled();
        const auto self = [&](const std::vector<float> &h) {
            return seq2seqAttend(args(b.self, encoder, c), h, h, MaskSpec::bidirectional(), options,
                                 result.encoderAttentions, ran);
        };
        if (Status s = postNorm(x, b.selfNorm, c, self); !s) return s;
        if (Status s = postNorm(x, b.ffNorm, c, ff(b)); !s) return s;
    }
    result.encoderHidden = std::move(x);

    std::vector<float> y = embed(decoder, decoderTokens, c, decoderInput);
    for (const BartLayer &b : decoder.layers) {
        if (cancelled()) return Status::cancelled();
        const auto self = [&](const std::vector<float> &h) {
            return seq2seqAttend(args(b.self, decoder, c), h, h, MaskSpec::causalMask(), options, result.decoderAttentions, ran);
        };
        const auto cross = [&](const std::vector<float> &h) {
            return seq2seqAttend(args(b.cross, decoder, c), h, result.encoderHidden, MaskSpec::bidirectional(), options,
                                 result.crossAttentions, ran);
        };
        if (Status s = postNorm(y, b.selfNorm, c, self); !s) return s;
        if (Status s = postNorm(y, b.crossNorm, c, cross); !s) return s;
        if (Status s = postNorm(y, b.ffNorm, c, ff(b)); !s) return s;
    }
    result.decoderHidden = y;
    if (options.computeLogits)
        result.logits = tiedProjection(y.data(), result.targetLength, c.dModel, lmHead.empty() ? decoderTokens : lmHead,
                                       c.decoderVocabSize, logitsBias);
    result.backend = ran;
    return result;
}

} // namespace attn
