// AVX-512 (F + BW, with BMI2, FMA, F16C) BITCOS x Q8_K dot product in the
// float order of ggml's x86 TQ2_0 kernel (bitcos_tq2fast.h, bitcos_tq2order.c).
//
// Per 64-weight bitmap word m (the sign fetch and deposit of bitcos_avx512.c):
//   neg = pdep(next popcount(m) signs, m); m and neg become k-masks and build
//   the TQ2_0 codes c = t + 1 as bytes: c = 2 on present lanes (vpblendmb),
//   then 0 on negative lanes (a masked move); vpmaddubsw(c, q) sums pairs of
//   c*q into 16-bit lanes (4 words x 2 products of at most 2*127 per lane per
//   block: no overflow). 4 vector ops and 2 mask moves per 64 weights, as the
//   exact-order kernel.
// Per block: vpmaddwd with ones gives 16 int32 lanes, lane j = bytes 4j..4j+3
//   of a 64-byte word, i.e. e % 32 in [4(j%8), 4(j%8)+4); the two 256-bit
//   halves add to the 8 lanes of E_0..E_7. bsums pairs (vpmaddwd of the 16
//   bsums with ones) are subtracted, the lanes converted and fused into the
//   float accumulator with vfmadd231ps; at the end ggml's hsum_float_8.

#include "bitcos_impl.h"
#include "bitcos_tq2fast.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__BMI2__) && defined(__F16C__) && defined(__FMA__)

#include "bitcos_tq2_step.h"

int bitcos_have_avx512_tq2(void) { return 1; }


// 64 weights: 16-bit pair sums of c*q, c = t + 1.
BITCOS_INLINE __m512i bitcos512t_word64(__m512i acc, const uint8_t * bm, const int8_t * q, const uint8_t * signs, uint64_t * pos) {
    const uint64_t m   = bitcos_load_u64(bm);
    const uint64_t neg = bitcos_pdep_next_neg(signs, pos, m);
    __m512i c = _mm512_mask_blend_epi8(_cvtu64_mask64(m), _mm512_set1_epi8(1), _mm512_set1_epi8(2));
    c = _mm512_mask_mov_epi8(c, _cvtu64_mask64(neg), _mm512_setzero_si512());
    return _mm512_add_epi16(acc, _mm512_maddubs_epi16(c, _mm512_loadu_si512((const void *) q)));
}

// One 256-block: lane m = sum over E_m of c*q (exact).
BITCOS_INLINE __m256i bitcos512t_block256(const uint8_t * bm, const int8_t * q, const uint8_t * signs, uint64_t * pos) {
    __m512i acc = _mm512_setzero_si512();
    acc = bitcos512t_word64(acc, bm,      q,       signs, pos);
    acc = bitcos512t_word64(acc, bm +  8, q +  64, signs, pos);
    acc = bitcos512t_word64(acc, bm + 16, q + 128, signs, pos);
    acc = bitcos512t_word64(acc, bm + 24, q + 192, signs, pos);
    const __m512i s32 = _mm512_madd_epi16(acc, _mm512_set1_epi16(1));
    return _mm256_add_epi32(_mm512_castsi512_si256(s32), _mm512_extracti64x4_epi64(s32, 1));
}

void bitcos_vec_dot_q8_K_avx512_tq2(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                    const uint16_t * d16, float d32, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    const int nb = n / BITCOS_QK_K;

    uint64_t pos = 0; // bit position of the next sign
    __m256 acc = _mm256_setzero_ps();

    for (int b = 0; b < nb; ++b) {
        const __m256i cq = bitcos512t_block256(bitmap + b*32, y[b].qs, signs, &pos);
        acc = bitcos_tq2_block_acc(acc, cq, &y[b], d16, d32, b);
    }

    *s = bitcos_tq2_hsum(acc);
}

#else

int bitcos_have_avx512_tq2(void) { return 0; }

void bitcos_vec_dot_q8_K_avx512_tq2(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                    const uint16_t * d16, float d32, const void * vy) {
    bitcos_vec_dot_q8_K_tq2order(n, s, bitmap, signs, d16, d32, vy);
}

#endif
