// AVX2 + BMI2 + FMA (+F16C) BITCOS x Q8_K dot product in the float order of
// ggml's x86 TQ2_0 kernel (bitcos_tq2fast.h, bitcos_tq2order.c).
//
// Per 64-weight bitmap word m, the scalar part (popcnt, one unaligned sign
// load, pdep: neg holds the signs on the present lanes). Per
// 32 weights (one chunk: vector byte i is element e with e % 32 = i), the
// bitmap word and neg are spread to bytes (vpshufb) and and-ed with the lane
// bit, then the TQ2_0 code c = t + 1 is built as a byte:
//     P = min(a_P, 1)                  1 on present lanes
//     N = (a_N == lane bit)            0xff on negative lanes
//     c = andnot(N, P + 1)             2 present positive, 1 absent, 0 negative
// and vpmaddubsw(c, q) sums pairs of c*q into 16-bit lanes (8 chunks x 2
// products of at most 2*127 per lane per block: no overflow). 10 vector ALU
// ops per 32 weights (one more than the retired exact-order avx2 kernel's 9).
// Per block: vpmaddwd with ones turns the 16-bit lane pairs into 8 int32
// lanes, lane m = e % 32 in [4m, 4m+4), the lanes of ggml's TQ2_0 kernel;
// bsums pairs are subtracted, the lanes converted and fused into the float
// accumulator with vfmadd231ps; at the end ggml's hsum_float_8.

#include "bitcos_impl.h"
#include "bitcos_tq2fast.h"

#if BITCOS_AVX2_TQ2_SIMD

#include "bitcos_tq2_step.h"

int bitcos_have_avx2_tq2(void) { return 1; }

// 64 weights: 16-bit pair sums of c*q added to acc.
BITCOS_INLINE __m256i bitcos_tq2_word64(__m256i acc, const uint8_t * bm, const int8_t * q, const uint8_t * signs, uint64_t * pos, uint64_t three) {
    __m256i c0, c1;
    bitcos_tq2_codes64(bm, signs, pos, three, &c0, &c1);
    const __m256i s0 = _mm256_maddubs_epi16(c0, _mm256_loadu_si256((const __m256i *) q));
    const __m256i s1 = _mm256_maddubs_epi16(c1, _mm256_loadu_si256((const __m256i *) (q + 32)));
    return _mm256_add_epi16(acc, _mm256_add_epi16(s0, s1));
}

void bitcos_vec_dot_q8_K_avx2_tq2(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                  const uint16_t * d16, float d32, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    const int nb = n / BITCOS_QK_K;

    uint64_t pos = 0; // bit position of the next sign
    uint64_t three = 3;
    BITCOS_OPAQUE_U64(three);
    __m256 acc = _mm256_setzero_ps();

    for (int b = 0; b < nb; ++b) {
        BITCOS_PREFETCH(bitmap + b*32);
        BITCOS_PREFETCH(signs + (pos >> 3));
        const uint8_t * bm = bitmap + b*32;
        const int8_t  * q  = y[b].qs;
        __m256i a = _mm256_setzero_si256();
        a = bitcos_tq2_word64(a, bm,      q,       signs, &pos, three);
        a = bitcos_tq2_word64(a, bm +  8, q +  64, signs, &pos, three);
        a = bitcos_tq2_word64(a, bm + 16, q + 128, signs, &pos, three);
        a = bitcos_tq2_word64(a, bm + 24, q + 192, signs, &pos, three);
        const __m256i cq = _mm256_madd_epi16(a, _mm256_set1_epi16(1)); // lane m: sum over E_m of c*q
        acc = bitcos_tq2_block_acc(acc, cq, &y[b], d16, d32, b);
    }

    *s = bitcos_tq2_hsum(acc);
}

#else

int bitcos_have_avx2_tq2(void) { return 0; }

void bitcos_vec_dot_q8_K_avx2_tq2(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                  const uint16_t * d16, float d32, const void * vy) {
    bitcos_vec_dot_q8_K_tq2order(n, s, bitmap, signs, d16, d32, vy);
}

#endif
