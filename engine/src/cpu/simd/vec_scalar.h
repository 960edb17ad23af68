// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Portable implementation of the Vec interface documented in vec.h: four floats in an array, plain loops
// (compilers vectorise them with whatever the target has).

#include <cmath>
#include <limits>

namespace attn::detail::simd {

inline constexpr int kLanes = 4;
inline constexpr int kQueryVecs = 4;   // 16-row query blocks
inline constexpr int kScoreRows = 4;
inline constexpr int kValueRows = 4;
inline constexpr const char *kLevel = "scalar";

struct Vec {
    float v[kLanes];
};

template <typename F>
inline Vec lanewise(F f)
{
    Vec r;
    for (int i = 0; i < kLanes; ++i) r.v[i] = f(i);
    return r;
}

inline Vec zero() { return lanewise([](int) { return 0.0f; }); }
inline Vec set1(float x) { return lanewise([x](int) { return x; }); }
inline Vec load(const float *p) { return lanewise([p](int i) { return p[i]; }); }
inline void store(float *p, Vec a) { for (int i = 0; i < kLanes; ++i) p[i] = a.v[i]; }
inline Vec add(Vec a, Vec b) { return lanewise([&](int i) { return a.v[i] + b.v[i]; }); }
inline Vec sub(Vec a, Vec b) { return lanewise([&](int i) { return a.v[i] - b.v[i]; }); }
inline Vec mul(Vec a, Vec b) { return lanewise([&](int i) { return a.v[i] * b.v[i]; }); }
inline Vec div(Vec a, Vec b) { return lanewise([&](int i) { return a.v[i] / b.v[i]; }); }
inline Vec fma(Vec a, Vec b, Vec c) { return lanewise([&](int i) { return std::fma(a.v[i], b.v[i], c.v[i]); }); }
inline Vec max(Vec a, Vec b) { return lanewise([&](int i) { return a.v[i] < b.v[i] ? b.v[i] : a.v[i]; }); }
inline Vec absolute(Vec a) { return lanewise([&](int i) { return std::fabs(a.v[i]); }); }

inline Vec keepInRange(Vec x, Vec c, Vec lo, Vec hi)
{
    return lanewise([&](int i) {
        return (lo.v[i] <= c.v[i] && c.v[i] <= hi.v[i]) ? x.v[i] : -std::numeric_limits<float>::infinity();
    });
}

inline Vec selectLess(Vec a, Vec b, Vec x, Vec y)
{
    return lanewise([&](int i) { return a.v[i] < b.v[i] ? x.v[i] : y.v[i]; });
}
inline Vec copySign(Vec magnitude, Vec sign)
{
    return lanewise([&](int i) { return std::copysign(magnitude.v[i], sign.v[i]); });
}

inline Vec negInfToZero(Vec x)
{
    return lanewise([&](int i) { return x.v[i] == -std::numeric_limits<float>::infinity() ? 0.0f : x.v[i]; });
}

} // namespace attn::detail::simd
