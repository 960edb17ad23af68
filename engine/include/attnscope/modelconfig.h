// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a model is, after config.json has been read: the architecture, its sizes, and every choice in which the
// supported families differ (norms, activation, MLP, RoPE and its scaling, biases, QK-norm, sandwich norms,
// parallel residual, soft-caps, per-layer sliding windows, grouped-query attention, tied heads, embedding scale).
// One decoder and one encoder implementation (engine/src/model) read these fields; a family is a mapping from its
// config.json onto them plus a table of tensor names (docs/models.md lists the families).
//
// Units: sizes are counts; windows are in Hugging Face's convention (sliding_window = W: a query sees W keys,
// itself included); RoPE θ in radians per position at dimension pair 0; epsilons and soft-caps are plain numbers.
// Layers and heads are counted from 0.

#include <attnscope/status.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attn {

enum class Architecture {
    Gpt2,        // model_type "gpt2": learned positions, pre-LN decoder
    Bert,        // model_type "bert": post-LN encoder
    Synthetic,   // "random:..." specs
    Llama,       // the LLaMA-style RoPE decoders: llama (also SmolLM2), mistral, qwen2, qwen3, gemma, gemma2,
                 // gemma3_text, phi3
    GptNeoX,     // model_type "gpt_neox" (Pythia): parallel residual, partial rotary, fused per-head QKV
    Roberta,     // model_type "roberta": BERT with positions counted from padding_idx + 1
    DistilBert,  // model_type "distilbert": BERT without token types or pooler
};
std::string architectureName(Architecture a);   // "gpt2", "bert", "synthetic", "llama", "gpt_neox", "roberta", "distilbert"

enum class Activation { Gelu, GeluNew, GeluFast, QuickGelu, Relu, Silu, Tanh };
std::string activationName(Activation a);       // the transformers ACT2FN name: "gelu", "gelu_new", ...
std::optional<Activation> parseActivation(const std::string &name);   // also accepts "gelu_pytorch_tanh", "swish"

// What the model outputs besides hidden states.
enum class ModelHead {
    None,            // BertModel, LlamaModel, synthetic models: hidden states (and the pooler) only
    CausalLM,        // GPT-2, *ForCausalLM: next-token logits [L, vocab]
    MaskedLM,        // BertForMaskedLM, RobertaForMaskedLM, DistilBertForMaskedLM: token logits [L, vocab]
    Classification,  // *ForSequenceClassification (encoders): class logits [numLabels] from the first token
};

enum class PositionKind { None, Learned, Sinusoidal, RoPE, ALiBi };

enum class NormKind {
    LayerNorm,   // (x − mean) / sqrt(var + eps) · γ + β
    RMSNorm,     // x / sqrt(mean(x²) + eps) · γ, no bias (Gemma stores γ − 1; the loader adds the 1)
};

// RoPE frequencies (transformers' ROPE_INIT_FUNCTIONS). inv_freq[k] for k < rotaryDim / 2, then per position p:
// θ_k = p · inv_freq[k], and cos/sin are multiplied by the attention factor (so q·k scales by its square).
enum class RopeType {
    Default,    // base^(−2k/dim)
    Linear,     // default / factor
    Dynamic,    // NTK: base grows with the input length beyond maxPositions (recomputed per forward pass)
    Yarn,       // interpolation/extrapolation ramp between β_fast and β_slow, attention factor from mscale
    LongRope,   // 1 / (ext_k · base^(2k/dim)), ext = longFactor beyond originalMaxPositions, else shortFactor
    Llama3,     // Llama 3.1 band-wise scaling between low_freq_factor and high_freq_factor
};
std::string ropeTypeName(RopeType t);   // the config.json rope_type: "default", "linear", ...

struct RopeConfig {
    RopeType type = RopeType::Default;
    double theta = 10000.0;                 // rope_theta (base)
    double factor = 1.0;                    // linear, dynamic, yarn, llama3, longrope
    std::int64_t originalMaxPositions = 0;  // yarn, llama3, longrope: the pre-training context length
    double lowFreqFactor = 1.0, highFreqFactor = 4.0;   // llama3
    double betaFast = 32.0, betaSlow = 1.0;             // yarn
    bool truncate = true;                               // yarn: round the correction range
    std::optional<double> mscale, mscaleAllDim;         // yarn
    std::optional<double> attentionFactor;              // yarn, longrope: given in the config
    std::vector<double> shortFactor, longFactor;        // longrope: [rotaryDim / 2] each
    bool operator==(const RopeConfig &) const = default;
};

