// AVX-512 (F + BW, with BMI2) BITCOS x Q8_K dot product. See bitcos.h for the
// contract and the order of the float steps. bitcos_avx512_twin.c mirrors
// this file lane by lane in portable C: change both together.
//
// Per 64-weight bitmap word m:
//   scalar: c = popcnt(m); the next c sign bits (one unaligned load at the
//           sign cursor, shifted by its bit; a ninth byte only when
//           c + bit > 64) are deposited on the present lanes:
//           neg = pdep(signs, m) (pdep reads only the low c bits).
//   vector: m and neg become k-masks; a zero-masked load takes the 64
//           activations of the present lanes, a masked subtract from zero
//           negates the negative lanes (v = t*q as int8), and
//           vpmaddubsw(1, v) sums pairs into 16-bit lanes (8 products per
//           lane per block: no overflow).
//   4 vector ops and 2 mask moves per 64 weights (an AVX512-VNNI vpdpbusd
//   would fold the multiply-add and the add into one; not used, to stay
//   within F + BW).
// Per block the 16-bit sums become 8 int32 lanes; bitcos_exact_step.h reduces
// them 4 blocks at a time and runs the float steps in block order.

#include "bitcos_impl.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__BMI2__) && defined(__F16C__)

#include "bitcos_exact_step.h"

int bitcos_have_avx512(void) { return 1; }


// 64 weights: the bitmap word at bm, activations q[0..63].
BITCOS_INLINE __m512i bitcos512_word64(__m512i acc, const uint8_t * bm, const int8_t * q, const uint8_t * signs, uint64_t * pos, uint64_t three) {
    const uint64_t m   = bitcos_load_u64(bm);
    const uint64_t neg = bitcos_pdep_next_neg(signs, pos, m, three);
    __m512i v = _mm512_maskz_loadu_epi8(_cvtu64_mask64(m), q);   // q on present lanes
    v = _mm512_mask_sub_epi8(v, _cvtu64_mask64(neg), _mm512_setzero_si512(), v);   // -q on negative lanes
    return _mm512_add_epi16(acc, _mm512_maddubs_epi16(_mm512_set1_epi8(1), v));
}

// One 256-block: 8 int32 lanes whose sum is sumi (exact).
BITCOS_INLINE __m256i bitcos512_block256(const uint8_t * bm, const int8_t * q, const uint8_t * signs, uint64_t * pos, uint64_t three) {
    __m512i acc = _mm512_setzero_si512();
    acc = bitcos512_word64(acc, bm,      q,       signs, pos, three);
    acc = bitcos512_word64(acc, bm +  8, q +  64, signs, pos, three);
    acc = bitcos512_word64(acc, bm + 16, q + 128, signs, pos, three);
    acc = bitcos512_word64(acc, bm + 24, q + 192, signs, pos, three);
    const __m512i s32 = _mm512_madd_epi16(acc, _mm512_set1_epi16(1));
    return _mm256_add_epi32(_mm512_castsi512_si256(s32), _mm512_extracti64x4_epi64(s32, 1));
}

void bitcos_vec_dot_q8_K_avx512(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                const uint16_t * d16, float d32, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    const int nb = n / BITCOS_QK_K;

    uint64_t pos = 0; // bit position of the next sign
    uint64_t three = 3;
    BITCOS_OPAQUE_U64(three);
    float sumf = 0.0f;

    int b = 0;
    for (; b + 4 <= nb; b += 4) {
        const __m256i s0 = bitcos512_block256(bitmap + (b + 0)*32, y[b + 0].qs, signs, &pos, three);
        const __m256i s1 = bitcos512_block256(bitmap + (b + 1)*32, y[b + 1].qs, signs, &pos, three);
        const __m256i s2 = bitcos512_block256(bitmap + (b + 2)*32, y[b + 2].qs, signs, &pos, three);
        const __m256i s3 = bitcos512_block256(bitmap + (b + 3)*32, y[b + 3].qs, signs, &pos, three);
        sumf = bitcos_exact_acc4(sumf, s0, s1, s2, s3, y, d16, d32, b);
    }
    for (; b < nb; ++b) {
        sumf = bitcos_exact_acc1(sumf, bitcos512_block256(bitmap + b*32, y[b].qs, signs, &pos, three), y, d16, d32, b);
    }

    *s = sumf;
}

#else

int bitcos_have_avx512(void) { return 0; }

void bitcos_vec_dot_q8_K_avx512(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                const uint16_t * d16, float d32, const void * vy) {
    bitcos_vec_dot_q8_K_generic(n, s, bitmap, signs, d16, d32, vy);
}

#endif
