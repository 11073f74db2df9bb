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

void bitcos_row_codes(int n, uint8_t * c, const uint8_t * bitmap, const uint8_t * signs) {
    uint64_t pos = 0;
    uint64_t three = 3;
    BITCOS_OPAQUE_U64(three);
    for (int w = 0; w < n / 64; ++w) {
        __m256i c0, c1;
        bitcos_tq2_codes64(bitmap + 8*w, signs, &pos, three, &c0, &c1);
        _mm256_storeu_si256((__m256i *) (c + 64*w),      c0);
        _mm256_storeu_si256((__m256i *) (c + 64*w + 32), c1);
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

// Four columns at once: each code load serves four activation columns; per
// column the same integer lanes and float steps as bitcos_codes_vec_dot_q8_K.
void bitcos_codes_vec_dot_q8_K_x4(int n, float * s, const uint8_t * c, const uint16_t * d16, float d32, const void * const * vy) {
    const bitcos_block_q8_K * y0 = (const bitcos_block_q8_K *) vy[0];
    const bitcos_block_q8_K * y1 = (const bitcos_block_q8_K *) vy[1];
    const bitcos_block_q8_K * y2 = (const bitcos_block_q8_K *) vy[2];
    const bitcos_block_q8_K * y3 = (const bitcos_block_q8_K *) vy[3];
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps(), acc2 = _mm256_setzero_ps(), acc3 = _mm256_setzero_ps();
    for (int b = 0; b < n / BITCOS_QK_K; ++b) {
        const uint8_t * cb = c + b*BITCOS_QK_K;
        __m256i a0 = _mm256_setzero_si256(), a1 = _mm256_setzero_si256(), a2 = _mm256_setzero_si256(), a3 = _mm256_setzero_si256();
        for (int k = 0; k < 8; ++k) {
            const __m256i ck = _mm256_loadu_si256((const __m256i *) (cb + 32*k));
            a0 = _mm256_add_epi16(a0, _mm256_maddubs_epi16(ck, _mm256_loadu_si256((const __m256i *) (y0[b].qs + 32*k))));
            a1 = _mm256_add_epi16(a1, _mm256_maddubs_epi16(ck, _mm256_loadu_si256((const __m256i *) (y1[b].qs + 32*k))));
            a2 = _mm256_add_epi16(a2, _mm256_maddubs_epi16(ck, _mm256_loadu_si256((const __m256i *) (y2[b].qs + 32*k))));
            a3 = _mm256_add_epi16(a3, _mm256_maddubs_epi16(ck, _mm256_loadu_si256((const __m256i *) (y3[b].qs + 32*k))));
        }
        const __m256i ones = _mm256_set1_epi16(1);
        acc0 = bitcos_tq2_block_acc(acc0, _mm256_madd_epi16(a0, ones), &y0[b], d16, d32, b);
        acc1 = bitcos_tq2_block_acc(acc1, _mm256_madd_epi16(a1, ones), &y1[b], d16, d32, b);
        acc2 = bitcos_tq2_block_acc(acc2, _mm256_madd_epi16(a2, ones), &y2[b], d16, d32, b);
        acc3 = bitcos_tq2_block_acc(acc3, _mm256_madd_epi16(a3, ones), &y3[b], d16, d32, b);
    }
    s[0] = bitcos_tq2_hsum(acc0);
    s[1] = bitcos_tq2_hsum(acc1);
    s[2] = bitcos_tq2_hsum(acc2);
    s[3] = bitcos_tq2_hsum(acc3);
}

#else

int bitcos_have_codes_avx2(void) { return 0; }

void bitcos_codes_vec_dot_q8_K_x4(int n, float * s, const uint8_t * c, const uint16_t * d16, float d32, const void * const * vy) {
    for (int j = 0; j < 4; ++j) {
        bitcos_codes_vec_dot_q8_K(n, &s[j], c, d16, d32, vy[j]);
    }
}

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
