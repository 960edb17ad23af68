// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Encoder–decoder models, Qt-free, teacher-forced: checkpoint folders of three families (config.json model_type):
//
//   "t5"      T5ForConditionalGeneration (original T5, v1.1 / Flan-T5)
//   "bart"    BartForConditionalGeneration
//   "marian"  MarianMTModel (Opus-MT)
//
// Three attention kinds per pass:
//
//   encoder self-attention   [S, S]  bidirectional (T5: + the encoder's relative-position bias)
//   decoder self-attention   [T, T]  causal (T5: + the decoder's relative-position bias)
//   cross-attention          [T, S]  decoder queries × encoder keys and values, no bias
//
// T5 specifics (reference/models-and-tokenizers.md §3): no 1/√d scaling (scale 1); the bias table
// relative_attention_bias [buckets, H] lives in block 0 of each stack and the [H, Tq, Tk] bias it gives is added in
// every layer of that stack (MaskSpec::headBias, so every backend honours it); RMS-style layer norm
// w · x / √(mean(x²) + ε) with no mean and no bias; pre-norm blocks without biases; feed-forward relu
// (wo(relu(wi x))) or gated (wo(act(wi_0 x) · wi_1 x), "gated-gelu" = gelu_new); the decoder output times
// d_model^-½ before lm_head when config.json does not say tie_word_embeddings false (original T5).
//
// BART and Marian (same block, different embeddings): token embedding × √d_model when scale_embedding, plus
// positions — BART learned, row p + 2 of embed_positions (not padding-aware), then layernorm_embedding; Marian
// sinusoidal from 0 ([sin | cos] halves, not interleaved), no embedding layer norm. Post-norm layers with biases
// and LayerNorm (ε 1e-5): x = LN(x + SA(x)); decoder x = LN(x + CA(x, enc)); x = LN(x + fc2(act(fc1(x)))); scores
// scaled by d_head^-½; logits = h · lm_headᵀ + final_logits_bias. The two stacks may have different head counts.
//
// Units and layouts: batch 1, S source and T target tokens, D = d_model; row-major fp32; attention weights
// [queries, keys]; logits [T, vocab]; layers and heads counted from 0.

#include <attnscope/attention.h>
#include <attnscope/model.h>
#include <attnscope/status.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

// config.json fields after defaults (transformers' T5Config); names in comments are the config.json keys.
struct T5Config {
    std::int64_t vocabSize = 32128;          // vocab_size
    std::int64_t dModel = 512;               // d_model
    std::int64_t dKv = 64;                   // d_kv (head dim; H · d_kv may differ from d_model)
    std::int64_t dFf = 2048;                 // d_ff
    std::int64_t layers = 6;                 // num_layers (encoder)
    std::int64_t decoderLayers = 6;          // num_decoder_layers, null ⇒ num_layers
    std::int64_t heads = 8;                  // num_heads (both stacks)
    std::int64_t buckets = 32;               // relative_attention_num_buckets
    std::int64_t maxDistance = 128;          // relative_attention_max_distance
    float layerNormEps = 1e-6f;              // layer_norm_epsilon
    bool gated = false;                      // feed_forward_proj "gated-ACT"
    Activation activation = Activation::Relu;   // ACT of feed_forward_proj ("gated-gelu" → gelu_new)
    bool scaleDecoderOutputs = true;         // tie_word_embeddings != false (v5's scale_decoder_outputs)
    std::int64_t decoderStartTokenId = 0;    // decoder_start_token_id (T5: the pad id, 0)
    std::int64_t eosTokenId = 1;             // eos_token_id
};

// Parses config.json text; `source` starts every message, which names the field. model_type must be "t5".
Result<T5Config> parseT5Config(std::string_view json, const std::string &source);

// T5's _relative_position_bucket for rel = key − query: bidirectional (encoder) or causal (decoder) buckets,
// the log-spaced part computed in float32 as torch does.
std::int64_t t5RelativeBucket(std::int64_t rel, bool bidirectional, std::int64_t buckets, std::int64_t maxDistance);

struct Seq2SeqOptions {
    Backend backend = Backend::Auto;
    int threads = 0;                              // 0: all hardware threads
    std::size_t weightsBudgetBytes = std::size_t(1) << 30;
    bool captureAttentions = true;                // every layer and head of all three kinds
    bool computeLogits = true;
    CancelFn cancel;                              // polled between layers and inside attention
};

