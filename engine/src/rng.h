// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A tiny deterministic generator (SplitMix64) so that "seed = 7" means the same numbers on every platform and
// standard library (std::uniform_real_distribution is implementation-defined).
#include <cstdint>

namespace attn::detail {

class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : m_state(seed) {}
    std::uint64_t next()
    {
        std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // Uniform in [0, 1) with 24 random bits: exactly representable as a float.
    float uniform() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }
    float uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }

private:
    std::uint64_t m_state;
};

} // namespace attn::detail
