// The float steps of ggml's x86 TQ2_0 kernel (ggml_vec_dot_tq2_0_q8_K under
// __AVX2__, as GCC builds it with FMA), shared by the BITCOS kernels that
// follow its order (bitcos_avx2_tq2.c, bitcos_avx512_tq2.c; the scalar
// bitcos_tq2order.c spells the same steps out): per 256-block, lane m of the
// 8 int32 lanes holds the sum over E_m = { e : e%32 in [4m, 4m+4) } of c*q
// (c = t+1, the TQ2_0 code); the block's bsums[2m] + bsums[2m+1] are
// subtracted, and acc = fma((float) L, y.d * d, acc) lane by lane. At the
// end, ggml's hsum_float_8. Include only under AVX2 + FMA.

#pragma once

#include "bitcos_impl.h"

// One block: acc + (cq - bsums pairs) * (y.d * d_b), one rounding per lane.
BITCOS_INLINE __m256 bitcos_tq2_block_acc(__m256 acc, __m256i cq, const bitcos_block_q8_K * yb,
                                          const uint16_t * d16, float d32, int b) {
    const __m256i bs = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *) yb->bsums), _mm256_set1_epi16(1));
    const __m256i L  = _mm256_sub_epi32(cq, bs);
    const float d = yb->d * (d16 ? bitcos_fp16_to_fp32(d16[b]) : d32);
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(L), _mm256_set1_ps(d), acc);
}

// ggml's hsum_float_8: ((a0+a4)+(a2+a6)) + ((a1+a5)+(a3+a7)).
BITCOS_INLINE float bitcos_tq2_hsum(__m256 acc) {
    __m128 r = _mm_add_ps(_mm256_extractf128_ps(acc, 1), _mm256_castps256_ps128(acc));
    r = _mm_add_ps(r, _mm_movehl_ps(r, r));
    r = _mm_add_ss(r, _mm_movehdup_ps(r));
    return _mm_cvtss_f32(r);
}
