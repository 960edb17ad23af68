// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Perturbation checks of a ViT classifier's explanations (reference/faithfulness.md §3.9 deletion / insertion,
// §3.12 occlusion), Qt-free. A patch is removed by replacing its pixel values with a substrate: `fill` in every
// channel (0 is the normalized mean colour, RISE's deletion substrate), or the same pixels of a blurred copy of the
// image (RISE's insertion substrate: a removed patch keeps its coarse colour, so insertion does not start from an
// image the classifier has never seen). The score is the softmax probability (float64 of the float32 logits) of
// the class the unperturbed image is predicted as.
//
// The blur: separable Gaussian over the normalized pixel values, weights exp(−k² / 2σ²) for |k| ≤ radius, each
// channel alone. At the border only the taps inside the image count (weights renormalised), so the border is not
// pulled toward the mean colour (RISE's own conv2d pads with 0, which does).
//
//   occlusion[p]   p(x) − p(x with patch p removed)                                    one forward per patch
//   deletion       patches removed most relevant first, `step` per point: p after 0, step, 2·step, … removed
//   insertion      from every patch removed, the most relevant put back first
//   AUC            normalizedAuc (the trapezoid on [0, 1]); deletion: lower is better, insertion: higher
//
// Each ranking orders patches by descending relevance, ties to the lower index (metrics.h descendingOrder). The
// random baseline is the mean of `randomSeeds` seeded random orders (our SplitMix64, variants.h seededUniform),
// its AUC the mean of theirs. Patches are numbered row-major from 0 (token 1 + p).

#include <attnscope/metrics.h>
#include <attnscope/vit.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace attn {

// pixels with the patches where kept[p] == 0 set to `fill` ([rows · cols] flags over the model's patch grid;
// pixels past the last whole patch are left as they are).
PixelValues removePatches(const PixelValues &pixels, std::int64_t patchHeight, std::int64_t patchWidth,
                          const std::vector<std::uint8_t> &kept, float fill = 0.0f);
// The same, the removed patches' pixels taken from `substrate` (of the same size as `pixels`).
PixelValues removePatches(const PixelValues &pixels, std::int64_t patchHeight, std::int64_t patchWidth,
                          const std::vector<std::uint8_t> &kept, const PixelValues &substrate);

// The separable Gaussian blur above; sigma > 0, radius ≥ 0 (0 returns a copy).
PixelValues gaussianBlur(const PixelValues &pixels, double sigma, int radius);

enum class PatchSubstrate { Fill, Blur };
std::string substrateName(PatchSubstrate s);   // "fill", "blur"

struct VitPerturbationOptions {
    PatchSubstrate substrate = PatchSubstrate::Fill;
    float fill = 0.0f;         // Fill: the value every removed pixel takes
    double blurSigma = 5.0;    // Blur: σ and radius in pixels, RISE's (an 11-tap kernel, σ = 5)
    int blurRadius = 5;
    int step = 0;              // patches per point; 0: 1, or ⌈P / 20⌉ when P > 100
    int randomSeeds = 5;       // random orders averaged for the baseline
    std::uint64_t seed = 1;    // the first random order's seed (then seed + 1, …)
    Backend backend = Backend::Auto;
    int threads = 0;
    ProgressFn progress;       // fraction of the forward passes done
    CancelFn cancel;
};

struct VitPerturbation {
    int target = 0;                     // the predicted class
    double probability = 0.0;           // its probability on the unperturbed image
    int patches = 0, step = 1, forwards = 0;
    PatchSubstrate substrate = PatchSubstrate::Fill;   // what ran (the options'), for the exports
    float fill = 0.0f;
    double blurSigma = 0.0;
    int blurRadius = 0, randomSeeds = 0;
    std::vector<double> occlusion;      // [patches]
    struct Method {
        std::string name;               // as given; then "occlusion" and "random"
        std::vector<double> relevance;  // [patches] (random: empty)
        Curves curves;                  // deletion and insertion, ⌈patches / step⌉ + 1 points each
    };
    std::vector<Method> methods;
};

// `methods`: named relevance maps over the patches (e.g. a layer's mean CLS attention, the rollout); occlusion and
// the random baseline are added after them. Errors: a map of the wrong size, a model without a classifier.
Result<VitPerturbation> vitPerturbation(const VitModel &model, const PixelValues &pixels,
                                        const std::vector<std::pair<std::string, std::vector<double>>> &methods,
                                        const VitPerturbationOptions &options = {});

} // namespace attn
