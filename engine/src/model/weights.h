// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The in-memory form of a model, shared by every architecture. All matrices are row-major fp32 and stored as
// [in, out] (y = x·W + b), whatever the checkpoint's layout: GPT-2's Conv1D already is [in, out], BERT's
// nn.Linear [out, in] is transposed once at load.

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

struct LayerNormWeights {
    std::vector<float> gamma, beta;   // [D]
};

struct Block {
    LayerNormWeights ln1, ln2;   // GPT-2 / synthetic: before attention / MLP. BERT: after attention / output.
    Linear q, k, v;              // [D, H·dHead] each; heads are contiguous dHead column chunks
    Linear o;                    // [H·dHead, D]
    Linear fc1, fc2;             // [D, I], [I, D]; empty for synthetic models
};

struct ModelWeights {
    ModelConfig config;
    std::string source;
    std::vector<float> tokenEmbedding;      // [vocab, D]
    std::vector<float> positionEmbedding;   // [maxPositions, D] (learned) or empty
    std::vector<float> typeEmbedding;       // [typeVocab, D] (BERT) or empty
    LayerNormWeights embeddingNorm;         // BERT: after the embedding sum
    std::vector<Block> blocks;
    LayerNormWeights finalNorm;             // GPT-2 ln_f, synthetic final LN
    Linear pooler;                          // BERT pooler.dense [D, D], empty when absent
    Linear mlmTransform;                    // BERT cls.predictions.transform.dense [D, D]
    LayerNormWeights mlmNorm;               // cls.predictions.transform.LayerNorm
    std::vector<float> lmHead;              // [vocab, D] when untied (GPT-2 lm_head / BERT decoder); else empty
    std::vector<float> lmBias;              // [vocab] (BERT cls.predictions.bias) or empty
    Linear classifier;                      // [D, numLabels]
};

// Builders used by Model (loader.cpp, synthetic.cpp).
Result<ModelWeights> loadCheckpointFolder(const std::string &folder);
Result<ModelWeights> buildSynthetic(const ModelConfig &config);

} // namespace attn::detail
