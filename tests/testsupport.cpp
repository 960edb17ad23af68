// SPDX-License-Identifier: GPL-3.0-or-later
#include "testsupport.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace attn::test {

std::uint64_t Rng::next()
{
    std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double Rng::uniform()
{
    return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

double Rng::normal()
{
    if (m_haveSpare) {
        m_haveSpare = false;
        return m_spare;
    }
    double u1 = uniform();
    while (u1 <= 0.0) u1 = uniform();
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double t = 6.283185307179586 * u2;
    m_spare = r * std::sin(t);
    m_haveSpare = true;
    return r * std::cos(t);
}

std::int64_t Rng::below(std::int64_t n)
{
    return n <= 0 ? 0 : static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n));
}

std::vector<float> randomNormal(std::size_t count, std::uint64_t seed, float amp)
{
    Rng rng(seed);
    std::vector<float> values(count);
    for (auto &x : values) x = static_cast<float>(amp * rng.normal());
    return values;
}

const char *layoutName(Layout layout)
{
    switch (layout) {
    case Layout::BHLD: return "bhld";
    case Layout::BLHD: return "blhd";
    case Layout::Padded: return "padded";
    case Layout::Interleaved: return "interleaved";
    }
    return "?";
}

Operand makeOperand(Shape4 shape, Layout layout, std::uint64_t seed, float amp)
{
    const auto [B, H, L, D] = shape;
    Operand op;
    op.shape = shape;
    // A poison value in the gaps: a kernel that reads outside the view sees NaN and fails loudly.
    const float poison = std::numeric_limits<float>::quiet_NaN();
    switch (layout) {
    case Layout::BHLD:
        op.storage.assign(static_cast<std::size_t>(B * H * L * D), poison);
        op.strides = {H * L * D, L * D, D, 1};
        break;
    case Layout::BLHD: {
        op.storage.assign(static_cast<std::size_t>(B * H * L * D), poison);
        const TensorView v = TensorView::fromBLHD(op.storage.data(), B, L, H, D);
        op.strides = v.strides;
        break;
    }
    case Layout::Padded: {
        const std::int64_t row = D + 3, head = L * row + 5, batch = H * head + 7;
        op.storage.assign(static_cast<std::size_t>(B * batch + 11), poison);
        op.offset = 2;
        op.strides = {batch, head, row, 1};
        break;
    }
    case Layout::Interleaved:
        op.storage.assign(static_cast<std::size_t>(2 * B * H * L * D + 1), poison);
        op.strides = {2 * H * L * D, 2 * L * D, 2 * D, 2};
        break;
    }
    Rng rng(seed);
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t h = 0; h < H; ++h)
            for (std::int64_t i = 0; i < L; ++i)
                for (std::int64_t d = 0; d < D; ++d)
                    op.at(b, h, i, d) = static_cast<float>(amp * rng.normal());
    return op;
}

Operand operandFromValues(Shape4 shape, const std::vector<float> &values)
{
    Operand op;
    op.shape = shape;
    op.storage = values;
    op.strides = {shape[1] * shape[2] * shape[3], shape[2] * shape[3], shape[3], 1};
    return op;
}

const char *maskKindName(MaskKind kind)
{
    switch (kind) {
    case MaskKind::Bidirectional: return "bidirectional";
    case MaskKind::Causal: return "causal";
    case MaskKind::KeyPadding: return "keypad";
    case MaskKind::QueryPadding: return "querypad";
    case MaskKind::Window: return "window";
    case MaskKind::WindowCausal: return "window+causal";
    case MaskKind::Block: return "block";
    case MaskKind::BoolCustom: return "bool";
    case MaskKind::BoolCustomBatched: return "bool[B]";
    case MaskKind::AdditiveCustom: return "additive";
    case MaskKind::AdditiveBatched: return "additive[B]";
    case MaskKind::Alibi: return "alibi";
    case MaskKind::CausalLeftPadding: return "causal+leftpad";
    case MaskKind::CausalKeyPadding: return "causal+keypad";
    case MaskKind::Everything: return "everything";
    }
    return "?";
}

