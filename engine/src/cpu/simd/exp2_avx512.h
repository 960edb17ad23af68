// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// AVX-512 exp2 (see vec.h): vscalefps applies the 2^n factor without building exponent bits by hand.

#include "vec.h"

namespace attn::detail::simd {

inline Vec exp2(Vec x)
{
    // Lanes below -125 (masked scores, -inf) become exactly 0; clamping first keeps -inf - (-inf) out.
    const __mmask16 live = _mm512_cmp_ps_mask(x.v, _mm512_set1_ps(-125.0f), _CMP_GE_OQ);
    const __m512 xc = _mm512_max_ps(x.v, _mm512_set1_ps(-125.0f));
    const __m512 n = _mm512_roundscale_ps(xc, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const Vec p = exp2Poly({_mm512_sub_ps(xc, n)});
    return {_mm512_maskz_scalef_ps(live, p.v, n)};
}

} // namespace attn::detail::simd
