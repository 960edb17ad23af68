// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The in-memory form of a model, shared by every architecture. All matrices are row-major fp32 and stored as
// [in, out] (y = x·W + b), whatever the checkpoint's layout: GPT-2's Conv1D already is [in, out], nn.Linear's
// [out, in] is transposed once at load. Fused projections (GPT-2 c_attn, Phi-3 qkv_proj / gate_up_proj, GPT-NeoX
// query_key_value) are split at load, so the forward pass sees one layout for every family.

#include <attnscope/model.h>

#include <cstdint>
#include <string>
#include <vector>

namespace attn::detail {

struct Linear {
    std::int64_t in = 0, out = 0;
    std::vector<float> w;   // [in, out]
    std::vector<float> b;   // [out] or empty
};

// LayerNorm (γ, β) or RMSNorm (γ only; Gemma's stored γ − 1 has had its 1 added back).
struct LayerNormWeights {
    std::vector<float> gamma, beta;   // [D] (or [dHead] for QK-norm); beta empty for RMSNorm
};

struct Block {
    LayerNormWeights ln1, ln2;   // pre-norm: before attention / before the MLP. Post-norm (BERT): after each.
    LayerNormWeights postAttn, postMlp;   // Gemma 2/3 sandwich norms on each branch's output; else empty
    LayerNormWeights qNorm, kNorm;        // QK-norm over dHead (Qwen3, Gemma 3); else empty
    Linear q;                    // [D, H·dHead]; heads are contiguous dHead column chunks
    Linear k, v;                 // [D, Hkv·dHead]
    Linear o;                    // [H·dHead, D]
    Linear gate;                 // gated MLPs: [D, I]; else empty
    Linear fc1, fc2;             // up [D, I], down [I, D]; empty for synthetic models
};

struct ModelWeights {
    ModelConfig config;
    std::string source;
    std::vector<float> tokenEmbedding;      // [vocab, D]
    std::vector<float> positionEmbedding;   // [maxPositions, D] (learned) or empty
    std::vector<float> typeEmbedding;       // [typeVocab, D] (BERT) or empty
    LayerNormWeights embeddingNorm;         // encoders: after the embedding sum
    std::vector<Block> blocks;
    LayerNormWeights finalNorm;             // decoders: GPT-2 ln_f, model.norm, final_layer_norm; synthetic final LN
    Linear pooler;                          // BERT pooler.dense, RoBERTa classifier.dense, DistilBERT pre_classifier
    Activation poolerActivation = Activation::Tanh;   // DistilBERT: ReLU
    Linear mlmTransform;                    // BERT cls.predictions.transform.dense [D, D] (and the others' equivalents)
    LayerNormWeights mlmNorm;               // its LayerNorm
    Activation mlmActivation = Activation::Gelu;   // between the transform and its LayerNorm
    std::vector<float> lmHead;              // [vocab, D] when untied; else empty (the token embeddings are used)
    std::vector<float> lmBias;              // [vocab] (masked-LM decoder bias) or empty
    Linear classifier;                      // [D, numLabels]
};

// Builders used by Model (loader.cpp, model.cpp).
Result<ModelWeights> loadCheckpointFolder(const std::string &folder, const LoadOptions &options);
Result<ModelWeights> buildSynthetic(const ModelConfig &config);

// The budget check both builders make before allocating: "needs X GiB, Y GiB available".
Status checkMemoryBudget(std::uint64_t neededBytes, const LoadOptions &options, const std::string &what);

} // namespace attn::detail