// How one layer attends (besides the model's own causal or bidirectional structure).
struct LayerAttention {
    std::int64_t window = 0;    // Hugging Face sliding_window W (W keys including the query itself); 0: full
    bool localRope = false;     // uses ModelConfig::ropeLocal (Gemma 3 sliding layers) instead of ModelConfig::rope
    bool operator==(const LayerAttention &) const = default;
};

// Fields of config.json this engine uses, after aliases and defaults (reference: transformers'
// configuration_*.py, pinned in tools/requirements.txt). Names in comments are the config.json keys.
struct ModelConfig {
    Architecture architecture = Architecture::Gpt2;
    std::string modelType;                   // model_type ("qwen2", "gemma2", ...)
    std::string family;                      // display name of the family: "GPT-2", "Qwen2", "Gemma 2", ...
    std::string architectureClass;           // architectures[0], or derived ("GPT2LMHeadModel") when absent
    ModelHead head = ModelHead::None;
    std::int64_t vocabSize = 0;              // vocab_size
    std::int64_t dModel = 0;                 // n_embd | hidden_size | dim
    std::int64_t layers = 0;                 // n_layer | num_hidden_layers | n_layers
    std::int64_t heads = 0;                  // n_head | num_attention_heads | n_heads (query heads)
    std::int64_t kvHeads = 0;                // num_key_value_heads (null: heads); query head h reads K/V head
                                             // h / (heads / kvHeads)
    std::int64_t dHead = 0;                  // head_dim (null: dModel / heads); may differ from dModel / heads
    std::int64_t intermediate = 0;           // n_inner (null: 4·n_embd) | intermediate_size | hidden_dim; 0 for synthetic
    std::int64_t maxPositions = 0;           // n_positions | max_position_embeddings; 0: unlimited
    std::int64_t typeVocabSize = 0;          // BERT / RoBERTa type_vocab_size; 0: no token types
    Activation activation = Activation::GeluNew;   // activation_function | hidden_act | hidden_activation
    float layerNormEps = 1e-5f;              // layer_norm_epsilon | layer_norm_eps | rms_norm_eps
    PositionKind positions = PositionKind::Learned;
    bool causal = false;                     // decoders: true
    bool scaleAttnWeights = true;            // GPT-2 scale_attn_weights: scores / sqrt(dHead)
    bool scaleAttnByInverseLayerIdx = false; // GPT-2: scores additionally / (layer + 1)
    std::int64_t numLabels = 0;              // classifiers: len(id2label) or num_labels (default 2)
    std::vector<std::string> labels;         // id2label in id order ("LABEL_0", ... when absent)
    std::optional<std::int64_t> padTokenId, bosTokenId, eosTokenId;
    std::uint64_t seed = 0;                  // synthetic models only

    // The block, as the families differ.
    NormKind norm = NormKind::LayerNorm;
    bool normPlusOne = false;                // Gemma: RMSNorm weights are stored as γ − 1
    bool postNorm = false;                   // BERT-style encoders: LN(x + sublayer(x)); else pre-norm
    bool sandwichNorms = false;              // Gemma 2/3: also a norm on each branch's output before the residual add
    bool parallelResidual = false;           // GPT-NeoX use_parallel_residual: x + attn(LN1(x)) + mlp(LN2(x))
    bool gatedMlp = false;                   // down(act(gate(x)) · up(x)) (SwiGLU, GeGLU); else down(act(up(x)))
    bool qkNorm = false;                     // Qwen3, Gemma 3: RMSNorm over dHead on each q and k head before RoPE
    bool attentionBias = false;              // biases on q, k, v (Qwen2 always; attention_bias elsewhere)
    bool outputBias = false;                 // bias on the attention output projection
    bool mlpBias = false;                    // biases on the MLP projections
    std::optional<double> queryPreAttnScalar;   // Gemma 2/3: scores scale by query_pre_attn_scalar^-½, not dHead^-½
    float attnSoftcap = 0.0f;                // Gemma 2 attn_logit_softcapping: s ← cap·tanh(s/cap); 0: off
    float finalSoftcap = 0.0f;               // Gemma 2/3 final_logit_softcapping on the logits; 0: off
    float embeddingScale = 1.0f;             // Gemma: √dModel rounded to the embedding's storage dtype
    bool tiedEmbeddings = true;              // the LM head is the token embedding matrix (tie_word_embeddings)
    std::int64_t positionOffset = 0;         // RoBERTa: positions start at padding_idx + 1, padding at padding_idx

