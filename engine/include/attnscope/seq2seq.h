// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Encoder–decoder models, Qt-free: T5 checkpoint folders (model_type "t5": T5ForConditionalGeneration, original T5
// and v1.1 / Flan-T5), teacher-forced. Three attention kinds per pass:
//
//   encoder self-attention   [S, S]  bidirectional, + the encoder's relative-position bias
//   decoder self-attention   [T, T]  causal, + the decoder's relative-position bias
//   cross-attention          [T, S]  decoder queries × encoder keys and values, no bias
//
// T5 specifics (reference/models-and-tokenizers.md §3): no 1/√d scaling (scale 1); the bias table
// relative_attention_bias [buckets, H] lives in block 0 of each stack and the [H, Tq, Tk] bias it gives is added in
// every layer of that stack (MaskSpec::headBias, so every backend honours it); RMS-style layer norm
// w · x / √(mean(x²) + ε) with no mean and no bias; pre-norm blocks without biases; feed-forward relu
// (wo(relu(wi x))) or gated (wo(act(wi_0 x) · wi_1 x), "gated-gelu" = gelu_new); the decoder output times
// d_model^-½ before lm_head when config.json does not say tie_word_embeddings false (original T5).
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
bool isT5Folder(const std::string &folder);   // config.json exists and says model_type "t5"

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

namespace detail { struct T5Weights; }

class T5Model {
public:
    // config.json + model.safetensors (F32/F16/BF16). Tensors are checked against the config's shapes; an unused
    // tensor is an error naming it. lm_head.weight when present, else the shared embedding.
    static Result<T5Model> loadFolder(const std::string &folder);
    const T5Config &config() const;
    const std::string &source() const;

    // Teacher forcing: `source` ids through the encoder, `decoderInput` ids (starting with the decoder start token,
    // as transformers' decoder_input_ids) through the decoder. Ids in [0, vocab), both non-empty.
    Result<Seq2SeqResult> forward(const std::vector<std::int64_t> &source, const std::vector<std::int64_t> &decoderInput,
                                  const Seq2SeqOptions &options = {}) const;

private:
    explicit T5Model(std::shared_ptr<const detail::T5Weights> w) : m_w(std::move(w)) {}
    std::shared_ptr<const detail::T5Weights> m_w;
};

} // namespace attn
