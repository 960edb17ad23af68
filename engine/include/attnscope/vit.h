// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Vision Transformers: Hugging Face ViT checkpoint folders (model_type "vit": ViTModel, ViTForImageClassification)
// and DeiT folders (model_type "deit": DeiTModel, DeiTForImageClassification, DeiTForImageClassificationWithTeacher),
// Qt-free. The input is pixel_values [3, H, W] float32 (image.h: preprocessImage or readPixelValuesNpy).
//
//   patches   the image cut into rows × cols patches of P_h × P_w pixels (rows = ⌊H / P_h⌋, cols = ⌊W / P_w⌋,
//             pixels past the last whole patch ignored, as the stride-P convolution does), patch index
//             = row · cols + col. The patch embedding Conv2d(C, D, kernel = stride = P) is a linear map of each
//             patch flattened in (channel, y, x) order: e = W[D, C·P_h·P_w] · patch + b.
//   tokens    ViT: x = [cls_token; e_0 … e_{N−1}] + position_embeddings: T = 1 + N, the CLS token at index 0 (one
//             special token). DeiT: x = [cls_token; distillation_token; e_0 … e_{N−1}] + position_embeddings:
//             T = 2 + N, CLS at 0 and the distillation token at 1 (S = 2 special tokens), every DeiT class alike.
//             Patch p is token S + p. An image of another size than config.json's image_size needs
//             interpolatePositions (transformers' interpolate_pos_encoding: the √N₀ × √N₀ patch grid resized
//             bicubically to rows × cols, image.h interpolatePositionGrid; the S special positions kept).
//   layers    pre-LN: x += O(attention(layernorm_before(x))); x += fc2(act(fc1(layernorm_after(x)))); then the final
//             layernorm. Attention is bidirectional, scale 1/√dHead, through attn::attention (every backend).
//   heads     ViTModel / DeiTModel: the pooler tanh(W·h_CLS + b) when the checkpoint has pooler.dense;
//             ViTForImageClassification / DeiTForImageClassification: logits = classifier(h_CLS) [num_labels], h_CLS
//             the final layernorm's row 0; DeiTForImageClassificationWithTeacher: logits = (cls_classifier(h_CLS)
//             + distillation_classifier(h_DIST)) / 2, h_DIST row 1, both halves kept (clsLogits, distillationLogits).
//
// Units and layouts: batch 1; D = hidden_size; every matrix row-major fp32; hidden states [T, D]; attention
// weights [T (queries), T (keys)]; layers and heads counted from 0.

#include <attnscope/attention.h>
#include <attnscope/image.h>
#include <attnscope/model.h>
#include <attnscope/status.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

// config.json fields, after defaults (transformers' ViTConfig). Names in comments are the config.json keys.
struct VitConfig {
    std::string modelType = "vit";          // model_type: "vit" or "deit"
    std::string architectureClass;          // architectures[0]: "ViTModel", "ViTForImageClassification", "DeiTModel",
                                            // "DeiTForImageClassification", "DeiTForImageClassificationWithTeacher"
    std::int64_t hiddenSize = 768;          // hidden_size
    std::int64_t layers = 12;               // num_hidden_layers
    std::int64_t heads = 12;                // num_attention_heads
    std::int64_t dHead = 64;                // head_dim, else hidden_size / num_attention_heads
    std::int64_t intermediate = 3072;       // intermediate_size
    std::int64_t imageHeight = 224;         // image_size: an integer or [height, width]
    std::int64_t imageWidth = 224;
    std::int64_t patchHeight = 16;          // patch_size: an integer or [height, width]
    std::int64_t patchWidth = 16;
    std::int64_t channels = 3;              // num_channels
    Activation activation = Activation::Gelu;   // hidden_act
    float layerNormEps = 1e-12f;            // layer_norm_eps
    bool qkvBias = true;                    // qkv_bias
    Activation poolerActivation = Activation::Tanh;   // pooler_act
    bool classifier = false;                // an image classifier (logits)
    bool teacher = false;                   // DeiTForImageClassificationWithTeacher: two heads, logits their mean
    std::int64_t numLabels = 0;             // classifiers: len(id2label) or num_labels (default 2)
    std::vector<std::string> labels;        // id2label in id order ("LABEL_0", ... when absent)

