// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Natural exp on Vec (vec.h) for the model's elementwise kernels, accurate to ~1 ulp (the attention kernels use
// exp2 with the scale folded in; here the argument is arbitrary, and rounding x·log2 e would cost |x|·2^-24 of
// relative error). Cody–Waite reduction x = n·ln 2 + r, |r| <= ln 2 / 2, with ln 2 split in two so n·ln2_hi is
// exact; e^r by its Taylor series to degree 7 (truncation < 2.5e-8 relative, about 0.4 ulp).
//   expNonPositive(x)   for x <= 0; exactly 0 below -86.5 (e^x < 2.6e-38, about the smallest normal float),
//                       so -inf gives 0

#include "vec.h"

namespace attn::detail::simd {

inline Vec expNonPositive(Vec x)
{
    const Vec live = selectLess(x, set1(-86.5f), zero(), set1(1.0f));
    const Vec xc = max(x, set1(-86.5f));
    Vec n = mul(xc, set1(1.44269504088896340736f));
    // n = the nearest integer to x·log2 e
    n = sub(add(n, set1(12582912.0f)), set1(12582912.0f));   // 1.5·2^23: exact rounding for |n| < 2^22
    Vec r = fma(n, set1(-0.693145751953125f), xc);              // ln2_hi: 16 significant bits, n·ln2_hi exact
    r = fma(n, set1(-1.428606765330187045e-06f), r);            // ln2_lo = ln 2 − ln2_hi
    Vec p = set1(1.0f / 5040.0f);
    p = fma(p, r, set1(1.0f / 720.0f));
    p = fma(p, r, set1(1.0f / 120.0f));
    p = fma(p, r, set1(1.0f / 24.0f));
    p = fma(p, r, set1(1.0f / 6.0f));
    p = fma(p, r, set1(0.5f));
    p = fma(p, r, set1(1.0f));
    p = fma(p, r, set1(1.0f));
    // 2^n through exp2 of the (exactly integral) n: exp2 of an integer is its scale factor times p(0) = 1.
    return mul(mul(p, exp2(n)), live);
}

} // namespace attn::detail::simd