struct Seq2SeqResult {
    std::int64_t sourceLength = 0, targetLength = 0;   // S, T
    std::vector<std::vector<float>> encoderAttentions;   // [layers · heads] layer-major, each [S, S]
    std::vector<std::vector<float>> decoderAttentions;   // [decoderLayers · heads], each [T, T]
    std::vector<std::vector<float>> crossAttentions;     // [decoderLayers · heads], each [T, S]
    std::vector<float> encoderHidden;                    // [S, D] after the encoder's final layer norm
    std::vector<float> decoderHidden;                    // [T, D] after the decoder's final layer norm (unscaled)
    std::vector<float> logits;                           // [T, vocab]
    Backend backend = Backend::Auto;                     // the attention backend that ran
};

// config.json fields of BART and Marian after defaults (transformers' BartConfig / MarianConfig).
struct BartConfig {
    bool marian = false;                     // model_type "marian": sinusoidal positions, no layernorm_embedding
    std::int64_t vocabSize = 50265;          // vocab_size (the encoder's; the shared embedding's rows)
    std::int64_t decoderVocabSize = 50265;   // decoder_vocab_size (Marian; null ⇒ vocab_size): lm_head's rows
    std::int64_t dModel = 1024;              // d_model
    std::int64_t encoderLayers = 12, decoderLayers = 12;              // encoder_layers, decoder_layers
    std::int64_t encoderHeads = 16, decoderHeads = 16;                // encoder_attention_heads, decoder_attention_heads
    std::int64_t encoderFfn = 4096, decoderFfn = 4096;                // encoder_ffn_dim, decoder_ffn_dim
    Activation activation = Activation::Gelu;                        // activation_function
    std::int64_t maxPositions = 1024;        // max_position_embeddings
    bool scaleEmbedding = false;             // scale_embedding: token embeddings × √d_model
    bool shareEmbeddings = true;             // Marian's share_encoder_decoder_embeddings (BART: always)
    std::int64_t padTokenId = 1;             // pad_token_id
    std::int64_t eosTokenId = 2;             // eos_token_id
    std::int64_t decoderStartTokenId = 2;    // decoder_start_token_id
    float layerNormEps = 1e-5f;              // nn.LayerNorm's default; not in config.json
};
Result<BartConfig> parseBartConfig(std::string_view json, const std::string &source);   // model_type "bart" | "marian"

// Marian's sinusoidal position table [positions, dim] as transformers builds it (angles in double, then float).
std::vector<float> marianSinusoidalPositions(std::int64_t positions, std::int64_t dim);

enum class Seq2SeqFamily { T5, Bart, Marian };

// What every family has: the run document's `model` block, the heads a request may name, generation's ids.
struct Seq2SeqShape {
    Seq2SeqFamily family = Seq2SeqFamily::T5;
    std::string modelType;           // "t5", "bart", "marian"
    std::string architectureClass;   // "T5ForConditionalGeneration", "BartForConditionalGeneration", "MarianMTModel"
    std::int64_t vocabSize = 0;      // source ids are in [0, vocabSize)
    std::int64_t decoderVocabSize = 0;   // target ids and logits' columns
    std::int64_t dModel = 0;
    std::int64_t encoderLayers = 0, decoderLayers = 0;
    std::int64_t encoderHeads = 0, decoderHeads = 0;   // cross-attention has the decoder's heads
    std::int64_t encoderDHead = 0, decoderDHead = 0;
    std::int64_t decoderStartTokenId = 0, eosTokenId = 0;
    std::int64_t maxPositions = 0;   // 0: no limit (T5's relative positions)
};
// Whether config.json says model_type "t5", "bart" or "marian".
bool isSeq2SeqFolder(const std::string &folder);

namespace detail { struct Seq2SeqWeights; }

class Seq2SeqModel {
public:
    // config.json + model.safetensors (F32/F16/BF16), by model_type. Tensors are checked against the config's
    // shapes; an unused tensor is an error naming it. Messages name the file and the field or tensor.
    static Result<Seq2SeqModel> loadFolder(const std::string &folder);
    const Seq2SeqShape &shape() const;
    const T5Config *t5Config() const;       // null unless a T5 folder
    const BartConfig *bartConfig() const;   // null unless a BART or Marian folder
    const std::string &source() const;

    // Teacher forcing: `source` ids through the encoder, `decoderInput` ids (starting with the decoder start token,
    // as transformers' decoder_input_ids) through the decoder. Source ids in [0, vocabSize), decoder ids in
    // [0, decoderVocabSize), both non-empty (and at most maxPositions where the family has learned positions).
    Result<Seq2SeqResult> forward(const std::vector<std::int64_t> &source, const std::vector<std::int64_t> &decoderInput,
                                  const Seq2SeqOptions &options = {}) const;

private:
    explicit Seq2SeqModel(std::shared_ptr<const detail::Seq2SeqWeights> w) : m_w(std::move(w)) {}
    std::shared_ptr<const detail::Seq2SeqWeights> m_w;
};

} // namespace attn
