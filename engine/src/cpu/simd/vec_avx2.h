// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// AVX2 + FMA implementation of the Vec interface documented in vec.h.

#include <immintrin.h>

#include <limits>

namespace attn::detail::simd {

struct Vec {
    __m256 v;
};

inline constexpr int kLanes = 8;
inline constexpr int kQueryVecs = 4;   // 32-row query blocks
inline constexpr int kScoreRows = 2;   // 2 x 4 ymm accumulators + 4 operands: fits 16 registers
inline constexpr int kValueRows = 2;
inline constexpr const char *kLevel = "avx2";

inline Vec zero() { return {_mm256_setzero_ps()}; }
inline Vec set1(float x) { return {_mm256_set1_ps(x)}; }
inline Vec load(const float *p) { return {_mm256_loadu_ps(p)}; }
inline void store(float *p, Vec a) { _mm256_storeu_ps(p, a.v); }
inline Vec add(Vec a, Vec b) { return {_mm256_add_ps(a.v, b.v)}; }
inline Vec sub(Vec a, Vec b) { return {_mm256_sub_ps(a.v, b.v)}; }
inline Vec mul(Vec a, Vec b) { return {_mm256_mul_ps(a.v, b.v)}; }
inline Vec div(Vec a, Vec b) { return {_mm256_div_ps(a.v, b.v)}; }
inline Vec fma(Vec a, Vec b, Vec c) { return {_mm256_fmadd_ps(a.v, b.v, c.v)}; }
inline Vec max(Vec a, Vec b) { return {_mm256_max_ps(a.v, b.v)}; }
inline Vec absolute(Vec a) { return {_mm256_andnot_ps(_mm256_set1_ps(-0.0f), a.v)}; }

inline Vec keepInRange(Vec x, Vec c, Vec lo, Vec hi)
{
    const __m256 keep = _mm256_and_ps(_mm256_cmp_ps(lo.v, c.v, _CMP_LE_OQ), _mm256_cmp_ps(c.v, hi.v, _CMP_LE_OQ));
    return {_mm256_blendv_ps(_mm256_set1_ps(-std::numeric_limits<float>::infinity()), x.v, keep)};
}

// a < b ? x : y, lane-wise.
inline Vec selectLess(Vec a, Vec b, Vec x, Vec y) { return {_mm256_blendv_ps(y.v, x.v, _mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ))}; }
// |magnitude| with the sign of `sign`.
inline Vec copySign(Vec magnitude, Vec sign)
{
    const __m256 signBit = _mm256_set1_ps(-0.0f);
    return {_mm256_or_ps(_mm256_andnot_ps(signBit, magnitude.v), _mm256_and_ps(signBit, sign.v))};
}

inline Vec negInfToZero(Vec x)
{
    const __m256 isNegInf =
        _mm256_cmp_ps(x.v, _mm256_set1_ps(-std::numeric_limits<float>::infinity()), _CMP_EQ_OQ);
    return {_mm256_andnot_ps(isNegInf, x.v)};
}

} // namespace attn::detail::simd
