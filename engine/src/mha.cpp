// SPDX-License-Identifier: GPL-3.0-or-later
#include <attnscope/mha.h>

#include "rng.h"

#include <Eigen/Core>

#include <cmath>

namespace attn {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MapRow = Eigen::Map<RowMat>;
using ConstMapRow = Eigen::Map<const RowMat>;

std::string positionalName(PositionalEncoding pe)
{
    switch (pe) {
    case PositionalEncoding::None: return "none";
    case PositionalEncoding::Sinusoidal: return "sinusoidal";
    case PositionalEncoding::RoPE: return "rope";
    case PositionalEncoding::ALiBi: return "alibi";
    }
    return "unknown";
}

std::optional<PositionalEncoding> parsePositional(const std::string &name)
{
    for (auto pe : {PositionalEncoding::None, PositionalEncoding::Sinusoidal, PositionalEncoding::RoPE,
                    PositionalEncoding::ALiBi})
        if (positionalName(pe) == name) return pe;
    return std::nullopt;
}

MhaWeights MhaWeights::random(std::int64_t dModel, std::int64_t heads, std::int64_t dHead, std::uint64_t seed)
{
    MhaWeights w;
    w.dModel = dModel;
    w.heads = heads;
    w.dHead = dHead;
    const std::int64_t inner = heads * dHead;
    detail::SplitMix64 rng(seed);
    auto xavier = [&](std::int64_t fanIn, std::int64_t fanOut) {
        const float bound = std::sqrt(6.0f / static_cast<float>(fanIn + fanOut));
        std::vector<float> m(static_cast<std::size_t>(fanIn * fanOut));
        for (float &x : m) x = rng.uniform(-bound, bound);
        return m;
    };
    w.wq = xavier(dModel, inner);
    w.wk = xavier(dModel, inner);
    w.wv = xavier(dModel, inner);
    w.wo = xavier(inner, dModel);
    return w;
}

Status validateMha(const MhaWeights &w)
{
    if (w.dModel <= 0 || w.heads <= 0 || w.dHead <= 0)
        return Status::invalid("attention layer has d_model " + std::to_string(w.dModel) + ", heads " +
                               std::to_string(w.heads) + ", d_head " + std::to_string(w.dHead) +
                               "; all must be at least 1");
    const std::size_t inner = static_cast<std::size_t>(w.heads * w.dHead);
    const std::size_t proj = static_cast<std::size_t>(w.dModel) * inner;
    auto check = [](const char *name, std::size_t got, std::size_t want, bool optional) -> Status {
        if ((optional && got == 0) || got == want) return Status::ok();
        return Status::invalid(std::string("attention layer ") + name + " has " + std::to_string(got) +
                               " values; expected " + std::to_string(want));
    };
    for (auto [name, vec] : {std::pair{"W_Q", &w.wq}, std::pair{"W_K", &w.wk}, std::pair{"W_V", &w.wv},
                             std::pair{"W_O", &w.wo}})
        if (Status s = check(name, vec->size(), proj, false); !s) return s;
    for (auto [name, vec] : {std::pair{"b_Q", &w.bq}, std::pair{"b_K", &w.bk}, std::pair{"b_V", &w.bv}})
        if (Status s = check(name, vec->size(), inner, true); !s) return s;
    return check("b_O", w.bo.size(), static_cast<std::size_t>(w.dModel), true);
}

void addSinusoidal(float *x, std::int64_t B, std::int64_t L, std::int64_t dModel, std::int64_t offset)
{
    for (std::int64_t p = 0; p < L; ++p) {
        const double pos = static_cast<double>(p + offset);
        for (std::int64_t i = 0; i < dModel; ++i) {
            const double freq = std::pow(10000.0, -static_cast<double>(i - (i % 2)) / static_cast<double>(dModel));
            const float pe = static_cast<float>(i % 2 == 0 ? std::sin(pos * freq) : std::cos(pos * freq));
            for (std::int64_t b = 0; b < B; ++b) x[(b * L + p) * dModel + i] += pe;
        }
    }
}

void applyRope(MutableTensorView t, float base, std::int64_t offset)
{
    // Rotate-half pairing (x_i, x_{i + d/2}) by angle pos · base^(-2i/d); an odd last channel is left alone.
    const std::int64_t d = t.shape[3], half = d / 2;
    for (std::int64_t p = 0; p < t.shape[2]; ++p) {
        for (std::int64_t i = 0; i < half; ++i) {
            const double theta = static_cast<double>(p + offset) *
                                 std::pow(static_cast<double>(base), -2.0 * static_cast<double>(i) / static_cast<double>(d));
            const float c = static_cast<float>(std::cos(theta)), s = static_cast<float>(std::sin(theta));
            for (std::int64_t b = 0; b < t.shape[0]; ++b)
                for (std::int64_t h = 0; h < t.shape[1]; ++h) {
                    float &x0 = t.at(b, h, p, i);
                    float &x1 = t.at(b, h, p, i + half);
                    const float a0 = x0, a1 = x1;
                    x0 = a0 * c - a1 * s;
                    x1 = a1 * c + a0 * s;
                }
        }
    }
}

// [B·L, H·dh] row-major projection output → contiguous [B, H, L, dh].
static Tensor splitHeads(const RowMat &m, std::int64_t B, std::int64_t L, std::int64_t H, std::int64_t dh)
{
    Tensor t({B, H, L, dh});
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t h = 0; h < H; ++h)
            for (std::int64_t p = 0; p < L; ++p)
                for (std::int64_t c = 0; c < dh; ++c) t.view().at(b, h, p, c) = m(b * L + p, h * dh + c);
    return t;
}

