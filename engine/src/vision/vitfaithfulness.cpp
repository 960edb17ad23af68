// SPDX-License-Identifier: GPL-3.0-or-later
#include <attnscope/vitfaithfulness.h>

#include <attnscope/variants.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attn {

PixelValues removePatches(const PixelValues &pixels, std::int64_t patchHeight, std::int64_t patchWidth,
                          const std::vector<std::uint8_t> &kept, float fill)
{
    PixelValues out = pixels;
    if (patchHeight <= 0 || patchWidth <= 0) return out;
    const std::int64_t rows = pixels.height / patchHeight, cols = pixels.width / patchWidth;
    const std::size_t plane = std::size_t(pixels.height) * std::size_t(pixels.width);
    for (std::int64_t p = 0; p < rows * cols && std::size_t(p) < kept.size(); ++p) {
        if (kept[std::size_t(p)]) continue;
        const std::int64_t r = p / cols, c = p % cols;
        for (std::size_t ch = 0; ch < 3; ++ch)
            for (std::int64_t y = r * patchHeight; y < (r + 1) * patchHeight; ++y)
                for (std::int64_t x = c * patchWidth; x < (c + 1) * patchWidth; ++x)
                    out.values[ch * plane + std::size_t(y) * std::size_t(pixels.width) + std::size_t(x)] = fill;
    }
    return out;
}

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
    out.step = options.step > 0 ? std::min(options.step, P) : (P > 100 ? (P + 19) / 20 : 1);
    const int points = (P + out.step - 1) / out.step + 1;
    const int methodsTotal = int(methods.size()) + 1 + options.randomSeeds;
    const int totalForwards = 1 + P + methodsTotal * 2 * points;

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
        auto r = model.forward(removePatches(pixels, c.patchHeight, c.patchWidth, kept, options.fill), fwd);
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
