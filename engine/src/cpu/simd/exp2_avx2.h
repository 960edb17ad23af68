// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// AVX2 exp2 (see vec.h): 2^n is built from exponent bits; n >= -125 keeps the result a normal number.

#include "vec.h"

namespace attn::detail::simd {

inline Vec exp2(Vec x)
{
    const __m256 live = _mm256_cmp_ps(x.v, _mm256_set1_ps(-125.0f), _CMP_GE_OQ);
    const __m256 xc = _mm256_max_ps(x.v, _mm256_set1_ps(-125.0f));
    const __m256 n = _mm256_round_ps(xc, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const Vec p = exp2Poly({_mm256_sub_ps(xc, n)});
    const __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return {_mm256_and_ps(_mm256_mul_ps(p.v, _mm256_castsi256_ps(bits)), live)};
}

} // namespace attn::detail::simd