Result<MhaOutput> multiHeadAttention(const float *x, std::int64_t B, std::int64_t L, const MhaWeights &w,
                                     const MaskSpec &mask, const MhaOptions &options)
{
    if (Status s = validateMha(w); !s) return s;
    if (!x) return Status::invalid("multi-head attention input x has no data (null pointer)");
    if (B <= 0 || L <= 0)
        return Status::invalid("multi-head attention input has batch " + std::to_string(B) + " and length " +
                               std::to_string(L) + "; both must be at least 1");
    const std::int64_t D = w.dModel, H = w.heads, dh = w.dHead, inner = H * dh;

    RowMat xs = ConstMapRow(x, B * L, D);
    if (options.positional == PositionalEncoding::Sinusoidal) addSinusoidal(xs.data(), B, L, D, options.positionOffset);

    auto project = [&](const std::vector<float> &W, const std::vector<float> &bias) {
        RowMat y = xs * ConstMapRow(W.data(), D, inner);
        if (!bias.empty()) y.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(bias.data(), inner);
        return y;
    };
    MhaOutput out;
    out.q = splitHeads(project(w.wq, w.bq), B, L, H, dh);
    out.k = splitHeads(project(w.wk, w.bk), B, L, H, dh);
    out.v = splitHeads(project(w.wv, w.bv), B, L, H, dh);
    if (options.positional == PositionalEncoding::RoPE) {
        applyRope(out.q.view(), options.ropeBase, options.positionOffset);
        applyRope(out.k.view(), options.ropeBase, options.positionOffset);
    }

    const MaskSpec *effective = &mask;
    MaskSpec withAlibi;
    if (options.positional == PositionalEncoding::ALiBi && mask.alibiSlopes.empty()) {
        withAlibi = mask;
        withAlibi.alibiSlopes = alibiSlopes(H);
        effective = &withAlibi;
    }
    auto att = attention(out.q.view(), out.k.view(), out.v.view(), *effective, options.attention);
    if (!att) return att.status();
    out.attention = std::move(att).value();

    // Concatenate heads back to [B·L, H·dh] and project with W_O.
    RowMat concat(B * L, inner);
    const TensorView o = out.attention.out.view();
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t h = 0; h < H; ++h)
            for (std::int64_t p = 0; p < L; ++p)
                for (std::int64_t c = 0; c < dh; ++c) concat(b * L + p, h * dh + c) = o.at(b, h, p, c);
    out.y = Tensor({B, 1, L, D});
    MapRow y(out.y.values.data(), B * L, D);
    y.noalias() = concat * ConstMapRow(w.wo.data(), inner, D);
    if (!w.bo.empty()) y.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(w.bo.data(), D);
    return out;
}

} // namespace attn
