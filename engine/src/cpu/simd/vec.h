// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one vector type the tiled kernels are written against, chosen at compile time from the target ISA
// (the engine builds with -march=native by default). Each header below defines, in attn::detail::simd:
//
//   struct Vec                       kLanes fp32 lanes
//   kLanes                           lanes per Vec
//   kQueryVecs                       Vecs per query block (query block = kLanes * kQueryVecs rows)
//   kScoreRows, kValueRows           register-block heights of the two tile GEMMs (see microkernel.h)
//   kLevel                           "avx512", "avx2" or "scalar"
//   zero, set1, load, store, add, sub, mul, div, fma(a, b, c) = a * b + c, max, absolute
//   keepInRange(x, c, lo, hi)        x where lo <= c <= hi, else -inf (lane-wise)
//   negInfToZero(x)                  0 where x == -inf, else x
//   selectLess(a, b, x, y)           a < b ? x : y (lane-wise)
//   copySign(m, s)                   |m| with the sign of s
//   exp2(x)                          2^x for x <= 0; exactly 0 for x < -125 (so -inf gives 0, never NaN)
//
// tanh.h adds tanh(x) for the soft-cap.
//
// exp2 is a degree-7 polynomial on the reduced argument f = x - round(x) in [-0.5, 0.5] (Taylor
// coefficients of 2^f; truncation error < 6e-9 relative, i.e. well under one ulp), then scaled by 2^round(x).

#if defined(__AVX512F__)
#include "vec_avx512.h"
#elif defined(__AVX2__) && defined(__FMA__)
#include "vec_avx2.h"
#else
#include "vec_scalar.h"
#endif

namespace attn::detail::simd {

// Coefficients of 2^f = sum_k (ln 2)^k / k! * f^k.
inline constexpr float kExp2C1 = 0.693147180559945309f;
inline constexpr float kExp2C2 = 0.240226506959100712f;
inline constexpr float kExp2C3 = 0.0555041086648215800f;
inline constexpr float kExp2C4 = 0.00961812910762847717f;
inline constexpr float kExp2C5 = 0.00133335581464284434f;
inline constexpr float kExp2C6 = 0.000154035303933816100f;
inline constexpr float kExp2C7 = 0.0000152527338040598403f;

inline Vec exp2Poly(Vec f)
{
    Vec p = set1(kExp2C7);
    p = fma(p, f, set1(kExp2C6));
    p = fma(p, f, set1(kExp2C5));
    p = fma(p, f, set1(kExp2C4));
    p = fma(p, f, set1(kExp2C3));
    p = fma(p, f, set1(kExp2C2));
    p = fma(p, f, set1(kExp2C1));
    return fma(p, f, set1(1.0f));
}

} // namespace attn::detail::simd

#if defined(__AVX512F__)
#include "exp2_avx512.h"
#elif defined(__AVX2__) && defined(__FMA__)
#include "exp2_avx2.h"
#else
#include "exp2_scalar.h"
#endif
