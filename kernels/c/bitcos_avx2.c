// AVX2 + BMI2 BITCOS x Q8_K dot product. See bitcos.h for the contract and
// the order of the float steps.
//
// Per 64-weight bitmap word m (the ISA's widest pdep):
//   scalar: c = popcnt(m); the next c sign bits are read from a byte pointer
//           and a bit offset (one unaligned 64-bit load, a shift and a bzhi;
//           a second load only when c + offset > 64, which needs c > 56), and
//           neg = pdep(signs, m) puts them on the present lanes.
//   vector, per 32 weights: the bitmap word (broadcast straight from memory)
//           and neg (broadcast from a GPR) are spread to bytes with one
//           vpshufb each; and-ing with the lane's bit gives a_P in {0, 2^k}
//           (k = j % 8) and a compare gives N = 0xff on negative lanes.
//           X = a_P ^ N is 0 on absent lanes, > 0 on positive ones, < 0 on
//           negative ones, so vpsignb(q, X) = t*q, and vpmaddubsw(1, .)
//           sums pairs into 16-bit lanes (at most 16 products per lane per
//           block: no overflow).
//   The only lane where a_P alone has the wrong sign is k = 7 (a_P = 0x80):
//   there the scalar side flips neg on present lanes (neg ^= m & 0x80..80),
//   which turns (0x80, positive) into 0x80 ^ 0xff = 0x7f and (0x80,
//   negative) into 0x80 ^ 0 = 0x80.
// Per 256-block the 16-bit sums are widened and reduced to the exact sumi.

#include "bitcos_impl.h"

#if defined(__AVX2__) && defined(__BMI2__)

int bitcos_have_avx2(void) { return 1; }

static inline int32_t bitcos_hsum_i32_8(const __m256i a) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    s = _mm_add_epi32(s, _mm_unpackhi_epi64(s, s));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(s);
}

// Replicate byte i of each 8-byte group into 8 lanes: weights 0..31 of the
// word (lo) or 32..63 (hi). vpshufb works within 128-bit lanes, and the
// broadcast word is in both.
#define BITCOS_SPREAD_LO _mm256_setr_epi8(0,0,0,0,0,0,0,0, 1,1,1,1,1,1,1,1, 2,2,2,2,2,2,2,2, 3,3,3,3,3,3,3,3)
#define BITCOS_SPREAD_HI _mm256_setr_epi8(4,4,4,4,4,4,4,4, 5,5,5,5,5,5,5,5, 6,6,6,6,6,6,6,6, 7,7,7,7,7,7,7,7)

void bitcos_vec_dot_q8_K_avx2(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                              const uint16_t * d16, float d32, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    const int nb = n / BITCOS_QK_K;

    const __m256i spread_lo = BITCOS_SPREAD_LO;
    const __m256i spread_hi = BITCOS_SPREAD_HI;
    const __m256i lane_bit  = _mm256_set1_epi64x(0x8040201008040201);
    const __m256i ones8     = _mm256_set1_epi8(1);
    const __m256i ones16    = _mm256_set1_epi16(1);
    const uint64_t top_bits = 0x8080808080808080ull;

    const uint8_t * sp = signs; // byte of the next sign
    unsigned bo = 0;            // its bit, 0..7

    float sumf = 0.0f;

    for (int b = 0; b < nb; ++b) {
        const uint8_t * bm = bitmap + b*(BITCOS_QK_K/8);
        const int8_t  * q  = y[b].qs;
        __m256i acc = _mm256_setzero_si256();

        for (int w = 0; w < 4; ++w) {
            const uint64_t m = bitcos_load_u64(bm + 8*w);
            const unsigned c = (unsigned) _mm_popcnt_u64(m);
            uint64_t sg = bitcos_load_u64(sp) >> bo;
            if (BITCOS_UNLIKELY(bo + c > 64)) {
                sg |= (uint64_t) sp[8] << (64 - bo); // bo >= 1 here
            }
            sg = _bzhi_u64(sg, c);
            const uint64_t neg = _pdep_u64(sg, m) ^ (m & top_bits);
            bo += c;
            sp += bo >> 3;
            bo &= 7;

            const __m256i vp = _mm256_set1_epi64x((long long) m);
            const __m256i vn = _mm256_set1_epi64x((long long) neg);

            {
                const __m256i ap = _mm256_and_si256(_mm256_shuffle_epi8(vp, spread_lo), lane_bit);
                const __m256i an = _mm256_and_si256(_mm256_shuffle_epi8(vn, spread_lo), lane_bit);
                const __m256i x  = _mm256_xor_si256(ap, _mm256_cmpeq_epi8(an, lane_bit));
                const __m256i qy = _mm256_loadu_si256((const __m256i *) (q + 64*w));
                acc = _mm256_add_epi16(acc, _mm256_maddubs_epi16(ones8, _mm256_sign_epi8(qy, x)));
            }
            {
                const __m256i ap = _mm256_and_si256(_mm256_shuffle_epi8(vp, spread_hi), lane_bit);
                const __m256i an = _mm256_and_si256(_mm256_shuffle_epi8(vn, spread_hi), lane_bit);
                const __m256i x  = _mm256_xor_si256(ap, _mm256_cmpeq_epi8(an, lane_bit));
                const __m256i qy = _mm256_loadu_si256((const __m256i *) (q + 64*w + 32));
                acc = _mm256_add_epi16(acc, _mm256_maddubs_epi16(ones8, _mm256_sign_epi8(qy, x)));
            }
        }

        const int32_t sumi = bitcos_hsum_i32_8(_mm256_madd_epi16(acc, ones16));
        sumf = bitcos_block_acc(sumf, sumi, y[b].d, d16, d32, b);
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
