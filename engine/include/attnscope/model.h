// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Transformer models: Hugging Face checkpoint folders (GPT-2, BERT, RoBERTa, DistilBERT, the LLaMA family,
// GPT-NeoX; docs/models.md) and synthetic models for raw experiments, with a forward pass that exposes hooks for
// capture and interventions.
//
// Sources (Model::open):
//   a folder      config.json + model.safetensors (F32, F16 or BF16; widened to fp32 tensor by tensor while the
//                 file is memory-mapped), or a sharded model.safetensors.index.json. Pickle checkpoints
//                 (pytorch_model.bin, *.pt, *.pth, *.ckpt) are never loaded: the error says how to convert them.
//                 Quantized checkpoints (quantization_config, GGUF files) and multimodal ones are refused by name.
//   "random:..."  a synthetic model, e.g. "random:layers=2,heads=4,d_model=64,seed=7,pe=sinusoidal" (see
//                 parseSyntheticSpec for the keys and their defaults).
//
// Architectures (one encoder and one decoder block, parameterised by ModelConfig):
//   GPT-2     pre-LN decoder: h = x + attn(ln_1(x)); x' = h + mlp(ln_2(h)); ln_f at the end. Learned positions,
//             causal mask, LM head tied to the token embeddings (or lm_head.weight when the checkpoint has one).
//   LLaMA family, GPT-NeoX   pre-norm RoPE decoders: x' = x + attn(n1(x)), then x'' = x' + mlp(n2(x'));
//             Gemma 2/3 also norm each branch's output; GPT-NeoX adds both branches to x in parallel.
//   BERT, RoBERTa, DistilBERT   post-LN encoders: h = LN(x + attn(x)); x' = LN(h + mlp(h)). Embeddings = word +
//             position (+ token type), then LayerNorm. Bidirectional, padding masked as keys. Heads: pooler,
//             masked-LM, sequence classifier.
//   Synthetic  pre-LN attention-only encoder: x' = x + attn(LN(x)), final LN; no MLP, no output head.
//
// Units and layouts: one sequence per forward pass (batch 1). L = number of tokens, D = d_model, H query heads,
// dHead = ModelConfig::dHead (D / H unless head_dim says otherwise). Every matrix is row-major fp32: hidden
// states [L, D], Q/K/V [H, L, dHead] per layer (with grouped-query attention K and V are shown per query head,
// as transformers' repeat_kv), attention weights and scores [L (queries), L (keys)], logits [L, vocab] or
// [numLabels]. Layers and heads are counted from 0.

#include <attnscope/attention.h>
#include <attnscope/mask.h>
#include <attnscope/modelconfig.h>
#include <attnscope/status.h>
#include <attnscope/tensor.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attn {

struct HeadRef {
    std::int64_t layer = 0;
    std::int64_t head = 0;
    bool operator==(const HeadRef &) const = default;
};

struct ForwardInput {
    std::vector<std::int64_t> tokenIds;        // [L]
    std::vector<std::int64_t> tokenTypeIds;    // [L] BERT segment ids; empty: all 0
    std::vector<std::uint8_t> attentionMask;   // [L] 1 = token, 0 = padding (masked as a key); empty: all 1
    // Instead of token ids: input embeddings [L, D] used in place of the token-embedding lookup (positions and
    // token types are still added). For raw experiments on synthetic models.
    std::vector<float> inputEmbeddings;
};

// Interventions on one head's attention (per forward pass).
struct HeadAblation {
    enum class Kind {
        Zero,   // the head's weights are multiplied by 0 (Hugging Face head_mask semantics): its output is 0,
                // and its captured weights are reported as 0
        Mean,   // the head's output at every position is replaced by its mean over the non-padding positions
                // of this input (or by `mean` when given: dHead values, e.g. a dataset mean)
    };
    HeadRef head;
    Kind kind = Kind::Zero;
    std::vector<float> mean;   // optional [dHead]
};

struct HeadOverride {
    enum class Kind {
        Permuted,   // each query row's weights are shuffled among its allowed keys (seeded, per row)
        Uniform,    // each query row spreads its weight uniformly over its allowed keys
    };
    HeadRef head;
    Kind kind = Kind::Uniform;
    std::uint64_t seed = 0;
};

// Knock a token out as a key: no query attends to position `position` (in `layer`, or every layer when -1).
struct KeyKnockout {
    std::int64_t position = 0;
    std::int64_t layer = -1;
};

struct ForwardOptions {
    Backend backend = Backend::Auto;
    int threads = 0;                               // 0: all hardware threads
    std::size_t weightsBudgetBytes = std::size_t(1) << 30;

