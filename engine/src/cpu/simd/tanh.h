// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// tanh on Vec (vec.h), for the logit soft-cap s = cap · tanh(s / cap). Error <= 2 ulp over the whole float range
// (measured against the double-precision tanh: 1.1 ulp below |x| = 0.55, 1.8 ulp above), so a soft-capped score
// is as exact as std::tanh in float within a rounding or two.
//
//   |x| < 0.55:  x + x·y·P(y), y = x²         P: degree-4 minimax fit of (tanh(x)/x − 1)/y on [0, 0.3025]
//                                              (fitted for this file, relative weighting)
//   |x| >= 0.55: sign(x) · (1 − e) / (1 + e)   e = exp(−2|x|) = 2^(−2|x|·log2 e): e <= 1/3, so no cancellation;
//                                              e underflows to exactly 0 for |x| > 43, giving ±1 (never NaN)

#include "vec.h"

namespace attn::detail::simd {

inline Vec tanh(Vec x)
{
    const Vec y = mul(x, x);
    Vec p = set1(-0.0062742712907493114f);
    p = fma(p, y, set1(0.021071700379252434f));
    p = fma(p, y, set1(-0.05385231599211693f));
    p = fma(p, y, set1(0.13332585990428925f));
    p = fma(p, y, set1(-0.33333316445350647f));
    const Vec small = fma(mul(x, y), p, x);

    const Vec ax = absolute(x);
    const Vec e = exp2(mul(ax, set1(-2.0f * 1.44269504088896340736f)));
    const Vec big = copySign(div(sub(set1(1.0f), e), add(set1(1.0f), e)), x);
    return selectLess(ax, set1(0.55f), small, big);
}

} // namespace attn::detail::simd
