// SPDX-License-Identifier: GPL-3.0-or-later
#include <attnscope/mask.h>

#include <cmath>
#include <limits>
#include <sstream>

namespace attn {

MaskSpec MaskSpec::keyPadding(const std::vector<std::int64_t> &lengths, std::int64_t Lk)
{
    MaskSpec m;
    m.keyValid.assign(lengths.size() * static_cast<std::size_t>(Lk), 0);
    for (std::size_t b = 0; b < lengths.size(); ++b)
        for (std::int64_t j = 0; j < Lk && j < lengths[b]; ++j)
            m.keyValid[b * static_cast<std::size_t>(Lk) + static_cast<std::size_t>(j)] = 1;
    return m;
}

std::string MaskSpec::describe() const
{
    std::ostringstream s;
    const char *sep = "";
    auto add = [&](const std::string &part) { s << sep << part; sep = " + "; };
    if (causal) add("causal");
    if (window >= 0) add("window " + std::to_string(window));
    if (block > 0) add("block " + std::to_string(block));
    if (!keyValid.empty()) add("key padding");
    if (!queryValid.empty()) add("query padding");
    if (!allowed.empty()) add("custom boolean");
    if (!additive.empty()) add("custom additive");
    if (!headBias.empty()) add("head bias");
    if (!alibiSlopes.empty()) add("ALiBi");
    if (isEmpty()) add("bidirectional");
    return s.str();
}

static std::string sizeMismatch(const char *field, std::size_t got, const std::string &expected)
{
    return "mask." + std::string(field) + " has " + std::to_string(got) + " entries; expected " + expected;
}

Status validateMask(const MaskSpec &m, std::int64_t B, std::int64_t H, std::int64_t Lq, std::int64_t Lk)
{
    const auto n = [](std::int64_t a, std::int64_t b) { return static_cast<std::size_t>(a * b); };
    if (m.block < 0) return Status::invalid("mask.block is " + std::to_string(m.block) + "; use 0 for off or a block size > 0");
    if (m.window < -1) return Status::invalid("mask.window is " + std::to_string(m.window) + "; use -1 for off or a width >= 0");
    if (!m.keyValid.empty() && m.keyValid.size() != n(B, Lk))
        return Status::invalid(sizeMismatch("keyValid", m.keyValid.size(),
                                            "B*Lk = " + std::to_string(B) + "*" + std::to_string(Lk)));
    if (!m.queryValid.empty() && m.queryValid.size() != n(B, Lq))
        return Status::invalid(sizeMismatch("queryValid", m.queryValid.size(),
                                            "B*Lq = " + std::to_string(B) + "*" + std::to_string(Lq)));
    const std::string planes = "Lq*Lk = " + std::to_string(Lq) + "*" + std::to_string(Lk) + " or B*Lq*Lk = " +
                               std::to_string(B) + "*" + std::to_string(Lq) + "*" + std::to_string(Lk);
    if (!m.allowed.empty() && m.allowed.size() != n(Lq, Lk) && m.allowed.size() != n(B, Lq) * static_cast<std::size_t>(Lk))
        return Status::invalid(sizeMismatch("allowed", m.allowed.size(), planes));
    if (!m.additive.empty()) {
        if (m.additive.size() != n(Lq, Lk) && m.additive.size() != n(B, Lq) * static_cast<std::size_t>(Lk))
            return Status::invalid(sizeMismatch("additive", m.additive.size(), planes));
        for (float a : m.additive)
            if (std::isnan(a) || a == std::numeric_limits<float>::infinity())
                return Status::invalid("mask.additive contains NaN or +inf; use -inf to forbid a key");
    }
    if (!m.headBias.empty()) {
        if (m.headBias.size() != n(H, Lq) * static_cast<std::size_t>(Lk))
            return Status::invalid(sizeMismatch("headBias", m.headBias.size(),
                                                "H*Lq*Lk = " + std::to_string(H) + "*" + std::to_string(Lq) + "*" +
                                                    std::to_string(Lk)));
        for (float a : m.headBias)
            if (std::isnan(a) || a == std::numeric_limits<float>::infinity())
                return Status::invalid("mask.headBias contains NaN or +inf; use -inf to forbid a key");
    }
    if (!m.alibiSlopes.empty()) {
        if (m.alibiSlopes.size() != static_cast<std::size_t>(H))
            return Status::invalid(sizeMismatch("alibiSlopes", m.alibiSlopes.size(), "one per query head, H = " + std::to_string(H)));
        for (float s : m.alibiSlopes)
            if (!std::isfinite(s)) return Status::invalid("mask.alibiSlopes contains a non-finite slope");
    }
    return Status::ok();
}

std::vector<float> alibiSlopes(std::int64_t heads)
{
    // Press et al.: for a power of two n, slopes are 2^(-8/n), 2^(-16/n), ...; otherwise take the slopes of the
    // nearest lower power of two and fill up with every other slope of the next power of two.
    auto powerOfTwoSlopes = [](std::int64_t n) {
        std::vector<float> s;
        const double start = std::pow(2.0, -8.0 / static_cast<double>(n));
        double v = start;
        for (std::int64_t i = 0; i < n; ++i, v *= start) s.push_back(static_cast<float>(v));
        return s;
    };
    if (heads <= 0) return {};
    std::int64_t p = 1;
    while (p * 2 <= heads) p *= 2;
    std::vector<float> slopes = powerOfTwoSlopes(p);
    if (p != heads) {
        const std::vector<float> extra = powerOfTwoSlopes(2 * p);
        for (std::size_t i = 0; static_cast<std::int64_t>(slopes.size()) < heads; i += 2) slopes.push_back(extra[i]);
    }
    return slopes;
}

} // namespace attn
