// BITCOS rows as TQ2_0 codes, for batches (prompt processing): a row is
// decoded once into one code byte per weight, c = t + 1 (0, 1, 2), and then
// dotted with every activation column of the batch, so the sign deposit and
// the bit-to-byte expansion are paid once per row and batch tile instead of
// once per row and column (ggml-cpu's mul_mat tiles 16 columns).
//
// bitcos_codes_vec_dot_q8_K computes in the float order of ggml's x86 TQ2_0
// kernel (bitcos_tq2order.c: 8 int32 lanes per block, minus the bsums pairs,
// one FMA per lane, hsum_float_8): bit-identical to
// bitcos_vec_dot_q8_K_tq2order for the same row, so the batch path and the
// one-column path of a model agree with each other and with TQ2_0.
//
// With AVX2 + BMI2 (+FMA, F16C) the decode is the pdep deposit and byte
// expansion of bitcos_avx2_tq2.c and the dot is vpmaddubsw per 32 codes
// (3 vector ops); otherwise scalar C.

#include "bitcos_impl.h"

#include <math.h>

#if defined(__AVX2__) && defined(__BMI2__) && defined(__F16C__) && defined(__FMA__)

#include "bitcos_tq2_step.h"

int bitcos_have_codes_avx2(void) { return 1; }

// 32 codes from the broadcast presence (vp) and negative (vn) words.
BITCOS_INLINE __m256i bitcos_codes32(__m256i vp, __m256i vn, __m256i spread) {
    const __m256i lane_bit = _mm256_set1_epi64x(0x8040201008040201);
    const __m256i ones8    = _mm256_set1_epi8(1);
    const __m256i p = _mm256_min_epu8(_mm256_and_si256(_mm256_shuffle_epi8(vp, spread), lane_bit), ones8);
    const __m256i n = _mm256_cmpeq_epi8(_mm256_and_si256(_mm256_shuffle_epi8(vn, spread), lane_bit), lane_bit);
    return _mm256_andnot_si256(n, _mm256_add_epi8(p, ones8));
}

void bitcos_row_codes(int n, uint8_t * c, const uint8_t * bitmap, const uint8_t * signs) {
    const __m256i spread_lo = _mm256_setr_epi8(0,0,0,0,0,0,0,0, 1,1,1,1,1,1,1,1, 2,2,2,2,2,2,2,2, 3,3,3,3,3,3,3,3);
    const __m256i spread_hi = _mm256_setr_epi8(4,4,4,4,4,4,4,4, 5,5,5,5,5,5,5,5, 6,6,6,6,6,6,6,6, 7,7,7,7,7,7,7,7);
    uint64_t pos = 0;
    uint64_t three = 3;
    BITCOS_OPAQUE_U64(three);
    for (int w = 0; w < n / 64; ++w) {
        const uint64_t m   = bitcos_load_u64(bitmap + 8*w);
        const uint64_t neg = bitcos_pdep_next_neg(signs, &pos, m, three);
        const __m256i vp = _mm256_set1_epi64x((long long) m);
        const __m256i vn = _mm256_set1_epi64x((long long) neg);
        _mm256_storeu_si256((__m256i *) (c + 64*w),      bitcos_codes32(vp, vn, spread_lo));
        _mm256_storeu_si256((__m256i *) (c + 64*w + 32), bitcos_codes32(vp, vn, spread_hi));
    }
}

