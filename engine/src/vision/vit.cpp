// SPDX-License-Identifier: GPL-3.0-or-later
// The ViT forward pass (vit.h): patches → tokens → pre-LN encoder layers through attn::attention → final layernorm
// → pooler or classifier. Same building blocks as the text models (ops.h), one image per pass.
#include "model/ops.h"
#include "vit_weights.h"

#include <attnscope/tensor.h>

#include <cmath>
#include <filesystem>

namespace attn {

namespace detail {

namespace {

// [rows·cols, C·P_h·P_w]: each patch flattened in (channel, y, x) order, the Conv2d's weight order.
std::vector<float> patchRows(const PixelValues &px, const VitConfig &c, std::int64_t rows, std::int64_t cols)
{
    const std::int64_t ph = c.patchHeight, pw = c.patchWidth, C = c.channels, in = C * ph * pw;
    std::vector<float> out(static_cast<std::size_t>(rows * cols * in));
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t q = 0; q < cols; ++q) {
            float *dst = out.data() + (r * cols + q) * in;
            for (std::int64_t ch = 0; ch < C; ++ch)
                for (std::int64_t y = 0; y < ph; ++y) {
                    const float *src = px.values.data() + (ch * px.height + r * ph + y) * px.width + q * pw;
                    std::copy_n(src, pw, dst + (ch * ph + y) * pw);
                }
        }
    return out;
}

// The position embeddings for a rows × cols grid: the checkpoint's own, or its patch part resized bicubically (the
// S special tokens' positions kept as they are).
Result<std::vector<float>> positionsFor(const VitWeights &w, std::int64_t rows, std::int64_t cols)
{
    const VitConfig &c = w.config;
    const std::int64_t D = c.hiddenSize, r0 = c.patchRows(), c0 = c.patchCols(), S = c.specialTokens();
    if (rows == r0 && cols == c0) return w.positions;
    auto grid = interpolatePositionGrid(w.positions.data() + S * D, r0, c0, D, rows, cols);
    if (!grid) return grid.status();
    std::vector<float> out(static_cast<std::size_t>((S + rows * cols) * D));
    std::copy_n(w.positions.begin(), S * D, out.begin());
    std::copy(grid->begin(), grid->end(), out.begin() + S * D);
    return out;
}

void addInPlace(std::vector<float> &x, const std::vector<float> &y)
{
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += y[i];
}

} // namespace

Result<VitForwardResult> runVitForward(const VitWeights &w, const PixelValues &pixels, std::int64_t rows,
                                       std::int64_t cols, const VitForwardOptions &opt)
{
    const VitConfig &c = w.config;
    const std::int64_t D = c.hiddenSize, H = c.heads, dh = c.dHead, S = c.specialTokens(), T = S + rows * cols;
    VitForwardResult result;
    result.patchRows = rows;
    result.patchCols = cols;
    result.specialTokens = S;
    result.length = T;
    const auto cancelled = [&] { return opt.cancel && opt.cancel(); };

    // Tokens: [CLS; (DeiT) DIST; patch embeddings] + positions.
    const std::vector<float> patches = patchRows(pixels, c, rows, cols);
    const std::vector<float> embedded = applyLinear(patches.data(), rows * cols, w.patch);
    auto positions = positionsFor(w, rows, cols);
    if (!positions) return positions.status();
    std::vector<float> x(static_cast<std::size_t>(T * D));
    std::copy(w.clsToken.begin(), w.clsToken.end(), x.begin());
    if (S == 2) std::copy(w.distillationToken.begin(), w.distillationToken.end(), x.begin() + D);
    std::copy(embedded.begin(), embedded.end(), x.begin() + S * D);
    addInPlace(x, *positions);
    if (opt.captureHiddenStates) result.hiddenStates.push_back(x);

    const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
    for (std::int64_t l = 0; l < c.layers; ++l) {
        if (cancelled()) return Status::cancelled();
        const VitBlock &b = w.blocks[static_cast<std::size_t>(l)];
        std::vector<float> h = x;
        layerNorm(h.data(), T, D, b.lnBefore, c.layerNormEps);
        std::vector<float> Q = applyLinear(h.data(), T, b.q), K = applyLinear(h.data(), T, b.k),
                           V = applyLinear(h.data(), T, b.v);
        AttentionOptions ao;
        ao.backend = opt.backend;
        ao.scale = scale;
        ao.weights = opt.captureAttentions ? WeightsRequest::all() : WeightsRequest::none();
        ao.weightsBudgetBytes = opt.weightsBudgetBytes;
        ao.threads = opt.threads;
        ao.cancel = opt.cancel;
        if (opt.progress) {
            const double layers = static_cast<double>(c.layers);
            ao.progress = [&opt, l, layers](double f) { opt.progress((static_cast<double>(l) + f) / layers); };
        }
        auto att = attention(MutableTensorView::fromBLHD(Q.data(), 1, T, H, dh),
                             MutableTensorView::fromBLHD(K.data(), 1, T, H, dh),
                             MutableTensorView::fromBLHD(V.data(), 1, T, H, dh), MaskSpec::bidirectional(), ao);
        if (!att) return att.status();
        result.backend = att->backend;
        for (HeadWeights &hw : att->weights) result.attentions.push_back(std::move(hw.P));

        // Heads back to [T, H·dHead], then the output projection.
        const TensorView O = att->out.view();   // [1, H, T, dHead]
        std::vector<float> concat(static_cast<std::size_t>(T * H * dh));
        for (std::int64_t i = 0; i < T; ++i)
            for (std::int64_t hh = 0; hh < H; ++hh)
                for (std::int64_t d = 0; d < dh; ++d) concat[static_cast<std::size_t>((i * H + hh) * dh + d)] = O.at(0, hh, i, d);
        addInPlace(x, applyLinear(concat.data(), T, b.o));

        h = x;
        layerNorm(h.data(), T, D, b.lnAfter, c.layerNormEps);
        std::vector<float> m = applyLinear(h.data(), T, b.fc1);
        activate(m.data(), m.size(), c.activation);
        addInPlace(x, applyLinear(m.data(), T, b.fc2));
        if (opt.captureHiddenStates) result.hiddenStates.push_back(x);
    }
    if (cancelled()) return Status::cancelled();
    layerNorm(x.data(), T, D, w.finalNorm, c.layerNormEps);
    if (!w.pooler.w.empty()) {
        result.pooled = applyLinear(x.data(), 1, w.pooler);   // row 0: the CLS token
        activate(result.pooled.data(), result.pooled.size(), c.poolerActivation);
    }
    if (!w.distillationClassifier.w.empty()) {
        // DeiT with teacher: the mean of the CLS head (row 0) and the distillation head (row 1), in float32.
        result.clsLogits = applyLinear(x.data(), 1, w.classifier);
        result.distillationLogits = applyLinear(x.data() + D, 1, w.distillationClassifier);
        result.logits.resize(result.clsLogits.size());
        for (std::size_t i = 0; i < result.logits.size(); ++i)
            result.logits[i] = (result.clsLogits[i] + result.distillationLogits[i]) / 2.0f;
    } else if (!w.classifier.w.empty()) {
        result.logits = applyLinear(x.data(), 1, w.classifier);
    }
    result.lastHidden = std::move(x);
    if (opt.progress) opt.progress(1.0);
    return result;
}

} // namespace detail