    // Rotary positions (positions == RoPE).
    std::int64_t rotaryDim = 0;              // RoPE rotates the first rotaryDim dimensions of each head (partial
                                             // rotary: rotary_pct, partial_rotary_factor); the rest pass through
    RopeConfig rope;                         // every layer, or the full-attention layers of Gemma 3
    RopeConfig ropeLocal;                    // Gemma 3 sliding layers (rope_local_base_freq, default type)
    std::vector<LayerAttention> layerAttention;   // [layers]: each layer's window (empty: every layer full)
};

// The attention scale of a layer: 1/sqrt(dHead) (GPT-2 scale_attn_weights false: 1; scale_attn_by_inverse_layer_idx:
// also / (layer + 1); Gemma 2/3: query_pre_attn_scalar^-½), as a float32 like transformers' eager attention.
float attentionScale(const ModelConfig &c, std::int64_t layer);
// The layer's window in Hugging Face's convention (0: full attention).
std::int64_t layerWindow(const ModelConfig &c, std::int64_t layer);
// Query heads sharing each K/V head: [kvHeads] lists of query heads (one head per list without GQA).
std::vector<std::vector<std::int64_t>> kvGroups(const ModelConfig &c);

// The RoPE inverse frequencies [rotaryDim / 2] and the cos/sin factor layer `layer` uses for an input of `length`
// tokens (transformers' rotary_emb.inv_freq and attention_scaling, float32). Empty without RoPE.
std::vector<float> ropeInverseFrequencies(const ModelConfig &c, std::int64_t layer, std::int64_t length,
                                          float *attentionFactor = nullptr);

// Parses config.json text. `label` (usually the file path) starts every message; a message names the field.
// Every count or size is checked against a stated limit (kConfigLimits) and the weights it implies against
// the memory they would take before anything is allocated; non-finite and absurd numbers are refused.
Result<ModelConfig> parseModelConfig(const std::string &jsonText, const std::string &label);

// The limits parseModelConfig enforces (docs/models.md, docs/reliability.md).
struct ConfigLimits {
    std::int64_t vocab = std::int64_t(1) << 24;          // vocab_size
    std::int64_t width = std::int64_t(1) << 16;          // hidden_size, intermediate / 16
    std::int64_t intermediate = std::int64_t(1) << 20;   // intermediate_size
    std::int64_t layers = 1024;                          // num_hidden_layers
    std::int64_t heads = 4096;                           // num_attention_heads, num_key_value_heads
    std::int64_t headDim = 4096;                         // head_dim
    std::int64_t positions = std::int64_t(1) << 26;      // max_position_embeddings (learned: also the memory)
    std::int64_t typeVocab = 1024;                       // type_vocab_size
    std::int64_t labels = 100000;                        // num_labels, id2label entries
    double minEps = 1e-30;                               // norm epsilons in [minEps, maxEps]: a float32 that
    double maxEps = 1.0;                                 // stays normal (1e-50 would become 0, 1e300 infinity)
};
inline constexpr ConfigLimits kConfigLimits{};

// "random:layers=2,heads=4,d_model=64,seed=7[,pe=none|sinusoidal|rope|alibi][,vocab=256][,causal=0|1]"
// Keys may come in any order; each at most once. Defaults: layers 1, heads 4, d_model 64, seed 0, pe none,
// vocab 256 (token ids are bytes), causal 0, max positions unlimited. d_model must be a multiple of heads.
Result<ModelConfig> parseSyntheticSpec(const std::string &spec);

// fp32 bytes of the weights a config implies (embeddings, blocks, heads), with overflow checks; nullopt if the
// count overflows 64 bits. The loader compares this (or the checkpoint's own tensor sizes) with the budget.
std::optional<std::uint64_t> estimatedWeightBytes(const ModelConfig &c);

} // namespace attn
