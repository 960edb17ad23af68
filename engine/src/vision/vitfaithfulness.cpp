// SPDX-License-Identifier: GPL-3.0-or-later
#include <attnscope/vitfaithfulness.h>

#include <attnscope/variants.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attn {

namespace {

// Calls rowOf(at) for each removed patch's pixel rows: `at` the index of the row's first value (channel, y, the
// patch's first x), patchWidth values from there.
template <class RowFn>
void forEachRemovedRow(const PixelValues &pixels, std::int64_t patchHeight, std::int64_t patchWidth,
                       const std::vector<std::uint8_t> &kept, RowFn rowOf)
{
    if (patchHeight <= 0 || patchWidth <= 0) return;
    const std::int64_t rows = pixels.height / patchHeight, cols = pixels.width / patchWidth;
    const std::size_t plane = std::size_t(pixels.height) * std::size_t(pixels.width);
    for (std::int64_t p = 0; p < rows * cols && std::size_t(p) < kept.size(); ++p) {
        if (kept[std::size_t(p)]) continue;
        const std::int64_t r = p / cols, c = p % cols;
        for (std::size_t ch = 0; ch < 3; ++ch)
            for (std::int64_t y = r * patchHeight; y < (r + 1) * patchHeight; ++y)
                rowOf(std::ptrdiff_t(ch * plane + std::size_t(y) * std::size_t(pixels.width) + std::size_t(c * patchWidth)));
    }
}

} // namespace

PixelValues removePatches(const PixelValues &pixels, std::int64_t patchHeight, std::int64_t patchWidth,
                          const std::vector<std::uint8_t> &kept, float fill)
{
    PixelValues out = pixels;
    forEachRemovedRow(pixels, patchHeight, patchWidth, kept,
                      [&](std::ptrdiff_t at) { std::fill_n(out.values.begin() + at, patchWidth, fill); });
    return out;
}

PixelValues removePatches(const PixelValues &pixels, std::int64_t patchHeight, std::int64_t patchWidth,
                          const std::vector<std::uint8_t> &kept, const PixelValues &substrate)
{
    PixelValues out = pixels;
    if (substrate.values.size() != pixels.values.size()) return out;
    forEachRemovedRow(pixels, patchHeight, patchWidth, kept, [&](std::ptrdiff_t at) {
        std::copy_n(substrate.values.begin() + at, patchWidth, out.values.begin() + at);
    });
    return out;
}

PixelValues gaussianBlur(const PixelValues &pixels, double sigma, int radius)
{
    PixelValues out = pixels;
    if (radius <= 0 || !(sigma > 0.0)) return out;
    std::vector<double> w(std::size_t(2 * radius + 1));
    for (int k = -radius; k <= radius; ++k) w[std::size_t(k + radius)] = std::exp(-double(k) * k / (2.0 * sigma * sigma));
    const std::int64_t H = pixels.height, W = pixels.width;
    const std::size_t plane = std::size_t(H) * std::size_t(W);
    // One pass along a line of n values `stride` apart, in double, the weights of the taps inside renormalised.
    const auto pass = [&](const std::vector<double> &in, std::vector<double> &dst, std::int64_t n, std::int64_t lines,
                          std::int64_t stride, std::int64_t lineStride) {
        for (std::int64_t line = 0; line < lines; ++line)
            for (std::int64_t i = 0; i < n; ++i) {
                double sum = 0.0, norm = 0.0;
                for (int k = -radius; k <= radius; ++k) {
                    const std::int64_t j = i + k;
                    if (j < 0 || j >= n) continue;
                    sum += w[std::size_t(k + radius)] * in[std::size_t(line * lineStride + j * stride)];
                    norm += w[std::size_t(k + radius)];
                }
                dst[std::size_t(line * lineStride + i * stride)] = sum / norm;
            }
    };
    for (std::size_t ch = 0; ch < 3 && (ch + 1) * plane <= pixels.values.size(); ++ch) {
        std::vector<double> a(pixels.values.begin() + std::ptrdiff_t(ch * plane), pixels.values.begin() + std::ptrdiff_t((ch + 1) * plane)),
            b(plane);
        pass(a, b, W, H, 1, W);   // along x
        pass(b, a, H, W, W, 1);   // along y
        for (std::size_t i = 0; i < plane; ++i) out.values[ch * plane + i] = float(a[i]);
    }
    return out;
}

std::string substrateName(PatchSubstrate s) { return s == PatchSubstrate::Blur ? "blur" : "fill"; }

namespace {

double classProbability(const std::vector<float> &logits, int target)
{
    return softmax(std::vector<double>(logits.begin(), logits.end()))[std::size_t(target)];
}

} // namespace

