// AVX2 BITCOS x Q8_K dot product without pdep, in the float order of ggml's
// x86 TQ2_0 kernel, for CPUs where pdep/pext are microcoded (AMD family
// 0x17: Zen, Zen+, Zen 2, and Hygon 0x18, where one 64-bit pdep takes tens
// to hundreds of cycles): the default there (bitcos_select.h). See bitcos.h
// for the contract and bitcos_tq2fast.h for the float order. Uses BMI2's
// shrx/bzhi when enabled, never pdep.
//
// Per 32 weights (bitmap bytes b0..b3; a 128-bit lane holds 16 weights):
//   scalar: c = popcnt of the 4 bytes, c0 = popcnt(b0, b1); one unaligned
//           64-bit load at the sign cursor gives >= 57 sign bits; the lane
//           sign word w = signs[0..15] | signs[c0..c0+15] << 16 puts each
//           lane's first 16 signs in its own 16 bits (bits past a lane's
//           count are never looked at).
//   vector: S = w spread to bytes (0xff = negative sign), one byte per sign
//           of the lane, in sign order; R = the rank of each present weight
//           among its lane's present weights (>= 0x80 on absent ones) from
//           two 256-entry tables (bitcos_nopdep_tables.h): the deposit is
//           then N = vpshufb(S, R). The presence spread: a_P = the weight's
//           bitmap bit as a byte (0x01..0x80); X = min(a_P, 0x7f) ^ N (the
//           min turns a_P = 0x80 of bit 7 into a positive 0x7f: X is > 0 for
//           +1, < 0 for -1, 0 for an absent weight), vpsignb(q, X),
//           vpmaddubsw(1, .): 16-bit sums of t*q.

#include "bitcos_impl.h"
#include "bitcos_tq2fast.h"

#if BITCOS_AVX2_NOPDEP_TQ2_SIMD

#include "bitcos_nopdep_tables.h"
#include "bitcos_tq2_step.h"

// byte i of each 32-bit group to 8 lanes (vpshufb works per 128-bit lane)
#define BITCOS_SPREAD4 _mm256_setr_epi8(0,0,0,0,0,0,0,0, 1,1,1,1,1,1,1,1, 2,2,2,2,2,2,2,2, 3,3,3,3,3,3,3,3)

BITCOS_INLINE uint32_t bitcos_load_u32(const uint8_t * p) {
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

// 32 weights: bitmap bytes bm[0..3], activations q[0..31].
BITCOS_INLINE __m256i bitcos_np_word32(__m256i acc, const uint8_t * bm, const int8_t * q, const uint8_t * signs, uint64_t * pos) {
    const __m256i spread   = BITCOS_SPREAD4;
    const __m256i lane_bit = _mm256_set1_epi64x(0x8040201008040201);
    const __m256i max7f    = _mm256_set1_epi8(0x7f);

    const uint32_t m  = bitcos_load_u32(bm);
    const unsigned c  = (unsigned) _mm_popcnt_u32(m);
    const unsigned c0 = (unsigned) _mm_popcnt_u32(m & 0xffff);
    const uint64_t p  = *pos;
    const uint64_t sg = bitcos_load_u64(signs + (p >> 3)) >> (p & 7); // >= 57 valid bits, c <= 32
    *pos = p + c;
    const uint32_t w = (uint32_t) (sg & 0xffff) | (uint32_t) (sg >> c0) << 16;

    const __m256i vp = _mm256_castps_si256(_mm256_broadcast_ss((const float *) bm)); // vbroadcastss ymm, m32
    const __m256i ap = _mm256_min_epu8(_mm256_and_si256(_mm256_shuffle_epi8(vp, spread), lane_bit), max7f);
    const __m256i vs = _mm256_set1_epi32((int) w);
    const __m256i sv = _mm256_cmpeq_epi8(_mm256_and_si256(_mm256_shuffle_epi8(vs, spread), lane_bit), lane_bit);
    const __m256i ra = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *) bitcos_rank_a[bm[0]])),
                                               _mm_loadu_si128((const __m128i *) bitcos_rank_a[bm[2]]), 1);
    const __m256i rb = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *) bitcos_rank_b[bm[1]])),
                                               _mm_loadu_si128((const __m128i *) bitcos_rank_b[bm[3]]), 1);
    const __m256i nm = _mm256_shuffle_epi8(sv, _mm256_add_epi8(ra, rb));
    const __m256i x  = _mm256_xor_si256(ap, nm);
    const __m256i qy = _mm256_loadu_si256((const __m256i *) q);
    return _mm256_add_epi16(acc, _mm256_maddubs_epi16(_mm256_set1_epi8(1), _mm256_sign_epi8(qy, x)));
}

// The float order of ggml's x86 TQ2_0 kernel (parity with TQ2_0 files where
// pdep is slow). Over a block's 8 chunks, the 16-bit lane i of
// bitcos_np_word32's accumulator sums t*q over the elements e%32 in
// {2i, 2i+1}, so vpmaddwd with ones gives sum over E_m of t*q in lane m; the
// TQ2_0 lane is sum over E_m of (t+1)*q minus the bsums pair: the chunks' q
// pair sums (vpmaddubsw with ones, at most 8*254 per lane, the total at most
// 4064) are added before the widening, then bitcos_tq2_block_acc subtracts
// the bsums and fuses the lanes into the float accumulator.

int bitcos_have_avx2_nopdep_tq2(void) { return 1; }

void bitcos_vec_dot_q8_K_avx2_nopdep_tq2(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                         const uint16_t * d16, float d32, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    const int nb = n / BITCOS_QK_K;
    const __m256i ones8 = _mm256_set1_epi8(1);

    uint64_t pos = 0; // bit position of the next sign
    __m256 acc = _mm256_setzero_ps();

    for (int b = 0; b < nb; ++b) {
        const uint8_t * bm = bitmap + b*32;
        const int8_t  * q  = y[b].qs;
        __m256i a = _mm256_setzero_si256();
        __m256i e = _mm256_setzero_si256();
        for (int i = 0; i < 8; ++i) {
            a = bitcos_np_word32(a, bm + 4*i, q + 32*i, signs, &pos);
            e = _mm256_add_epi16(e, _mm256_maddubs_epi16(ones8, _mm256_loadu_si256((const __m256i *) (q + 32*i))));
        }
        const __m256i cq = _mm256_madd_epi16(_mm256_add_epi16(a, e), _mm256_set1_epi16(1)); // lane m: sum over E_m of (t+1)*q
        acc = bitcos_tq2_block_acc(acc, cq, &y[b], d16, d32, b);
    }

    *s = bitcos_tq2_hsum(acc);
}

#else

int bitcos_have_avx2_nopdep_tq2(void) { return 0; }

void bitcos_vec_dot_q8_K_avx2_nopdep_tq2(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                         const uint16_t * d16, float d32, const void * vy) {
    bitcos_vec_dot_q8_K_tq2order(n, s, bitmap, signs, d16, d32, vy);
}

#endif
