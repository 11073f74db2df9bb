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
// Per 4 blocks the 16-bit sums are reduced to 4 exact int32 sums at once, and
// the float steps run per block in order, lane by lane (a vector multiply is
// the same IEEE multiply per lane as a scalar one).

#include "bitcos_impl.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__BMI2__) && defined(__F16C__)

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
        // [sumi_b .. sumi_b+3], exact
        const __m256i h  = _mm256_hadd_epi32(_mm256_hadd_epi32(s0, s1), _mm256_hadd_epi32(s2, s3));
        const __m128i si = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
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
    }
    for (; b < nb; ++b) {
        const __m256i s0 = bitcos512_block256(bitmap + b*32, y[b].qs, signs, &pos, three);
        __m128i t = _mm_add_epi32(_mm256_castsi256_si128(s0), _mm256_extracti128_si256(s0, 1));
        t = _mm_hadd_epi32(t, t);
        sumf = bitcos_block_acc(sumf, _mm_cvtsi128_si32(_mm_hadd_epi32(t, t)), y[b].d, d16, d32, b);
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
