// The float steps of the exact-order SIMD kernels (bitcos_avx2.c,
// bitcos_avx512.c, bitcos_nopdep.c), in the order bitcos.h states: each
// kernel reduces a 256-block to 8 int32 lanes whose sum is the block's exact
// sumi, and hands them here, four blocks at a time, then one at a time for
// the last nb % 4. Include only under AVX2 + F16C.

#pragma once

#include "bitcos_impl.h"

// Four blocks b..b+3 from their lanes s0..s3: the 4 exact sums at once
// (vphaddd), then (float)sumi_b * (y[b].d * scale_b), one rounded multiply
// per lane (a vector multiply is the same IEEE multiply per lane as a scalar
// one), added to sumf in block order.
BITCOS_INLINE float bitcos_exact_acc4(float sumf, __m256i s0, __m256i s1, __m256i s2, __m256i s3,
                                      const bitcos_block_q8_K * y, const uint16_t * d16, float d32, int b) {
    const __m256i h  = _mm256_hadd_epi32(_mm256_hadd_epi32(s0, s1), _mm256_hadd_epi32(s2, s3));
    const __m128i si = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1)); // [sumi_b .. sumi_b+3]
    __m128 dx;
    if (d16) {
        dx = _mm_cvtph_ps(_mm_loadl_epi64((const __m128i *) (d16 + b)));
    } else {
        dx = _mm_set1_ps(d32);
    }
    const __m128 yd = _mm_setr_ps(y[b + 0].d, y[b + 1].d, y[b + 2].d, y[b + 3].d);
    const __m128 d  = _mm_mul_ps(yd, dx);                 // d_b = y[b].d * scale_b
    __m128 p = _mm_mul_ps(_mm_cvtepi32_ps(si), d);        // (float)sumi_b * d_b
    BITCOS_FP_BARRIER(p);
    sumf += _mm_cvtss_f32(p);                             // in block order
    sumf += _mm_cvtss_f32(_mm_movehdup_ps(p));
    sumf += _mm_cvtss_f32(_mm_movehl_ps(p, p));
    sumf += _mm_cvtss_f32(_mm_shuffle_ps(p, p, _MM_SHUFFLE(3, 3, 3, 3)));
    return sumf;
}

// One block b from its lanes s0 (bitcos_block_acc).
BITCOS_INLINE float bitcos_exact_acc1(float sumf, __m256i s0, const bitcos_block_q8_K * y, const uint16_t * d16, float d32, int b) {
    __m128i t = _mm_add_epi32(_mm256_castsi256_si128(s0), _mm256_extracti128_si256(s0, 1));
    t = _mm_hadd_epi32(t, t);
    return bitcos_block_acc(sumf, _mm_cvtsi128_si32(_mm_hadd_epi32(t, t)), y[b].d, d16, d32, b);
}
