// The float steps of ggml's x86 TQ2_0 kernel (ggml_vec_dot_tq2_0_q8_K under
// __AVX2__, as GCC builds it with FMA), shared by the BITCOS kernels that
// follow its order (bitcos_avx2_tq2.c, bitcos_avx2_clmul.c,
// bitcos_avx512_tq2.c, bitcos_nopdep.c's avx2_nopdep_tq2, bitcos_codes.c;
// the scalar bitcos_tq2order.c spells the same steps out): per 256-block,
// lane m of the 8 int32 lanes holds the sum over E_m = { e : e%32 in
// [4m, 4m+4) } of c*q (c = t+1, the TQ2_0 code); the block's bsums[2m] +
// bsums[2m+1] are subtracted, and acc = fma((float) L, y.d * d, acc) lane by
// lane. At the end, ggml's hsum_float_8. It also holds the one copy of the TQ2_0 code
// construction from bitmap and sign words (bitcos_tq2_codes64) that the
// one-column AVX2 kernel and the batch path share (with BMI2), and its
// AVX-512 form (bitcos_tq2_codes512). Include only under AVX2 + FMA.

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

#if defined(__BMI2__)
// TQ2_0 codes from bits, shared by bitcos_avx2_tq2.c (one column) and
// bitcos_codes.c (batches). Vector byte i of a 32-code chunk is element
// e % 32 = i of the word's half.
#define BITCOS_TQ2_SPREAD_LO _mm256_setr_epi8(0,0,0,0,0,0,0,0, 1,1,1,1,1,1,1,1, 2,2,2,2,2,2,2,2, 3,3,3,3,3,3,3,3)
#define BITCOS_TQ2_SPREAD_HI _mm256_setr_epi8(4,4,4,4,4,4,4,4, 5,5,5,5,5,5,5,5, 6,6,6,6,6,6,6,6, 7,7,7,7,7,7,7,7)

// The TQ2_0 codes of 32 weights: vp, vn the broadcast presence and deposited
// sign words, spread by one of the two spread patterns.
//     P = min(a_P, 1)                  1 on present lanes
//     N = (a_N == lane bit)            0xff on negative lanes
//     c = andnot(N, P + 1)             2 present positive, 1 absent, 0 negative
BITCOS_INLINE __m256i bitcos_tq2_codes(__m256i vp, __m256i vn, __m256i spread) {
    const __m256i lane_bit = _mm256_set1_epi64x(0x8040201008040201);
    const __m256i ones8    = _mm256_set1_epi8(1);
    const __m256i p = _mm256_min_epu8(_mm256_and_si256(_mm256_shuffle_epi8(vp, spread), lane_bit), ones8);
    const __m256i n = _mm256_cmpeq_epi8(_mm256_and_si256(_mm256_shuffle_epi8(vn, spread), lane_bit), lane_bit);
    return _mm256_andnot_si256(n, _mm256_add_epi8(p, ones8));
}

// The 64 codes of bitmap word bm (the next popcount signs deposited with
// pdep): *c0 elements 0..31, *c1 elements 32..63.
BITCOS_INLINE void bitcos_tq2_codes64(const uint8_t * bm, const uint8_t * signs, uint64_t * pos, uint64_t three,
                                      __m256i * c0, __m256i * c1) {
    const uint64_t m   = bitcos_load_u64(bm);
    const uint64_t neg = bitcos_pdep_next_neg(signs, pos, m, three);
    const __m256i vp = _mm256_castpd_si256(_mm256_broadcast_sd((const double *) bm)); // vbroadcastsd ymm, m64
    const __m256i vn = _mm256_set1_epi64x((long long) neg);
    *c0 = bitcos_tq2_codes(vp, vn, BITCOS_TQ2_SPREAD_LO);
    *c1 = bitcos_tq2_codes(vp, vn, BITCOS_TQ2_SPREAD_HI);
}
#endif // __BMI2__

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__BMI2__)
// The 64 TQ2_0 codes of bitmap word bm with AVX-512 k-masks, shared by
// bitcos_avx512_tq2.c (one column) and bitcos_gemm.c (batches): 2 on present
// lanes (vpblendmb), then 0 on negative ones (a masked move), 1 elsewhere.
BITCOS_INLINE __m512i bitcos_tq2_codes512(const uint8_t * bm, const uint8_t * signs, uint64_t * pos, uint64_t three) {
    const uint64_t m   = bitcos_load_u64(bm);
    const uint64_t neg = bitcos_pdep_next_neg(signs, pos, m, three);
    const __m512i c = _mm512_mask_blend_epi8(_cvtu64_mask64(m), _mm512_set1_epi8(1), _mm512_set1_epi8(2));
    return _mm512_mask_mov_epi8(c, _cvtu64_mask64(neg), _mm512_setzero_si512());
}
#endif
