// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Portable exp2 (see vec.h), same reduction as the SIMD versions so every build rounds alike.

#include "vec.h"

#include <cmath>

namespace attn::detail::simd {

inline Vec exp2(Vec x)
{
    Vec f, r;
    int n[kLanes];
    for (int i = 0; i < kLanes; ++i) {
        // Clamped on both sides and NaN mapped to 0 before the int conversion, which is undefined for NaN and for
        // values past INT_MAX (SiLU's exp(-v) of a very negative v, a NaN score): 2^129 is already infinity.
        const float xv = x.v[i];
        const float xc = std::isnan(xv) ? 0.0f : xv < -125.0f ? -125.0f : xv > 129.0f ? 129.0f : xv;
        const float nf = std::nearbyint(xc);
        n[i] = static_cast<int>(nf);
        f.v[i] = xc - nf;
    }
    const Vec p = exp2Poly(f);
    for (int i = 0; i < kLanes; ++i)
        r.v[i] = std::isnan(x.v[i]) ? x.v[i] : x.v[i] >= -125.0f ? std::ldexp(p.v[i], n[i]) : 0.0f;
    return r;
}

} // namespace attn::detail::simd