Result<VitModel> VitModel::loadFolder(const std::string &folder)
{
    auto w = detail::loadVitFolder(folder);
    if (!w) return w.status();
    return VitModel(std::make_shared<const detail::VitWeights>(std::move(w).value()));
}

const VitConfig &VitModel::config() const { return m_w->config; }
const std::string &VitModel::source() const { return m_w->source; }
const std::optional<PreprocessorConfig> &VitModel::preprocessor() const { return m_w->preprocessor; }

std::string VitModel::name() const
{
    std::filesystem::path p(m_w->source);
    if (!p.has_filename()) p = p.parent_path();
    return p.filename().string();
}

Result<ImageSize> VitModel::patchGrid(const PixelValues &pixels, const VitForwardOptions &options) const
{
    const VitConfig &c = m_w->config;
    const std::string size = std::to_string(pixels.height) + "×" + std::to_string(pixels.width);
    if (pixels.height < 1 || pixels.width < 1 ||
        pixels.values.size() != static_cast<std::size_t>(3 * pixels.height * pixels.width))
        return Status::invalid("pixel_values: " + std::to_string(pixels.values.size()) + " values for [3, " +
                               std::to_string(pixels.height) + ", " + std::to_string(pixels.width) + "]");
    const bool same = pixels.height == c.imageHeight && pixels.width == c.imageWidth;
    if (same) return ImageSize{c.patchRows(), c.patchCols()};
    if (!options.interpolatePositions)
        return Status::invalid("pixel_values: image " + size + " differs from the model's image_size " +
                               std::to_string(c.imageHeight) + "×" + std::to_string(c.imageWidth) +
                               " (interpolate the position embeddings to run it)");
    const ImageSize grid{pixels.height / c.patchHeight, pixels.width / c.patchWidth};
    if (grid.height < 1 || grid.width < 1)
        return Status::invalid("pixel_values: image " + size + " is smaller than one " +
                               std::to_string(c.patchHeight) + "×" + std::to_string(c.patchWidth) + " patch");
    // transformers reshapes the stored grid as √N × √N (and uses one patch size for both axes).
    if (c.patchRows() != c.patchCols() || c.patchHeight != c.patchWidth)
        return Status::invalid("pixel_values: interpolating positions needs a square patch grid and square patches; "
                               "the model has " + std::to_string(c.patchRows()) + "×" + std::to_string(c.patchCols()) +
                               " patches of " + std::to_string(c.patchHeight) + "×" + std::to_string(c.patchWidth));
    return grid;
}

Result<VitForwardResult> VitModel::forward(const PixelValues &pixels, const VitForwardOptions &options) const
{
    auto grid = patchGrid(pixels, options);
    if (!grid) return grid.status();
    return detail::runVitForward(*m_w, pixels, grid->height, grid->width, options);
}

} // namespace attn