namespace {

std::vector<std::uint8_t> endKeyPadding(std::int64_t B, std::int64_t Lk)
{
    std::vector<std::uint8_t> valid(static_cast<std::size_t>(B * Lk), 0);
    for (std::int64_t b = 0; b < B; ++b) {
        const std::int64_t len = std::max<std::int64_t>(1, b == 0 ? Lk - Lk / 4 : Lk / 2 + 1 - b);
        for (std::int64_t j = 0; j < std::min(len, Lk); ++j) valid[static_cast<std::size_t>(b * Lk + j)] = 1;
    }
    return valid;
}

std::vector<std::uint8_t> queryPadding(std::int64_t B, std::int64_t Lq)
{
    std::vector<std::uint8_t> valid(static_cast<std::size_t>(B * Lq), 0);
    for (std::int64_t b = 0; b < B; ++b) {
        const std::int64_t len = std::max<std::int64_t>(0, Lq - (Lq + 2) / 3 - b);
        for (std::int64_t i = 0; i < len; ++i) valid[static_cast<std::size_t>(b * Lq + i)] = 1;
    }
    return valid;
}

std::vector<float> slopes(std::int64_t H)
{
    // m_h = 2^(-8 (h+1) / H): the ALiBi geometric sequence; independent of attn::alibiSlopes (tested separately).
    std::vector<float> m(static_cast<std::size_t>(H));
    for (std::int64_t h = 0; h < H; ++h) m[static_cast<std::size_t>(h)] = std::exp2(-8.0f * (h + 1) / H);
    return m;
}

} // namespace

MaskSpec makeMask(MaskKind kind, std::int64_t B, std::int64_t H, std::int64_t Lq, std::int64_t Lk,
                  std::uint64_t seed)
{
    Rng rng(seed ^ 0x5A5A5A5Aull);
    const float ninf = -std::numeric_limits<float>::infinity();
    const std::int64_t window = 2 + Lk / 8;
    MaskSpec m;
    switch (kind) {
    case MaskKind::Bidirectional:
        break;
    case MaskKind::Causal:
        m.causal = true;
        break;
    case MaskKind::KeyPadding:
        m.keyValid = endKeyPadding(B, Lk);
        break;
    case MaskKind::QueryPadding:
        m.queryValid = queryPadding(B, Lq);
        break;
    case MaskKind::Window:
        m.window = window;
        break;
    case MaskKind::WindowCausal:
        m.window = window;
        m.causal = true;
        break;
    case MaskKind::Block:
        m.block = 3 + Lk / 10;
        break;
    case MaskKind::BoolCustom:
        m.allowed.resize(static_cast<std::size_t>(Lq * Lk));
        for (auto &a : m.allowed) a = rng.uniform() < 0.75 ? 1 : 0;
        break;
    case MaskKind::BoolCustomBatched:
        m.allowed.resize(static_cast<std::size_t>(B * Lq * Lk));
        for (auto &a : m.allowed) a = rng.uniform() < 0.7 ? 1 : 0;
        for (std::int64_t j = 0; j < Lk; ++j) m.allowed[static_cast<std::size_t>((Lq / 2) * Lk + j)] = 0;
        break;
    case MaskKind::AdditiveCustom:
        m.additive.resize(static_cast<std::size_t>(Lq * Lk));
        for (auto &a : m.additive) a = rng.uniform() < 0.1 ? ninf : static_cast<float>(1.5 * rng.normal());
        break;
    case MaskKind::AdditiveBatched:
        m.additive.resize(static_cast<std::size_t>(B * Lq * Lk));
        for (auto &a : m.additive) a = rng.uniform() < 0.05 ? ninf : static_cast<float>(2.0 * rng.normal());
        break;
    case MaskKind::Alibi:
        m.alibiSlopes = slopes(H);
        break;
    case MaskKind::CausalLeftPadding:
        m.causal = true;
        m.keyValid.assign(static_cast<std::size_t>(B * Lk), 1);
        for (std::int64_t b = 0; b < B; ++b)
            for (std::int64_t j = 0; j < std::min(Lk, (Lk + 3) / 4 + b); ++j)
                m.keyValid[static_cast<std::size_t>(b * Lk + j)] = 0;
        break;
    case MaskKind::CausalKeyPadding:
        m.causal = true;
        m.keyValid = endKeyPadding(B, Lk);
        break;
    case MaskKind::Everything:
        m.causal = true;
        m.window = window;
        m.keyValid = endKeyPadding(B, Lk);
        m.queryValid = queryPadding(B, Lq);
        m.additive.resize(static_cast<std::size_t>(Lq * Lk));
        for (auto &a : m.additive) a = static_cast<float>(rng.normal());
        m.alibiSlopes = slopes(H);
        break;
    }
    return m;
}

bool rowFullyMasked(const MaskSpec &mask, std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t Lq,
                    std::int64_t Lk)
{
    for (std::int64_t j = 0; j < Lk; ++j)
        if (maskBias(mask, b, h, i, j, Lq, Lk) != -std::numeric_limits<float>::infinity()) return false;
    return true;
}