    std::int64_t patchRows() const { return imageHeight / patchHeight; }
    std::int64_t patchCols() const { return imageWidth / patchWidth; }
    // S, the tokens before the patches: [CLS] (ViT), [CLS] [DIST] (DeiT).
    std::int64_t specialTokens() const { return modelType == "deit" ? 2 : 1; }
};

// Parses config.json text; `source` starts every message, which names the field. model_type must be "vit" or "deit".
Result<VitConfig> parseVitConfig(std::string_view json, const std::string &source);

// A token's name, one convention for the CLI's JSON, the GUI and the figures: "[CLS]", "[DIST]" (DeiT's token 1),
// then "r{row}c{col}" for patch p = token − S (rows and columns counted from 0).
std::string vitTokenLabel(std::int64_t token, std::int64_t specialTokens, std::int64_t cols);
// "ViT" or "DeiT", for titles and the exports' family.
std::string vitFamily(const VitConfig &config);

// True when `folder`/config.json exists and says model_type "vit" or "deit" (how the CLI and GUI pick VitModel over
// Model).
bool isVitFolder(const std::string &folder);

struct VitForwardOptions {
    Backend backend = Backend::Auto;
    int threads = 0;                              // 0: all hardware threads
    std::size_t weightsBudgetBytes = std::size_t(1) << 30;
    bool captureAttentions = true;                // every layer and head
    bool captureHiddenStates = false;             // transformers' output_hidden_states (below)
    bool interpolatePositions = false;            // another image size than config.json's (see the top)
    ProgressFn progress;                          // fraction of layers done, [0, 1]
    CancelFn cancel;                              // polled between layers and inside attention
};

struct VitForwardResult {
    std::int64_t patchRows = 0, patchCols = 0;
    std::int64_t specialTokens = 1;               // S: 1 ([CLS]) for ViT, 2 ([CLS] [DIST]) for DeiT
    std::int64_t length = 0;                      // T = specialTokens + patchRows · patchCols
    std::vector<std::vector<float>> attentions;   // [layers · heads] layer-major, each [T, T], when captured
    // [layers + 1] entries of [T, D]: [0] the embeddings (CLS, patches, positions), [i] the output of layer i − 1
    // (before the final layernorm), as transformers' output_hidden_states.
    std::vector<std::vector<float>> hiddenStates;
    std::vector<float> lastHidden;                // [T, D] after the final layernorm
    std::vector<float> pooled;                    // [D] ViTModel with a pooler, else empty
    std::vector<float> logits;                    // [numLabels] classifiers, else empty
    std::vector<float> clsLogits, distillationLogits;   // [numLabels] each for a DeiT with teacher, else empty
    Backend backend = Backend::Auto;              // the attention backend that ran
};

namespace detail { struct VitWeights; }

// An immutable loaded ViT. Copies share the weights; forward() is const and may run on several threads at once.
class VitModel {
public:
    // config.json + model.safetensors (F32/F16/BF16, widened to fp32; an optional "vit." / "deit." prefix), and
    // preprocessor_config.json when the folder has one. Every tensor is checked against the shape config.json
    // implies; a missing, misshapen or unexpected tensor is an error naming the file and the tensor.
    static Result<VitModel> loadFolder(const std::string &folder);

    const VitConfig &config() const;
    const std::string &source() const;                            // the folder, as given
    std::string name() const;                                     // the folder's last component
    const std::optional<PreprocessorConfig> &preprocessor() const;   // preprocessor_config.json, when present

    // The pixel grid [rows, cols] an input of this size gives, or an error naming the field: channels, a size
    // other than image_size without interpolatePositions, fewer pixels than one patch.
    Result<ImageSize> patchGrid(const PixelValues &pixels, const VitForwardOptions &options) const;
    Result<VitForwardResult> forward(const PixelValues &pixels, const VitForwardOptions &options = {}) const;

private:
    explicit VitModel(std::shared_ptr<const detail::VitWeights> w) : m_w(std::move(w)) {}
    std::shared_ptr<const detail::VitWeights> m_w;
};

} // namespace attn
