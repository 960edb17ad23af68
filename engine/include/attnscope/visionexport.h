// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The document of a Vision Transformer run (docs/json-format.md, "Vision runs"): `attnscope-cli run --image` and
// the Vision workspace's Export Data write it. Qt-free; floats as the shortest decimal that reads back to the same
// float32.

#include <attnscope/vit.h>

#include <cstdint>
#include <string>

namespace attn {

struct VisionRunInfo {
    std::string image;            // the image file given, or empty (then null)
    std::string pixelValues;      // the --pixel-values file given, or empty (then null)
    std::int64_t imageWidth = 0;  // the decoded image (0: null)
    std::int64_t imageHeight = 0;
    int threads = 0;
    bool interpolatePositions = false;
    std::int64_t topK = 5;        // predictions listed
};

// Appends `text` as a JSON string (quotes, escapes), as the document writes its strings.
void appendJsonString(std::string &out, const std::string &text);

// `analysesJson`: the "analyses" object's JSON text ("{}" when empty).
std::string visionRunJson(const VitModel &model, const VisionRunInfo &run, const PixelValues &pixels,
                          const VitForwardResult &result, const std::string &analysesJson = "{}");

} // namespace attn