Result<VitPerturbation> vitPerturbation(const VitModel &model, const PixelValues &pixels,
                                        const std::vector<std::pair<std::string, std::vector<double>>> &methods,
                                        const VitPerturbationOptions &options)
{
    const VitConfig &c = model.config();
    if (!c.classifier) return Status::invalid("faithfulness: " + model.name() + " has no classifier to perturb");
    if (options.randomSeeds < 1 || options.randomSeeds > 1000) return Status::invalid("randomSeeds: must be 1 … 1000");
    if (options.substrate == PatchSubstrate::Blur && (!(options.blurSigma > 0.0) || options.blurSigma > 1000.0 ||
                                                      options.blurRadius < 1 || options.blurRadius > 1000))
        return Status::invalid("blur: sigma must be in (0, 1000] and the radius 1 … 1000 pixels");
    VitForwardOptions fwd;
    fwd.backend = options.backend;
    fwd.threads = options.threads;
    fwd.captureAttentions = false;
    fwd.interpolatePositions = pixels.height != c.imageHeight || pixels.width != c.imageWidth;
    auto grid = model.patchGrid(pixels, fwd);
    if (!grid) return grid.status();
    const int P = int(grid->height * grid->width);
    for (const auto &[name, relevance] : methods)
        if (int(relevance.size()) != P)
            return Status::invalid("faithfulness: '" + name + "' has " + std::to_string(relevance.size()) +
                                   " values for " + std::to_string(P) + " patches");

    VitPerturbation out;
    out.patches = P;
    out.substrate = options.substrate;
    out.fill = options.fill;
    out.blurSigma = options.blurSigma;
    out.blurRadius = options.blurRadius;
    out.randomSeeds = options.randomSeeds;
    out.step = options.step > 0 ? std::min(options.step, P) : (P > 100 ? (P + 19) / 20 : 1);
    const int points = (P + out.step - 1) / out.step + 1;
    const int methodsTotal = int(methods.size()) + 1 + options.randomSeeds;
    const int totalForwards = 1 + P + methodsTotal * 2 * points;

    const PixelValues blurred = options.substrate == PatchSubstrate::Blur
                                    ? gaussianBlur(pixels, options.blurSigma, options.blurRadius)
                                    : PixelValues{};
    auto base = model.forward(pixels, fwd);
    if (!base) return base.status();
    out.target = int(std::max_element(base->logits.begin(), base->logits.end()) - base->logits.begin());
    out.probability = classProbability(base->logits, out.target);
    out.forwards = 1;
    Status failure = Status::ok();
    const auto score = [&](const std::vector<std::uint8_t> &kept) -> double {
        if (!failure) return 0.0;
        if (options.cancel && options.cancel()) {
            failure = Status::cancelled();
            return 0.0;
        }
        auto r = model.forward(options.substrate == PatchSubstrate::Blur
                                   ? removePatches(pixels, c.patchHeight, c.patchWidth, kept, blurred)
                                   : removePatches(pixels, c.patchHeight, c.patchWidth, kept, options.fill),
                               fwd);
        ++out.forwards;
        if (options.progress) options.progress(std::min(1.0, double(out.forwards) / totalForwards));
        if (!r) {
            failure = r.status();
            return 0.0;
        }
        return classProbability(r->logits, out.target);
    };

    out.occlusion.assign(std::size_t(P), 0.0);
    for (int p = 0; p < P; ++p) {
        std::vector<std::uint8_t> kept(std::size_t(P), 1);
        kept[std::size_t(p)] = 0;
        out.occlusion[std::size_t(p)] = out.probability - score(kept);
    }
    if (!failure) return failure;

    auto named = methods;
    named.emplace_back("occlusion", out.occlusion);
    for (const auto &[name, relevance] : named) {
        VitPerturbation::Method m{name, relevance, deletionInsertionCurves(score, descendingOrder(relevance), out.step)};
        if (!failure) return failure;
        out.methods.push_back(std::move(m));
    }
    // The random baseline: the mean curve of seeded random orders (a uniform key per patch, sorted).
    VitPerturbation::Method random{"random", {}, {}};
    for (int s = 0; s < options.randomSeeds; ++s) {
        const MatrixD keys = seededUniform(1, P, 1.0, options.seed + std::uint64_t(s));
        const Curves curves = deletionInsertionCurves(score, descendingOrder(keys.values), out.step);
        if (!failure) return failure;
        if (random.curves.deletion.empty()) {
            random.curves.deletion.assign(curves.deletion.size(), 0.0);
            random.curves.insertion.assign(curves.insertion.size(), 0.0);
        }
        for (std::size_t i = 0; i < curves.deletion.size(); ++i) {
            random.curves.deletion[i] += curves.deletion[i] / options.randomSeeds;
            random.curves.insertion[i] += curves.insertion[i] / options.randomSeeds;
        }
        random.curves.aucDeletion += curves.aucDeletion / options.randomSeeds;
        random.curves.aucInsertion += curves.aucInsertion / options.randomSeeds;
    }
    out.methods.push_back(std::move(random));
    return out;
}

} // namespace attn