void bitcos_codes_vec_dot_q8_K(int n, float * s, const uint8_t * c, const uint16_t * d16, float d32, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    __m256 acc = _mm256_setzero_ps();
    for (int b = 0; b < n / BITCOS_QK_K; ++b) {
        const uint8_t * cb = c + b*BITCOS_QK_K;
        const int8_t  * q  = y[b].qs;
        // 8 chunks x 2 products of at most 2*127 per 16-bit lane: no
        // overflow. Unrolled by hand, two accumulators.
#define BITCOS_CODES_CHUNK(k) _mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *) (cb + 32*(k))), \
                                                   _mm256_loadu_si256((const __m256i *) (q + 32*(k))))
        const __m256i a0 = _mm256_add_epi16(_mm256_add_epi16(BITCOS_CODES_CHUNK(0), BITCOS_CODES_CHUNK(2)),
                                            _mm256_add_epi16(BITCOS_CODES_CHUNK(4), BITCOS_CODES_CHUNK(6)));
        const __m256i a1 = _mm256_add_epi16(_mm256_add_epi16(BITCOS_CODES_CHUNK(1), BITCOS_CODES_CHUNK(3)),
                                            _mm256_add_epi16(BITCOS_CODES_CHUNK(5), BITCOS_CODES_CHUNK(7)));
#undef BITCOS_CODES_CHUNK
        const __m256i cq = _mm256_madd_epi16(_mm256_add_epi16(a0, a1), _mm256_set1_epi16(1)); // lane m: sum over E_m of c*q
        acc = bitcos_tq2_block_acc(acc, cq, &y[b], d16, d32, b);
    }
    *s = bitcos_tq2_hsum(acc);
}

#else

int bitcos_have_codes_avx2(void) { return 0; }

void bitcos_row_codes(int n, uint8_t * c, const uint8_t * bitmap, const uint8_t * signs) {
    uint64_t pos = 0;
    for (int j = 0; j < n; ++j) {
        uint8_t code = 1;
        if ((bitmap[j >> 3] >> (j & 7)) & 1) {
            code = ((signs[pos >> 3] >> (pos & 7)) & 1) ? 0 : 2;
            ++pos;
        }
        c[j] = code;
    }
}

// The steps of bitcos_vec_dot_q8_K_tq2order on codes.
void bitcos_codes_vec_dot_q8_K(int n, float * s, const uint8_t * c, const uint16_t * d16, float d32, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    float acc[8] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
    for (int b = 0; b < n / BITCOS_QK_K; ++b) {
        int32_t lane[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
        for (int e = 0; e < BITCOS_QK_K; ++e) {
            lane[(e & 31) >> 2] += (int32_t) c[b*BITCOS_QK_K + e] * y[b].qs[e];
        }
        const float d = y[b].d * (d16 ? bitcos_fp16_to_fp32(d16[b]) : d32);
        for (int m = 0; m < 8; ++m) {
            lane[m] -= (int32_t) y[b].bsums[2*m] + (int32_t) y[b].bsums[2*m + 1];
            acc[m] = fmaf((float) lane[m], d, acc[m]);
        }
    }
    const float r0 = acc[0] + acc[4], r1 = acc[1] + acc[5], r2 = acc[2] + acc[6], r3 = acc[3] + acc[7];
    *s = (r0 + r2) + (r1 + r3);
}

#endif

// Pack n codes (bitcos_row_codes) into n/256 TQ2_0 blocks of 66 bytes (qs[64]
// then the fp16 scale d16[b]): element e of a block is byte (e/128)*32 + e%32,
// bits 2*((e%128)/32). The result is the TQ2_0 row the BITCOS row was
// repacked from (byte for byte, for a canonical source), so ggml's own TQ2_0
// dot product can run on it: a batch then costs one decode per row and tile,
// and every column TQ2_0's kernel and its numerics.
void bitcos_codes_to_tq2_0(int n, uint8_t * dst, const uint8_t * c, const uint16_t * d16) {
    for (int b = 0; b < n / BITCOS_QK_K; ++b) {
        uint8_t * blk = dst + 66*b;
        const uint8_t * cb = c + b*BITCOS_QK_K;
        for (int h = 0; h < 2; ++h) {
            for (int i = 0; i < 32; ++i) {
                const uint8_t * e = cb + 128*h + i;
                blk[32*h + i] = (uint8_t) (e[0] | e[32] << 2 | e[64] << 4 | e[96] << 6);
            }
        }
        memcpy(blk + 64, &d16[b], 2);
    }
}
