// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// AVX-512F implementation of the Vec interface documented in vec.h.

#include <immintrin.h>

#include <limits>

namespace attn::detail::simd {

struct Vec {
    __m512 v;
};

inline constexpr int kLanes = 16;
inline constexpr int kQueryVecs = 4;   // 64-row query blocks
inline constexpr int kScoreRows = 6;   // 6 x 4 zmm accumulators: 24 of 32 registers
inline constexpr int kValueRows = 6;
inline constexpr const char *kLevel = "avx512";

inline Vec zero() { return {_mm512_setzero_ps()}; }
inline Vec set1(float x) { return {_mm512_set1_ps(x)}; }
inline Vec load(const float *p) { return {_mm512_loadu_ps(p)}; }
inline void store(float *p, Vec a) { _mm512_storeu_ps(p, a.v); }
inline Vec add(Vec a, Vec b) { return {_mm512_add_ps(a.v, b.v)}; }
inline Vec sub(Vec a, Vec b) { return {_mm512_sub_ps(a.v, b.v)}; }
inline Vec mul(Vec a, Vec b) { return {_mm512_mul_ps(a.v, b.v)}; }
inline Vec div(Vec a, Vec b) { return {_mm512_div_ps(a.v, b.v)}; }
inline Vec fma(Vec a, Vec b, Vec c) { return {_mm512_fmadd_ps(a.v, b.v, c.v)}; }
inline Vec max(Vec a, Vec b) { return {_mm512_max_ps(a.v, b.v)}; }
inline Vec absolute(Vec a) { return {_mm512_abs_ps(a.v)}; }

inline Vec keepInRange(Vec x, Vec c, Vec lo, Vec hi)
{
    const __mmask16 keep = _mm512_cmp_ps_mask(lo.v, c.v, _CMP_LE_OQ) & _mm512_cmp_ps_mask(c.v, hi.v, _CMP_LE_OQ);
    return {_mm512_mask_blend_ps(keep, _mm512_set1_ps(-std::numeric_limits<float>::infinity()), x.v)};
}

// a < b ? x : y, lane-wise.
inline Vec selectLess(Vec a, Vec b, Vec x, Vec y)
{
    return {_mm512_mask_blend_ps(_mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ), y.v, x.v)};
}
// |magnitude| with the sign of `sign`.
inline Vec copySign(Vec magnitude, Vec sign)
{
    const __m512i signBit = _mm512_set1_epi32(static_cast<int>(0x80000000u));
    const __m512i m = _mm512_andnot_si512(signBit, _mm512_castps_si512(magnitude.v));
    return {_mm512_castsi512_ps(_mm512_or_si512(m, _mm512_and_si512(signBit, _mm512_castps_si512(sign.v))))};
}

inline Vec negInfToZero(Vec x)
{
    const __mmask16 isNegInf =
        _mm512_cmp_ps_mask(x.v, _mm512_set1_ps(-std::numeric_limits<float>::infinity()), _CMP_EQ_OQ);
    return {_mm512_mask_blend_ps(isNegInf, x.v, _mm512_setzero_ps())};
}

} // namespace attn::detail::simd
