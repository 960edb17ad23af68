// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Image preprocessing for Vision Transformers, Qt-free. The GUI and the CLI decode a file to 8-bit RGB (alpha
// dropped, as PIL's convert('RGB')); from there the engine does what transformers' PIL backend does
// (ViTImageProcessorPil, transformers v4's ViTImageProcessor):
//
//   resize (uint8, PIL's resampling)  →  center crop (optional)  →  float64(p) · rescale_factor → float32
//   →  (x − mean) / std in float32  →  CHW
//
// Resizing matches Pillow's Image.resize bit for bit on uint8 RGB for all six filters (tests/fixtures/images,
// made by tools/make_image_fixtures.py with Pillow): NEAREST is PIL's affine scale (source index
// ⌊(x + 0.5)·in/out⌋ accumulated as PIL accumulates it); the others are PIL's separable convolution with support
// widened by the scale when downscaling (antialiasing), coefficients rounded to 22-bit fixed point, a horizontal
// pass rounded to uint8 and then a vertical pass.
//
// Parity note: transformers v5 prefers its torchvision backend (antialiased tvF.resize on tensors) whenever
// torchvision is installed; it differs from PIL by about one grey level (1/255 before normalization). What we
// match is the PIL backend. Attention parity is therefore driven from stored pixel_values (readPixelValuesNpy, the
// CLI's --pixel-values) or from images already at the model's size; the resize is compared with PIL separately.

#include <attnscope/status.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

// Decoded pixels: [height, width, 3] row-major, R G B per pixel, 0–255.
struct ImageRgb8 {
    std::int64_t width = 0;
    std::int64_t height = 0;
    std::vector<std::uint8_t> pixels;   // height · width · 3
};

// Limits: an input side ≤ 65535 and ≤ 2^26 pixels (≈ 8192²); a target size from preprocessor_config.json (size,
// shortest_edge, crop_size) ≤ 8192 per side and any resized image ≤ 2^24 pixels (4096²).
inline constexpr std::int64_t kMaxImageSide = 65535;
inline constexpr std::int64_t kMaxImagePixels = std::int64_t(1) << 26;
inline constexpr std::int64_t kMaxTargetSide = 8192;
inline constexpr std::int64_t kMaxTargetPixels = std::int64_t(1) << 24;

Status validateImage(const ImageRgb8 &image);   // sizes, limits, pixels.size() == height·width·3

// Pillow's resampling filters, numbered with PIL's codes (preprocessor_config.json "resample").
enum class Resample { Nearest = 0, Lanczos = 1, Bilinear = 2, Bicubic = 3, Box = 4, Hamming = 5 };
std::string resampleName(Resample r);                              // "nearest", "lanczos", "bilinear", ...
std::optional<Resample> resampleFromPilCode(std::int64_t code);    // 0..5, else nullopt

// PIL's Image.resize((width, height), resample) on an RGB image. The same size returns a copy.
Result<ImageRgb8> resizeImage(const ImageRgb8 &image, std::int64_t width, std::int64_t height, Resample resample);

// preprocessor_config.json. Absent fields take ViTImageProcessor's defaults (the values below).
struct PreprocessorConfig {
    std::string processorType;   // image_processor_type, else feature_extractor_type; "" when neither is present
    bool doResize = true;
    // "size": an integer s ({s, s}), {"height", "width"}, or {"shortest_edge": s} (the short side becomes s, the
    // long side ⌊s · long / short⌋, as get_resize_output_image_size(default_to_square=False)).
    enum class SizeMode { HeightWidth, ShortestEdge };
    SizeMode sizeMode = SizeMode::HeightWidth;
    std::int64_t height = 224;
    std::int64_t width = 224;
    std::int64_t shortestEdge = 0;
    Resample resample = Resample::Bilinear;
    // DeiT-style: crop the centre (top = ⌊(h − ch)/2⌋, left = ⌊(w − cw)/2⌋, as transformers' NumPy center_crop)
    // after the resize. A crop larger than the image is refused (transformers pads instead).
    bool doCenterCrop = false;
    std::int64_t cropHeight = 224;
    std::int64_t cropWidth = 224;
    bool doRescale = true;
    double rescaleFactor = 1.0 / 255.0;
    bool doNormalize = true;
    std::array<double, 3> imageMean{0.5, 0.5, 0.5};   // cast to float32 before use, as NumPy does
    std::array<double, 3> imageStd{0.5, 0.5, 0.5};
};

// Parses the JSON text; `source` (the file name) starts every message, which names the field:
// "preprocessor_config.json: field 'resample': 7 is not a PIL filter code (0 NEAREST … 5 HAMMING)".
// Processor types other than ViT's and DeiT's (image processor or feature extractor, plain, Fast or Pil) are
// refused by name, as are size keys this pipeline does not implement (longest_edge, max_height, ...).
Result<PreprocessorConfig> parsePreprocessorConfig(std::string_view json, const std::string &source);
Result<PreprocessorConfig> loadPreprocessorConfig(const std::string &path);

struct ImageSize {
    std::int64_t height = 0;
    std::int64_t width = 0;
};
// The [height, width] pixel_values will have for an input of this size (resize, then crop).
Result<ImageSize> preprocessedSize(const PreprocessorConfig &config, std::int64_t height, std::int64_t width);

// pixel_values for one image: [3, height, width] float32, channel-major (CHW), row-major inside a channel.
struct PixelValues {
    std::int64_t height = 0;
    std::int64_t width = 0;
    std::vector<float> values;   // 3 · height · width
};

Result<PixelValues> preprocessImage(const ImageRgb8 &image, const PreprocessorConfig &config);

// `--pixel-values F.npy`: a .npy file holding [3, H, W] float32 little-endian in C order (npy.h), H and W within
// kMaxTargetSide; anything else is refused with the field named (descr, fortran_order, shape).
Result<PixelValues> readPixelValuesNpy(const std::string &path);

// ViT's interpolate_pos_encoding on the patch part of the position embeddings: torch's
// F.interpolate(mode="bicubic", align_corners=False) from an inRows × inCols grid to outRows × outCols.
//   grid: [inRows · inCols, dim] row-major (patch index = row · inCols + col), the CLS row NOT included
//   result: [outRows · outCols, dim]
// Per axis: src = (dst + 0.5) · in/out − 0.5, i0 = ⌊src⌋, t = src − i0; taps i0−1 … i0+2 clamped to [0, in−1];
// Keys' cubic convolution with A = −0.75; no antialiasing. Positions and weights in float32 as torch computes
// them for float32 tensors, the sums in double: ≤ 1e-6 from torch's float32 output on the fixtures (torch's own
// float32 and float64 results differ by up to 1.7e-6 there). Sides ≤ kMaxTargetSide, 1 ≤ dim ≤ 65536.
Result<std::vector<float>> interpolatePositionGrid(const float *grid, std::int64_t inRows, std::int64_t inCols,
                                                   std::int64_t dim, std::int64_t outRows, std::int64_t outCols);

} // namespace attn
