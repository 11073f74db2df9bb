#include "tq2_0.h"
#include "../bitcos_impl.h"

void tq2_vec_dot_q8_K_generic(int n, float * s, const tq2_block * x, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    const int nb = n / BITCOS_QK_K;
    float sumf = 0.0f;
    for (int b = 0; b < nb; ++b) {
        int32_t sumi = 0;
        for (int e = 0; e < BITCOS_QK_K; ++e) {
            const int code = (x[b].qs[(e/128)*32 + e%32] >> (2*((e%128)/32))) & 3;
            sumi += (code - 1) * y[b].qs[e];
        }
        sumf = bitcos_block_acc(sumf, sumi, y[b].d, &x[b].d, 0.0f, 0);
    }
    *s = sumf;
}

#if defined(__AVX2__)

int tq2_have_avx2(void) { return 1; }

// Codes 0..2 of one 32-byte group times 128 activations, as 16-bit pair sums
// of (t+1)*q; the caller subtracts the activation sums.
static inline __m256i tq2_group(const uint8_t * qs, const int8_t * q, __m256i acc) {
    const __m256i three = _mm256_set1_epi8(3);
    const __m256i c = _mm256_loadu_si256((const __m256i *) qs);
    for (int l = 0; l < 4; ++l) {
        const __m256i u = _mm256_and_si256(_mm256_srli_epi16(c, 2*l), three);
        const __m256i qy = _mm256_loadu_si256((const __m256i *) (q + 32*l));
        acc = _mm256_add_epi16(acc, _mm256_maddubs_epi16(u, qy));
    }
    return acc;
}

void tq2_vec_dot_q8_K_avx2(int n, float * s, const tq2_block * x, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    const int nb = n / BITCOS_QK_K;
    __m256 accf = _mm256_setzero_ps();
    for (int b = 0; b < nb; ++b) {
        __m256i acc = _mm256_setzero_si256();
        acc = tq2_group(x[b].qs,      y[b].qs,       acc);
        acc = tq2_group(x[b].qs + 32, y[b].qs + 128, acc);
        // (t+1)*q summed, minus the sum of q (bsums: 16 sums of 16)
        acc = _mm256_sub_epi16(acc, _mm256_loadu_si256((const __m256i *) y[b].bsums));
        const __m256i s32 = _mm256_madd_epi16(acc, _mm256_set1_epi16(1));
        const __m256 d = _mm256_set1_ps(y[b].d * bitcos_fp16_to_fp32(x[b].d));
        accf = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(s32), d), accf);
    }
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(accf), _mm256_extractf128_ps(accf, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_movehdup_ps(h));
    *s = _mm_cvtss_f32(h);
}

void tq2_vec_dot_q8_K_avx2_exact(int n, float * s, const tq2_block * x, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    const int nb = n / BITCOS_QK_K;
    float sumf = 0.0f;
    for (int b = 0; b < nb; ++b) {
        __m256i acc = _mm256_setzero_si256();
        acc = tq2_group(x[b].qs,      y[b].qs,       acc);
        acc = tq2_group(x[b].qs + 32, y[b].qs + 128, acc);
        acc = _mm256_sub_epi16(acc, _mm256_loadu_si256((const __m256i *) y[b].bsums));
        const __m256i s32 = _mm256_madd_epi16(acc, _mm256_set1_epi16(1));
        __m128i t = _mm_add_epi32(_mm256_castsi256_si128(s32), _mm256_extracti128_si256(s32, 1));
        t = _mm_add_epi32(t, _mm_unpackhi_epi64(t, t));
        t = _mm_add_epi32(t, _mm_shuffle_epi32(t, _MM_SHUFFLE(2, 3, 0, 1)));
        sumf = bitcos_block_acc(sumf, _mm_cvtsi128_si32(t), y[b].d, &x[b].d, 0.0f, 0);
    }
    *s = sumf;
}

#else

int tq2_have_avx2(void) { return 0; }

void tq2_vec_dot_q8_K_avx2(int n, float * s, const tq2_block * x, const void * y) { tq2_vec_dot_q8_K_generic(n, s, x, y); }
void tq2_vec_dot_q8_K_avx2_exact(int n, float * s, const tq2_block * x, const void * y) { tq2_vec_dot_q8_K_generic(n, s, x, y); }

#endif