    // Capture.
    WeightsRequest::Mode weightsMode = WeightsRequest::Mode::None;   // None, Heads (weightHeads), All
    std::vector<HeadRef> weightHeads;              // with Mode::Heads; order kept in ForwardResult::heads
    bool captureScores = false;                    // scaled scores + mask (-inf where masked) for those heads
    bool captureQKV = false;                       // Q, K, V of every layer [H, L, dHead]
    bool captureHiddenStates = false;              // Hugging Face output_hidden_states convention (below)
    bool computeLogits = true;                     // [L, vocab] can be large for real vocabularies

    // Masks. The model's own structure (causal for GPT-2, none for BERT) unless overridden; padding from
    // ForwardInput::attentionMask and key knockouts are always added on top.
    std::optional<MaskSpec> maskOverride;          // structure only: causal / window / block / allowed / additive

    // Interventions.
    std::vector<HeadAblation> ablations;
    std::vector<HeadOverride> overrides;
    std::vector<KeyKnockout> knockouts;
    bool dropPositions = false;                    // no learned / sinusoidal / RoPE / ALiBi positional information
    std::vector<std::int64_t> zeroEmbeddings;     // positions whose token embedding is replaced by 0 (occlusion
                                                   // baseline; positions and token types are still added)

    // Stop at this layer's attention: the layers before it run whole, then only its Q, K and V are computed (with
    // QK-norm and RoPE) and returned, with the mask and the score scale the layer would use, in
    // ForwardResult::attentionInputs. Nothing after that runs: no attention kernel in this layer, no later layer, no
    // logits, no lastHidden. For the attention map of inputs far too long for weights (attentionmap.h, the CLI's
    // `map`): everything held is O(L·D). -1: off. Weight requests, scores and QKV captures of this layer or later
    // are refused.
    std::int64_t stopAtLayer = -1;

    ProgressFn progress;                           // fraction of layers done, [0, 1]
    CancelFn cancel;                               // polled between layers and inside attention
};

// What a forward stopped at a layer (ForwardOptions::stopAtLayer) returns: that layer's attention operands as its
// projections lay them out ([L, heads·dHead], RoPE applied), seen as [1, heads, L, dHead] by the views, and the
// definition of its scores: s = scale · q·k, soft-capped when softcap > 0, plus mask (attention.h's order).
struct AttentionInputs {
    std::int64_t layer = -1;                   // -1: the forward did not stop
    std::int64_t length = 0, heads = 0, kvHeads = 0, dHead = 0;
    std::vector<float> q, k, v;                // [L, heads·dHead], [L, kvHeads·dHead] twice
    MaskSpec mask;                             // the layer's: structure or override, padding, knockouts, ALiBi
    float scale = 0.0f;
    float softcap = 0.0f;

    TensorView queries() const { return TensorView::fromBLHD(q.data(), 1, length, heads, dHead); }
    TensorView keys() const { return TensorView::fromBLHD(k.data(), 1, length, kvHeads, dHead); }
    TensorView values() const { return TensorView::fromBLHD(v.data(), 1, length, kvHeads, dHead); }
};

struct CapturedHead {
    HeadRef head;
    std::vector<float> weights;   // [L, L]: exactly what multiplied V (after ablations and overrides)
    std::vector<float> scores;    // [L, L] when captureScores: scale·q·kᵀ (soft-capped for Gemma 2) + mask bias, -inf where masked
};

struct LayerQKV {
    Tensor q, k, v;   // each [1, H, L, dHead], as the scores see them (after RoPE)
};

struct ForwardResult {
    std::int64_t length = 0;                   // L
    std::vector<CapturedHead> heads;           // requested order; Mode::All: layer-major, then head
    std::vector<LayerQKV> qkv;                 // [layers] when captureQKV
    // [layers + 1] entries of [L, D] when captureHiddenStates, as transformers' output_hidden_states:
    //   GPT-2: [0] embeddings (token + position), [i] the input of block i, [layers] ln_f(output of the last block)
    //   BERT:  [0] LayerNorm(embeddings), [i] the output of layer i - 1
    //   Synthetic: like GPT-2 (the last entry after the final LN)
    std::vector<std::vector<float>> hiddenStates;
    std::vector<float> lastHidden;             // [L, D]: the model's final hidden state (GPT-2: after ln_f)
    std::vector<float> pooled;                 // BERT with a pooler: [D] = tanh(W·h_[CLS] + b)
    ModelHead head = ModelHead::None;
    std::vector<float> logits;                 // CausalLM/MaskedLM: [L, vocab]; Classification: [numLabels]
    Backend backend = Backend::Auto;           // the attention backend that ran (Auto resolved)
    AttentionInputs attentionInputs;           // with ForwardOptions::stopAtLayer
};

