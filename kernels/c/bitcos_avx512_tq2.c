// AVX-512 (F + BW, with BMI2, FMA, F16C; VNNI when the build has it) BITCOS x
// Q8_K dot product in the float order of ggml's x86 TQ2_0 kernel
// (bitcos_tq2fast.h, bitcos_tq2order.c).
//
// Per 64-weight bitmap word m:
//   neg = pdep(next popcount(m) signs, m) (bitcos_pdep_next_neg); m and neg
//   become k-masks and build the TQ2_0 codes c = t + 1 as bytes: c = 2 on
//   present lanes (vpblendmb), then 0 on negative lanes (a masked move).
//   With AVX512-VNNI, vpdpbusd(acc, c, q) sums c*q over each 4-byte group
//   into 16 int32 lanes (lane j = bytes 4j..4j+3 of the word): 3 vector ops
//   and 2 mask moves per 64 weights. Without it, vpmaddubsw pairs c*q into
//   16-bit lanes (2 words x 2 products of at most 2*127 per lane and
//   accumulator: no overflow) and vpmaddwd with ones gives the same int32
//   lanes. Either way lane j holds the elements with e % 32 in
//   [4(j%8), 4(j%8)+4): the two 256-bit halves add to the 8 lanes of
//   E_0..E_7, exact integers whichever way they are formed.
//   Two accumulators per block (words 0, 2 and 1, 3) halve the dependency
//   chain through vpdpbusd's latency.
// Per block: the accumulator starts at minus the bsums pairs (vpmaddwd of
//   the 16 bsums with -1); the lanes are converted and fused into the float
//   accumulator with vfmadd231ps; at the end ggml's hsum_float_8
//   (bitcos_tq2_step.h). The same integers and the same float steps as
//   bitcos_tq2_block_acc.

#include "bitcos_impl.h"
#include "bitcos_tq2fast.h"

#if BITCOS_AVX512_TQ2_SIMD

#include "bitcos_tq2_step.h"

int bitcos_have_avx512_tq2(void) { return 1; }

// acc plus the c*q sums of word w of the block, in int32 lanes (VNNI) or
// int16 pair sums.
#if defined(__AVX512VNNI__)
#define BITCOS512T_WORD(acc, w) \
    _mm512_dpbusd_epi32(acc, bitcos_tq2_codes512(bm + 8*(w), signs, pos, three), _mm512_loadu_si512((const void *) (q + 64*(w))))
#else
#define BITCOS512T_WORD(acc, w) \
    _mm512_add_epi16(acc, _mm512_maddubs_epi16(bitcos_tq2_codes512(bm + 8*(w), signs, pos, three), _mm512_loadu_si512((const void *) (q + 64*(w)))))
#endif

// One 256-block: lane m = sum over E_m of c*q - (bsums[2m] + bsums[2m+1]),
// exact. Unrolled by hand: GCC keeps a counted loop otherwise.
BITCOS_INLINE __m256i bitcos512t_block256(const bitcos_block_q8_K * yb, const uint8_t * bm, const uint8_t * signs,
                                          uint64_t * pos, uint64_t three) {
    const int8_t * q = yb->qs;
    const __m256i nbs = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *) yb->bsums), _mm256_set1_epi16(-1));
#if defined(__AVX512VNNI__)
    __m512i a0 = _mm512_zextsi256_si512(nbs);
    __m512i a1 = _mm512_setzero_si512();
    a0 = BITCOS512T_WORD(a0, 0);
    a1 = BITCOS512T_WORD(a1, 1);
    a0 = BITCOS512T_WORD(a0, 2);
    a1 = BITCOS512T_WORD(a1, 3);
    a0 = _mm512_add_epi32(a0, a1);
#else
    __m512i a0 = _mm512_setzero_si512();
    __m512i a1 = _mm512_setzero_si512();
    a0 = BITCOS512T_WORD(a0, 0);
    a1 = BITCOS512T_WORD(a1, 1);
    a0 = BITCOS512T_WORD(a0, 2);
    a1 = BITCOS512T_WORD(a1, 3);
    a0 = _mm512_add_epi32(_mm512_madd_epi16(a0, _mm512_set1_epi16(1)), _mm512_madd_epi16(a1, _mm512_set1_epi16(1)));
    a0 = _mm512_add_epi32(a0, _mm512_zextsi256_si512(nbs));
#endif
    return _mm256_add_epi32(_mm512_castsi512_si256(a0), _mm512_extracti64x4_epi64(a0, 1));
}
#undef BITCOS512T_WORD

void bitcos_vec_dot_q8_K_avx512_tq2(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
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
        const __m256i L = bitcos512t_block256(&y[b], bitmap + b*32, signs, &pos, three);
        const float d = y[b].d * (d16 ? bitcos_fp16_to_fp32(d16[b]) : d32);
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(L), _mm256_set1_ps(d), acc);
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
