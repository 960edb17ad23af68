// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The in-memory form of a ViT (vit.h): row-major fp32, linear maps as [in, out] like weights.h.
#include "model/weights.h"

#include <attnscope/vit.h>

#include <optional>
#include <string>
#include <vector>

namespace attn::detail {

struct VitBlock {
    LayerNormWeights lnBefore, lnAfter;
    Linear q, k, v, o;   // [D, H·dHead] ×3 (bias empty without qkv_bias), [H·dHead, D]
    Linear fc1, fc2;     // [D, I], [I, D]
};

struct VitWeights {
    VitConfig config;
    std::string source;
    std::optional<PreprocessorConfig> preprocessor;
    std::vector<float> clsToken;             // [D]
    std::vector<float> distillationToken;    // [D] DeiT, else empty
    std::vector<float> positions;            // [S + rows₀·cols₀, D], rows₀ × cols₀ the config's patch grid
    Linear patch;                            // [C·P_h·P_w, D], input in (channel, y, x) order
    std::vector<VitBlock> blocks;
    LayerNormWeights finalNorm;
    Linear pooler;                           // [D, D] or empty
    Linear classifier;                       // [D, numLabels] or empty (DeiT with teacher: the CLS head)
    Linear distillationClassifier;           // [D, numLabels]: DeiT with teacher, else empty
};

Result<VitWeights> loadVitFolder(const std::string &folder);
Result<VitForwardResult> runVitForward(const VitWeights &w, const PixelValues &pixels, std::int64_t rows,
                                       std::int64_t cols, const VitForwardOptions &options);

} // namespace attn::detail