// Model::withRandomizedParameters: which parameters of a copy are re-initialized (the model-parameter
// randomization sanity check, reference/faithfulness.md §3.14). Cascading top-down step k of L layers:
// outputHead = true, layers = {L-1, ..., L-k} (RandomizationSpec::cascade).
//
// Init: every chosen tensor (weights and biases alike) is redrawn from N(0, σ²), σ = the population standard
// deviation of that tensor in the original model, so a zero bias stays zero. Each tensor has its own stream,
// seeded from (seed, the tensor's name), so a tensor gets the same values whatever else is randomized with it:
// cascade step k+1 adds a layer to step k's randomized parameters and keeps their values.
// Never changed: embeddings (token, position, type and their LayerNorm). LayerNorm weights inside chosen blocks
// and the head are kept unless resetLayerNorms (then γ = 1, β = 0, PyTorch's reset_parameters()).
// The output head: the classifier and the pooler (BertForSequenceClassification), the MLM transform, its
// LayerNorm, decoder bias and untied decoder (BertForMaskedLM), the untied lm_head (GPT-2). An LM head tied to
// the token embeddings is untied in the copy: a new [vocab, D] matrix drawn with the embeddings' σ (name
// "lm_head.weight"), the embeddings themselves untouched. The final LayerNorm (GPT-2 ln_f) counts as a LayerNorm.
struct RandomizationSpec {
    enum Part : unsigned {                    // which tensors of the chosen layers (bit mask)
        Query = 1u, Key = 2u, Value = 4u,     // W_Q, W_K, W_V and their biases
        Output = 8u,                          // the attention output projection
        Mlp = 16u,                            // fc1, fc2 (none in synthetic models)
        AllParts = 31u,
    };
    bool outputHead = false;                  // the model must have one (ModelConfig::head != None)
    std::vector<std::int64_t> layers;         // blocks to re-initialize; each in [0, layers), no repeats
    unsigned parts = AllParts;                // non-zero when layers is non-empty
    bool resetLayerNorms = false;             // also LN γ/β of the chosen blocks (and the MLM head's LN)
    std::uint64_t seed = 42;

    // Cascading top-down step `topLayers` (0: the output head alone; `layers`: head and every block).
    static RandomizationSpec cascade(std::int64_t modelLayers, std::int64_t topLayers, std::uint64_t seed = 42);
    std::string describe() const;             // "head + layers 2..1", "layer 0 (q, k)", ...
};

// How a checkpoint is loaded.
struct LoadOptions {
    // The memory the fp32 weights may take. 0: attn::memoryBudget() (limits.h: --max-memory, else the available memory). The
    // estimate (config.json and the safetensors headers, before any tensor is read) over this budget is refused
    // with "needs X GiB, Y GiB available"; a larger value is the override (the CLI's --max-memory).
    std::uint64_t maxMemoryBytes = 0;
    ProgressFn progress;   // fraction of the checkpoint's bytes converted, [0, 1]; called from the loading thread
    CancelFn cancel;       // polled between tensors; returning true makes the load return ErrorCode::Cancelled
};

namespace detail { struct ModelWeights; }

// An immutable loaded model. Copies share the weights; forward() is const and may run on several threads at once.
class Model {
public:
    // A folder, or a "random:" spec.
    static Result<Model> open(const std::string &source, const LoadOptions &options = {});
    static Result<Model> loadFolder(const std::string &folder, const LoadOptions &options = {});
    static Result<Model> synthetic(const std::string &spec, const LoadOptions &options = {});

    const ModelConfig &config() const;
    const std::string &source() const;   // the folder path or the spec, as given
    std::string name() const;            // the folder's last component, or the spec

    // Checks the input against the model (ids in [0, vocab), length within the positions, mask sizes) and
    // the options (heads in range, ...); the message names the field.
    Status validate(const ForwardInput &input, const ForwardOptions &options) const;
    Result<ForwardResult> forward(const ForwardInput &input, const ForwardOptions &options = {}) const;

    // A deep copy with some parameters re-initialized at random (RandomizationSpec). Deterministic in the seed;
    // the copy has the same config and source. Errors name the field of the spec (a layer out of range, no
    // output head, nothing chosen). Memory: one full copy of the weights.
    Result<Model> withRandomizedParameters(const RandomizationSpec &spec) const;

    // Read-only access to the parameters by name, for tests and inspection: "embeddings.token", "layer.0.q.weight",
    // "layer.0.q.bias", "layer.0.ln1.gamma", "final_norm.beta", "pooler.weight", "classifier.weight",
    // "lm_head.weight", ... (only non-empty tensors; weights in the engine's [in, out] layout).
    std::vector<std::string> parameterNames() const;
    const std::vector<float> *parameter(const std::string &name) const;   // nullptr when none; valid while a copy lives

private:
    explicit Model(std::shared_ptr<const detail::ModelWeights> w) : m_w(std::move(w)) {}
    std::shared_ptr<const detail::ModelWeights> m_w;
};

} // namespace attn
