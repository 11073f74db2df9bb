// AVX2 + BMI2 BITCOS x Q8_K dot product. See bitcos.h for the contract and
// the order of the float steps.
//
// Per 64-weight bitmap word m (the widest pdep):
//   scalar: c = popcnt(m); the next c sign bits come from one unaligned 64-bit
//           load at the sign cursor's byte, shifted by its bit (0..7) (a ninth
//           byte only when c + bit > 64, i.e. c > 56: rare at real zero
//           densities); neg = pdep(signs, m) puts them on the present lanes
//           (pdep reads only the low c bits: no masking needed).
//   vector, per 32 weights: the bitmap word (broadcast straight from memory)
//           and neg (broadcast from a GPR) are spread to bytes with one
//           vpshufb each and and-ed with the lane's bit (k = j % 8), giving
//           a_P, a_N in {0, 2^k}. Then
//             P = min(a_P, 1)        in {0, 1}: the presence
//             Y = a_N + 0x7f         0x7f (> 0) when positive or absent,
//                                    0x7f + 2^k (< 0, as int8) when negative
//             v = vpsignb(q, Y)      -q on negative lanes, q elsewhere
//             vpmaddubsw(P, v)       sum over present lanes of t*q, in pairs
//           into 16-bit lanes (16 products per lane per block: no overflow).
//   Cost per 32 weights: 9 vector ALU ops (2 vpshufb, 2 vpand, vpminub,
//   vpaddb, vpsignb, vpmaddubsw, vpaddw), 1.5 loads, 1 GPR->vector move and
//   ~6 scalar ops (popcnt, cursor, pdep), about 18 uops as GCC 12 schedules
//   it. That is the floor of this formulation: two bit planes per weight need
//   two byte expansions, and AVX2 has no mask registers.
// Per block the 16-bit sums become 8 int32 lanes; bitcos_exact_step.h reduces
// them 4 blocks at a time and runs the float steps in block order.

#include "bitcos_impl.h"

#if defined(__AVX2__) && defined(__BMI2__) && defined(__F16C__)

#include "bitcos_exact_step.h"

int bitcos_have_avx2(void) { return 1; }

// weights 0..31 (lo) or 32..63 (hi) of a broadcast 64-bit word: byte i of
// each 8-byte group goes to 8 lanes (vpshufb works per 128-bit lane; the
// broadcast word is in both).
#define BITCOS_SPREAD_LO _mm256_setr_epi8(0,0,0,0,0,0,0,0, 1,1,1,1,1,1,1,1, 2,2,2,2,2,2,2,2, 3,3,3,3,3,3,3,3)
#define BITCOS_SPREAD_HI _mm256_setr_epi8(4,4,4,4,4,4,4,4, 5,5,5,5,5,5,5,5, 6,6,6,6,6,6,6,6, 7,7,7,7,7,7,7,7)


// 64 weights: the bitmap word at bm, activations q[0..63].
BITCOS_INLINE __m256i bitcos_word64(__m256i acc, const uint8_t * bm, const int8_t * q, const uint8_t * signs, uint64_t * pos, uint64_t three) {
    const __m256i spread_lo = BITCOS_SPREAD_LO;
    const __m256i spread_hi = BITCOS_SPREAD_HI;
    const __m256i lane_bit  = _mm256_set1_epi64x(0x8040201008040201);
    const __m256i ones8     = _mm256_set1_epi8(1);
    const __m256i pos7f     = _mm256_set1_epi8(0x7f);

    const uint64_t m   = bitcos_load_u64(bm);
    const uint64_t neg = bitcos_pdep_next_neg(signs, pos, m, three);

    const __m256i vp = _mm256_castpd_si256(_mm256_broadcast_sd((const double *) bm)); // vbroadcastsd ymm, m64
    const __m256i vn = _mm256_set1_epi64x((long long) neg);

    const __m256i p0 = _mm256_min_epu8(_mm256_and_si256(_mm256_shuffle_epi8(vp, spread_lo), lane_bit), ones8);
    const __m256i y0 = _mm256_add_epi8(_mm256_and_si256(_mm256_shuffle_epi8(vn, spread_lo), lane_bit), pos7f);
    const __m256i p1 = _mm256_min_epu8(_mm256_and_si256(_mm256_shuffle_epi8(vp, spread_hi), lane_bit), ones8);
    const __m256i y1 = _mm256_add_epi8(_mm256_and_si256(_mm256_shuffle_epi8(vn, spread_hi), lane_bit), pos7f);

    const __m256i s0 = _mm256_maddubs_epi16(p0, _mm256_sign_epi8(_mm256_loadu_si256((const __m256i *) q),        y0));
    const __m256i s1 = _mm256_maddubs_epi16(p1, _mm256_sign_epi8(_mm256_loadu_si256((const __m256i *) (q + 32)), y1));
    return _mm256_add_epi16(acc, _mm256_add_epi16(s0, s1));
}

// One 256-block: 8 int32 lanes whose sum is sumi (exact).
BITCOS_INLINE __m256i bitcos_block256(const uint8_t * bm, const int8_t * q, const uint8_t * signs, uint64_t * pos, uint64_t three) {
    __m256i acc = _mm256_setzero_si256();
    acc = bitcos_word64(acc, bm,      q,       signs, pos, three);
    acc = bitcos_word64(acc, bm +  8, q +  64, signs, pos, three);
    acc = bitcos_word64(acc, bm + 16, q + 128, signs, pos, three);
    acc = bitcos_word64(acc, bm + 24, q + 192, signs, pos, three);
    return _mm256_madd_epi16(acc, _mm256_set1_epi16(1));
}

void bitcos_vec_dot_q8_K_avx2(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                              const uint16_t * d16, float d32, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    const int nb = n / BITCOS_QK_K;

    uint64_t pos = 0; // bit position of the next sign
    uint64_t three = 3;
    BITCOS_OPAQUE_U64(three);
    float sumf = 0.0f;

    int b = 0;
    for (; b + 4 <= nb; b += 4) {
        const __m256i s0 = bitcos_block256(bitmap + (b + 0)*32, y[b + 0].qs, signs, &pos, three);
        const __m256i s1 = bitcos_block256(bitmap + (b + 1)*32, y[b + 1].qs, signs, &pos, three);
        const __m256i s2 = bitcos_block256(bitmap + (b + 2)*32, y[b + 2].qs, signs, &pos, three);
        const __m256i s3 = bitcos_block256(bitmap + (b + 3)*32, y[b + 3].qs, signs, &pos, three);
        sumf = bitcos_exact_acc4(sumf, s0, s1, s2, s3, y, d16, d32, b);
    }
    for (; b < nb; ++b) {
        sumf = bitcos_exact_acc1(sumf, bitcos_block256(bitmap + b*32, y[b].qs, signs, &pos, three), y, d16, d32, b);
    }

    *s = sumf;
}

#else

int bitcos_have_avx2(void) { return 0; }

void bitcos_vec_dot_q8_K_avx2(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                              const uint16_t * d16, float d32, const void * vy) {
    bitcos_vec_dot_q8_K_generic(n, s, bitmap, signs, d16, d32, vy);
}

#endif
