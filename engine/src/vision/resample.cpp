// SPDX-License-Identifier: GPL-3.0-or-later
// Pillow's uint8 resize, reimplemented to give the same bytes (image.h). Every floating-point step is written in
// the order Pillow evaluates it (in double, with float box coordinates where Pillow has them), and this file is
// compiled with -ffp-contract=off (vision/sources.cmake): a fused multiply-add would round differently, move a
// coefficient by one fixed-point unit and change a pixel by one grey level.
#include <attnscope/image.h>

#include <cmath>

namespace attn {

namespace {

constexpr double kPi = 3.14159265358979323846;   // M_PI
constexpr int kPrecisionBits = 32 - 8 - 2;       // 22: 8 bits of result, 2 of headroom for overshooting filters

double boxFilter(double x) { return (x > -0.5 && x <= 0.5) ? 1.0 : 0.0; }

double bilinearFilter(double x)
{
    if (x < 0.0) x = -x;
    return x < 1.0 ? 1.0 - x : 0.0;
}

double hammingFilter(double x)
{
    if (x < 0.0) x = -x;
    if (x == 0.0) return 1.0;
    if (x >= 1.0) return 0.0;
    x = x * kPi;
    // Pillow writes the window's constants as float literals; they are widened to double, not 0.54 exactly.
    return std::sin(x) / x * (0.54f + 0.46f * std::cos(x));
}

double bicubicFilter(double x)
{
    constexpr double a = -0.5;   // Pillow's bicubic (torch's is -0.75: see interpolatePositionGrid)
    if (x < 0.0) x = -x;
    if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
    if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
    return 0.0;
}

double sincFilter(double x)
{
    if (x == 0.0) return 1.0;
    x = x * kPi;
    return std::sin(x) / x;
}

double lanczosFilter(double x)
{
    if (-3.0 <= x && x < 3.0) return sincFilter(x) * sincFilter(x / 3);
    return 0.0;
}

struct Filter {
    double (*fn)(double);
    double support;
};

Filter filterFor(Resample r)
{
    switch (r) {
    case Resample::Box: return {boxFilter, 0.5};
    case Resample::Bilinear: return {bilinearFilter, 1.0};
    case Resample::Hamming: return {hammingFilter, 1.0};
    case Resample::Bicubic: return {bicubicFilter, 2.0};
    case Resample::Lanczos: return {lanczosFilter, 3.0};
    case Resample::Nearest: break;
    }
    return {bilinearFilter, 1.0};   // not reached: Nearest takes the affine path
}

// One axis' taps: output index o reads `count[o]` inputs from `first[o]` with fixed-point weights
// k[o·ksize + t].
struct Taps {
    int ksize = 0;
    std::vector<int> first, count;
    std::vector<std::int32_t> k;
};

Taps precomputeTaps(int inSize, int outSize, const Filter &filter)
{
    const float in0 = 0.0f, in1 = static_cast<float>(inSize);   // Pillow's box, in float
    const double scale = static_cast<double>(in1 - in0) / outSize;
    const double filterscale = scale < 1.0 ? 1.0 : scale;
    const double support = filter.support * filterscale;
    Taps taps;
    taps.ksize = static_cast<int>(std::ceil(support)) * 2 + 1;
    taps.first.resize(static_cast<std::size_t>(outSize));
    taps.count.resize(static_cast<std::size_t>(outSize));
    taps.k.assign(static_cast<std::size_t>(outSize) * static_cast<std::size_t>(taps.ksize), 0);
    std::vector<double> w(static_cast<std::size_t>(taps.ksize));
    const double invFilterscale = 1.0 / filterscale;
    for (int xx = 0; xx < outSize; ++xx) {
        const double center = in0 + (xx + 0.5) * scale;
        int xmin = static_cast<int>(center - support + 0.5);
        if (xmin < 0) xmin = 0;
        int xmax = static_cast<int>(center + support + 0.5);
        if (xmax > inSize) xmax = inSize;
        xmax -= xmin;
        double ww = 0.0;
        for (int x = 0; x < xmax; ++x) {
            w[static_cast<std::size_t>(x)] = filter.fn((x + xmin - center + 0.5) * invFilterscale);
            ww += w[static_cast<std::size_t>(x)];
        }
        for (int x = 0; x < xmax; ++x) {
            double v = w[static_cast<std::size_t>(x)];
            if (ww != 0.0) v /= ww;
            // Round half away from zero to 22-bit fixed point.
            taps.k[static_cast<std::size_t>(xx) * static_cast<std::size_t>(taps.ksize) + static_cast<std::size_t>(x)] =
                v < 0 ? static_cast<std::int32_t>(-0.5 + v * (1 << kPrecisionBits))
                      : static_cast<std::int32_t>(0.5 + v * (1 << kPrecisionBits));
        }
        taps.first[static_cast<std::size_t>(xx)] = xmin;
        taps.count[static_cast<std::size_t>(xx)] = xmax;
    }
    return taps;
}

// The accumulator starts at one half (rounding), and the sum is shifted down and clamped to 0..255 as Pillow's
// clip8 table does for sums within its range.
std::uint8_t clip8(std::int64_t acc)
{
    const std::int64_t v = acc >> kPrecisionBits;
    return static_cast<std::uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

// Resamples along one axis. `stride` steps between neighbouring samples along that axis, `lineStep` between
// lines, both in bytes of `src`/`dst` (3 channels interleaved, each resampled alike).
void resampleAxis(const std::uint8_t *src, std::int64_t srcStride, std::int64_t srcLineStep, std::uint8_t *dst,
                  std::int64_t dstStride, std::int64_t dstLineStep, std::int64_t lines, const Taps &taps,
                  int outSize)
{
    for (std::int64_t line = 0; line < lines; ++line) {
        const std::uint8_t *in = src + line * srcLineStep;
        std::uint8_t *out = dst + line * dstLineStep;
        for (int o = 0; o < outSize; ++o) {
            const std::int32_t *k = &taps.k[static_cast<std::size_t>(o) * static_cast<std::size_t>(taps.ksize)];
            const int first = taps.first[static_cast<std::size_t>(o)];
            const int count = taps.count[static_cast<std::size_t>(o)];
            for (int c = 0; c < 3; ++c) {
                std::int64_t acc = std::int64_t(1) << (kPrecisionBits - 1);
                for (int t = 0; t < count; ++t) acc += std::int64_t(in[(first + t) * srcStride + c]) * k[t];
                out[o * dstStride + c] = clip8(acc);
            }
        }
    }
}

// NEAREST: Pillow's affine scale. The source position is accumulated by repeated addition, as Pillow does, so
// positions that land on an integer round the same way.
ImageRgb8 resizeNearest(const ImageRgb8 &im, int outW, int outH)
{
    const double ax = static_cast<double>(static_cast<float>(im.width) - 0.0f) / outW;
    const double ay = static_cast<double>(static_cast<float>(im.height) - 0.0f) / outH;
    const auto coord = [](double v) { return v < 0.0 ? -1 : static_cast<int>(v); };
    std::vector<int> xin(static_cast<std::size_t>(outW), -1);
    double xo = 0.0 + ax * 0.5;
    for (int x = 0; x < outW; ++x) {
        const int xi = coord(xo);
        if (xi >= 0 && xi < im.width) xin[static_cast<std::size_t>(x)] = xi;
        xo += ax;
    }
    ImageRgb8 out{outW, outH, std::vector<std::uint8_t>(static_cast<std::size_t>(outW) * outH * 3, 0)};
    double yo = 0.0 + ay * 0.5;
    for (int y = 0; y < outH; ++y) {
        const int yi = coord(yo);
        yo += ay;
        if (yi < 0 || yi >= im.height) continue;   // Pillow fills such rows with 0
        for (int x = 0; x < outW; ++x) {
            const int xi = xin[static_cast<std::size_t>(x)];
            if (xi < 0) continue;
            for (int c = 0; c < 3; ++c)
                out.pixels[(static_cast<std::size_t>(y) * outW + x) * 3 + c] =
                    im.pixels[(static_cast<std::size_t>(yi) * im.width + xi) * 3 + c];
        }
    }
    return out;
}

} // namespace

std::string resampleName(Resample r)
{
    switch (r) {
    case Resample::Nearest: return "nearest";
    case Resample::Lanczos: return "lanczos";
    case Resample::Bilinear: return "bilinear";
    case Resample::Bicubic: return "bicubic";
    case Resample::Box: return "box";
    case Resample::Hamming: return "hamming";
    }
    return "?";
}

std::optional<Resample> resampleFromPilCode(std::int64_t code)
{
    if (code < 0 || code > 5) return std::nullopt;
    return static_cast<Resample>(code);
}

Status validateImage(const ImageRgb8 &image)
{
    if (image.width < 1 || image.height < 1)
        return Status::invalid("image: size " + std::to_string(image.width) + "×" + std::to_string(image.height) +
                               " (width and height must be ≥ 1)");
    if (image.width > kMaxImageSide || image.height > kMaxImageSide || image.width * image.height > kMaxImagePixels)
        return Status::invalid("image: size " + std::to_string(image.width) + "×" + std::to_string(image.height) +
                               " is over the limit (sides ≤ 65535, ≤ 2^26 pixels)");
    if (image.pixels.size() != static_cast<std::size_t>(image.width * image.height * 3))
        return Status::invalid("image: " + std::to_string(image.pixels.size()) + " bytes of pixels for " +
                               std::to_string(image.width) + "×" + std::to_string(image.height) + "×3");
    return Status::ok();
}

Result<ImageRgb8> resizeImage(const ImageRgb8 &image, std::int64_t width, std::int64_t height, Resample resample)
{
    if (Status s = validateImage(image); !s) return s;
    if (width < 1 || height < 1 || width > kMaxTargetSide || height > kMaxTargetSide || width * height > kMaxTargetPixels)
        return Status::invalid("resize: target size " + std::to_string(width) + "×" + std::to_string(height) +
                               " is outside 1…8192 per side and 2^24 pixels");
    if (width == image.width && height == image.height) return image;
    const int outW = static_cast<int>(width), outH = static_cast<int>(height);
    if (resample == Resample::Nearest) return resizeNearest(image, outW, outH);

    const Filter filter = filterFor(resample);
    const int inW = static_cast<int>(image.width), inH = static_cast<int>(image.height);
    // Pillow skips a pass whose axis keeps its size; running it would be the identity anyway.
    // Pillow's order (horizontal, then vertical) decides the rounding, so the intermediate is outW × inH.
    if (outW != inW && outH != inH && std::int64_t(outW) * inH > kMaxImagePixels)
        return Status::invalid("resize: " + std::to_string(image.width) + "×" + std::to_string(image.height) + " → " +
                               std::to_string(width) + "×" + std::to_string(height) +
                               " needs an intermediate image over 2^26 pixels");
    ImageRgb8 horizontal;
    const ImageRgb8 *src = &image;
    if (outW != inW) {
        const Taps taps = precomputeTaps(inW, outW, filter);
        horizontal = {outW, inH, std::vector<std::uint8_t>(static_cast<std::size_t>(outW) * inH * 3)};
        resampleAxis(image.pixels.data(), 3, inW * 3, horizontal.pixels.data(), 3, outW * 3, inH, taps, outW);
        src = &horizontal;
    }
    if (outH == inH) return src == &image ? image : horizontal;
    const Taps taps = precomputeTaps(inH, outH, filter);
    ImageRgb8 out{outW, outH, std::vector<std::uint8_t>(static_cast<std::size_t>(outW) * outH * 3)};
    // Vertical pass: samples along a column are a row apart; "lines" are the columns.
    resampleAxis(src->pixels.data(), std::int64_t(outW) * 3, 3, out.pixels.data(), std::int64_t(outW) * 3, 3, outW,
                 taps, outH);
    return out;
}

} // namespace attn
