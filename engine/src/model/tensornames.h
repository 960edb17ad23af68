// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where each engine tensor lives in a family's checkpoint: one table per family, the Hub names as
// save_pretrained writes them (reference/formats-and-libraries.md §3, models-and-tokenizers.md §1.3, §2).
// Module names are given without ".weight" / ".bias"; "{}" in `layer` is the layer index. An empty name means
// the family has no such tensor.
#include <attnscope/modelconfig.h>

#include <string>
#include <utility>
#include <vector>

namespace attn::detail {

// How a fused attention projection splits into q, k and v.
enum class QkvFusion {
    Separate,        // q, k, v modules of their own
    Conv1DColumns,   // GPT-2 c_attn: Conv1D [D, 3D], columns [q | k | v]
    RowBlocks,       // Phi-3 qkv_proj: Linear [(H + 2·Hkv)·dHead, D], rows [Q | K | V]
    PerHeadRows,     // GPT-NeoX query_key_value: Linear [3D, D], rows per head [q_h | k_h | v_h] (view(H, 3·dHead))
};

struct TensorNames {
    std::vector<std::string> prefixes;       // stripped from checkpoint names when present
    std::vector<std::string> skipSuffixes;   // buffers that are not weights (causal masks, inv_freq, position_ids)
    std::vector<std::pair<std::string, std::string>> renames;   // old suffixes (LayerNorm.gamma → .weight)
    bool conv1d = false;                     // GPT-2: weights stored [in, out]

    std::string tokenEmbedding, positionEmbedding, typeEmbedding, embeddingNorm, finalNorm;
    std::string layer;                       // per-layer prefix, "{}" = index
    std::string ln1, ln2, postAttn, postMlp; // see Block in weights.h
    std::string q, k, v, qkv, o, qNorm, kNorm;
    QkvFusion qkvFusion = QkvFusion::Separate;
    std::string gate, up, gateUp, down;      // gateUp: Phi-3 gate_up_proj, rows [gate | up]
    std::vector<std::string> lmHead;         // untied LM head weight, first present wins

    // Encoder heads.
    std::string pooler;                      // the pooler of the base model (optional)
    std::string classifierPooler;            // the dense layer in front of a sequence classifier
    std::string classifier;
    std::string mlmTransform, mlmNorm, mlmDecoder;   // mlmDecoder: a full tensor name (tied: optional)
    std::vector<std::string> mlmBias;        // the decoder bias, first present wins
    // Tensors whose presence identifies the head when config.json has no "architectures".
    std::string classifierMarker, mlmMarker;
};

const TensorNames &tensorNames(const ModelConfig &config);

// A checkpoint name → the family's canonical name (prefix stripped, renamed); empty for buffers to skip.
std::string canonicalTensorName(const TensorNames &names, std::string name);

// "layers.{}.self_attn.q_proj" → "layers.3.self_attn.q_proj"
std::string layerName(const TensorNames &names, std::int64_t layer, const std::string &module);

} // namespace attn::detail
