// SPDX-License-Identifier: GPL-3.0-or-later
// resize → crop → rescale → normalize → CHW (image.h), in the precision transformers' PIL backend uses at each
// step: uint8 through the resize, float64 for the rescale product, float32 from there on. Compiled with
// -ffp-contract=off (vision/sources.cmake) so (x − mean) / std stays two float32 roundings.
#include <attnscope/image.h>
#include <attnscope/npy.h>

#include <algorithm>
#include <cmath>

namespace attn {

namespace {

// The size after the resize step alone.
Result<ImageSize> resizedSize(const PreprocessorConfig &config, std::int64_t height, std::int64_t width)
{
    ImageSize size{height, width};
    if (config.doResize) {
        if (config.sizeMode == PreprocessorConfig::SizeMode::HeightWidth) {
            size = {config.height, config.width};
        } else {
            const std::int64_t shortSide = std::min(height, width), longSide = std::max(height, width);
            // Python: int(s * long / short) — the product is exact, the division is in double, then truncated.
            const auto newLong = static_cast<std::int64_t>(static_cast<double>(config.shortestEdge * longSide) /
                                                           static_cast<double>(shortSide));
            size = width <= height ? ImageSize{newLong, config.shortestEdge} : ImageSize{config.shortestEdge, newLong};
            if (newLong > kMaxTargetSide || size.height * size.width > kMaxTargetPixels)
                return Status::invalid("preprocess: shortest_edge " + std::to_string(config.shortestEdge) + " makes " +
                                       std::to_string(size.width) + "×" + std::to_string(size.height) +
                                       " from this image, over the limit (8192 per side, 2^24 pixels)");
        }
    }
    return size;
}

} // namespace

Result<ImageSize> preprocessedSize(const PreprocessorConfig &config, std::int64_t height, std::int64_t width)
{
    auto resized = resizedSize(config, height, width);
    if (!resized) return resized;
    ImageSize size = *resized;
    if (config.doCenterCrop) {
        if (config.cropHeight > size.height || config.cropWidth > size.width)
            return Status::invalid("preprocess: crop_size " + std::to_string(config.cropHeight) + "×" +
                                   std::to_string(config.cropWidth) + " (height×width) is larger than the " +
                                   std::to_string(size.height) + "×" + std::to_string(size.width) +
                                   " image (transformers would pad; not supported)");
        size = {config.cropHeight, config.cropWidth};
    }
    return size;
}

Result<PixelValues> preprocessImage(const ImageRgb8 &image, const PreprocessorConfig &config)
{
    if (Status s = validateImage(image); !s) return s;
    const auto target = preprocessedSize(config, image.height, image.width);
    if (!target) return target.status();

    ImageRgb8 resized;
    const ImageRgb8 *im = &image;
    if (config.doResize) {
        const ImageSize size = *resizedSize(config, image.height, image.width);   // checked by preprocessedSize
        auto r = resizeImage(image, size.width, size.height, config.resample);
        if (!r) return r.status();
        resized = std::move(*r);
        im = &resized;
    }
    std::int64_t top = 0, left = 0;
    if (config.doCenterCrop) {
        top = (im->height - target->height) / 2;
        left = (im->width - target->width) / 2;
    }

    PixelValues out;
    out.height = target->height;
    out.width = target->width;
    const std::size_t plane = static_cast<std::size_t>(out.height * out.width);
    out.values.resize(3 * plane);
    std::array<float, 3> mean{}, stdev{};
    for (std::size_t c = 0; c < 3; ++c) {
        mean[c] = static_cast<float>(config.imageMean[c]);
        stdev[c] = static_cast<float>(config.imageStd[c]);
    }
    for (std::int64_t y = 0; y < out.height; ++y) {
        for (std::int64_t x = 0; x < out.width; ++x) {
            const std::uint8_t *p = &im->pixels[static_cast<std::size_t>(((y + top) * im->width + (x + left)) * 3)];
            for (std::size_t c = 0; c < 3; ++c) {
                float v = config.doRescale ? static_cast<float>(static_cast<double>(p[c]) * config.rescaleFactor)
                                           : static_cast<float>(p[c]);
                if (config.doNormalize) v = (v - mean[c]) / stdev[c];
                out.values[c * plane + static_cast<std::size_t>(y * out.width + x)] = v;
            }
        }
    }
    return out;
}

Result<PixelValues> readPixelValuesNpy(const std::string &path)
{
    auto a = readNpyFloat32(path, std::size_t(3) * kMaxTargetPixels * 4);
    if (!a) return a.status();
    const auto &s = a->shape;
    std::string shape = "(";
    for (std::size_t i = 0; i < s.size(); ++i) shape += (i ? ", " : "") + std::to_string(s[i]);
    shape += s.size() == 1 ? ",)" : ")";
    if (s.size() != 3 || s[0] != 3)
        return Status{ErrorCode::FormatError,
                      path + ": .npy header field 'shape' is " + shape + "; expected (3, H, W) pixel_values (CHW)"};
    if (s[1] < 1 || s[2] < 1 || s[1] > kMaxTargetSide || s[2] > kMaxTargetSide)
        return Status{ErrorCode::FormatError,
                      path + ": .npy header field 'shape' is " + shape + "; H and W must be 1 … 8192"};
    for (const float v : a->values)
        if (!std::isfinite(v)) return Status{ErrorCode::FormatError, path + ": pixel_values hold a NaN or infinity"};
    return PixelValues{s[1], s[2], std::move(a->values)};
}

} // namespace attn