NaiveOutput naiveAttention(const TensorView &q, const TensorView &k, const TensorView &v, const MaskSpec &mask,
                           float scale, bool keepWeights, float softcap)
{
    const std::int64_t B = q.shape[0], H = q.shape[1], Lq = q.shape[2], D = q.shape[3];
    const std::int64_t Hkv = k.shape[1], Lk = k.shape[2], Dv = v.shape[3];
    const float s = scale != 0.0f ? scale : 1.0f / std::sqrt(static_cast<float>(D));
    const float ninf = -std::numeric_limits<float>::infinity();
    NaiveOutput r;
    r.out.assign(static_cast<std::size_t>(B * H * Lq * Dv), 0.0f);
    r.lse.assign(static_cast<std::size_t>(B * H * Lq), 0.0f);
    if (keepWeights) r.P.assign(static_cast<std::size_t>(B * H * Lq * Lk), 0.0f);

    std::vector<float> kc(static_cast<std::size_t>(Lk * D)), vc(static_cast<std::size_t>(Lk * Dv));
    std::vector<float> qi(static_cast<std::size_t>(D)), sc(static_cast<std::size_t>(Lk));
    std::vector<float> acc(static_cast<std::size_t>(Dv));
    for (std::int64_t b = 0; b < B; ++b) {
        for (std::int64_t h = 0; h < H; ++h) {
            const std::int64_t hk = h / (H / Hkv);
            for (std::int64_t j = 0; j < Lk; ++j) {
                for (std::int64_t d = 0; d < D; ++d) kc[static_cast<std::size_t>(j * D + d)] = k.at(b, hk, j, d);
                for (std::int64_t d = 0; d < Dv; ++d) vc[static_cast<std::size_t>(j * Dv + d)] = v.at(b, hk, j, d);
            }
            for (std::int64_t i = 0; i < Lq; ++i) {
                for (std::int64_t d = 0; d < D; ++d) qi[static_cast<std::size_t>(d)] = q.at(b, h, i, d);
                float mx = ninf;
                for (std::int64_t j = 0; j < Lk; ++j) {
                    const float bias = maskBias(mask, b, h, i, j, Lq, Lk);
                    float x = ninf;
                    if (bias != ninf) {
                        float dot = 0.0f;
                        for (std::int64_t d = 0; d < D; ++d)
                            dot += qi[static_cast<std::size_t>(d)] * kc[static_cast<std::size_t>(j * D + d)];
                        x = s * dot;
                        if (softcap > 0.0f) x = softcap * std::tanh(x / softcap);
                        x += bias;
                    }
                    sc[static_cast<std::size_t>(j)] = x;
                    mx = std::max(mx, x);
                }
                const std::size_t row = static_cast<std::size_t>((b * H + h) * Lq + i);
                if (mx == ninf) {
                    r.lse[row] = std::numeric_limits<float>::infinity();
                    continue; // output and weights stay 0
                }
                float sum = 0.0f;
                for (auto &x : sc) {
                    x = std::exp(x - mx);
                    sum += x;
                }
                r.lse[row] = mx + std::log(sum);
                std::fill(acc.begin(), acc.end(), 0.0f);
                for (std::int64_t j = 0; j < Lk; ++j) {
                    const float p = sc[static_cast<std::size_t>(j)] / sum;
                    if (keepWeights) r.P[row * static_cast<std::size_t>(Lk) + static_cast<std::size_t>(j)] = p;
                    for (std::int64_t d = 0; d < Dv; ++d)
                        acc[static_cast<std::size_t>(d)] += p * vc[static_cast<std::size_t>(j * Dv + d)];
                }
                std::copy(acc.begin(), acc.end(), r.out.begin() + static_cast<std::ptrdiff_t>(row * Dv));
            }
        }
    }
    return r;
}

namespace {

template <typename B>
ErrorStat compareImpl(const float *a, const B *b, std::size_t n)
{
    ErrorStat e;
    for (std::size_t i = 0; i < n; ++i) {
        const double x = a[i], y = static_cast<double>(b[i]);
        const bool fx = std::isfinite(x), fy = std::isfinite(y);
        if (!fx || !fy) {
            if (!(std::isinf(x) && std::isinf(y) && (x > 0) == (y > 0))) ++e.mismatchedInf;
            continue;
        }
        e.refMaxAbs = std::max(e.refMaxAbs, std::abs(y));
        const double d = std::abs(x - y);
        if (d > e.maxAbs) {
            e.maxAbs = d;
            e.where = i;
        }
    }
    return e;
}

} // namespace

ErrorStat compare(const float *a, const double *b, std::size_t n) { return compareImpl(a, b, n); }
ErrorStat compare(const float *a, const float *b, std::size_t n) { return compareImpl(a, b, n); }

std::size_t countNonFinite(const float *a, std::size_t n)
{
    return static_cast<std::size_t>(std::count_if(a, a + n, [](float x) { return !std::isfinite(x); }));
}

std::string ErrorStat::describe() const
{
    char buf[160];
    std::snprintf(buf, sizeof buf, "max|err|=%.3g at flat index %zu (ref max|x|=%.3g), inf/NaN mismatches=%zu",
                  maxAbs, where, refMaxAbs, mismatchedInf);
    return buf;
}

std::string fmt(double x)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", x);
    return buf;
}

} // namespace attn::test
