// Activations into Q8_K blocks, bit for bit quantize_row_q8_K_ref
// (bitcos_q8_K.h says which steps, and why that is exact).

#include "bitcos_q8_K.h"
#include "bitcos_impl.h"

#include <math.h>
#include <string.h>

#if defined(__AVX2__)
#include <immintrin.h>
#define BITCOS_Q8_K_SIMD 1
#else
#define BITCOS_Q8_K_SIMD 0
#endif

int bitcos_quantize_q8_K_simd(void) {
    return BITCOS_Q8_K_SIMD;
}

// ggml's nearest_int: round half to even for |f| <= 4194303
static inline int bitcos_nearest_int(float f) {
    const float val = f + 12582912.f;
    int i;
    memcpy(&i, &val, sizeof(int));
    return (i & 0x007fffff) - 0x00400000;
}

// One block, the reference's own loops (the scalar build, and the AVX2
// path's blocks with a NaN or an infinity, or whose iscale overflows (a
// largest |x| below about 127/FLT_MAX): there the reference's nearest_int of
// a NaN or an infinity is not what vcvtps2dq gives; and its all-zero blocks,
// which need no vector steps)
static void bitcos_quantize_block_q8_K_ref(const float * x, bitcos_block_q8_K * y) {
    float max = 0, amax = 0;
    for (int j = 0; j < BITCOS_QK_K; ++j) {
        const float ax = fabsf(x[j]);
        if (ax > amax) {
            amax = ax;
            max  = x[j];
        }
    }
    if (!amax) {
        y->d = 0;
        memset(y->qs, 0, sizeof(y->qs));
        return;
    }
    const float iscale = -127.f / max;
    for (int j = 0; j < BITCOS_QK_K; ++j) {
        float p = iscale * x[j];
        BITCOS_FP_BARRIER(p); // rounded, as ggml-base (no FMA flags) rounds it, before nearest_int's add
        const int v = bitcos_nearest_int(p);
        y->qs[j] = (int8_t) (v < 127 ? v : 127);
    }
    for (int j = 0; j < BITCOS_QK_K / 16; ++j) {
        int sum = 0;
        for (int l = 0; l < 16; ++l) {
            sum += y->qs[16*j + l];
        }
        y->bsums[j] = (int16_t) sum;
    }
    y->d = 1 / iscale;
}

#if BITCOS_Q8_K_SIMD

void bitcos_quantize_row_q8_K(const float * x, bitcos_block_q8_K * y, int64_t k) {
    const int64_t nb = k / BITCOS_QK_K;
    const __m256 sign = _mm256_set1_ps(-0.0f);
    const __m256 inf  = _mm256_set1_ps(INFINITY);
    // packs and hadds work within 128-bit lanes; this puts dwords back in order
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (int64_t i = 0; i < nb; ++i, x += BITCOS_QK_K) {
        // amax, and whether any |x| is a NaN or an infinity
        __m256 m = _mm256_setzero_ps();
        __m256 bad = _mm256_setzero_ps();
        for (int j = 0; j < BITCOS_QK_K; j += 8) {
            const __m256 a = _mm256_andnot_ps(sign, _mm256_loadu_ps(x + j));
            m   = _mm256_max_ps(a, m);
            bad = _mm256_or_ps(bad, _mm256_cmp_ps(a, inf, _CMP_NLT_UQ));
        }
        __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
        m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
        m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
        const float amax = _mm_cvtss_f32(m4);
        if (_mm256_movemask_ps(bad) || amax == 0.0f) {
            bitcos_quantize_block_q8_K_ref(x, &y[i]);
            continue;
        }
        // max: the first x of magnitude amax
        float max = 0.0f;
        const __m256 va = _mm256_set1_ps(amax);
        for (int j = 0; j < BITCOS_QK_K; j += 8) {
            const int hit = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(x + j)), va, _CMP_EQ_OQ));
            if (hit) {
                max = x[j + __builtin_ctz((unsigned) hit)];
                break;
            }
        }
        const float iscale = -127.f / max;
        if (!isfinite(iscale)) {
            bitcos_quantize_block_q8_K_ref(x, &y[i]);
            continue;
        }
        const __m256  vs    = _mm256_set1_ps(iscale);
        const __m256i q127  = _mm256_set1_epi32(127);
        const __m256i ones8 = _mm256_set1_epi8(1);
        const __m256i ones  = _mm256_set1_epi16(1);
        __m256i quads[8]; // per 32 quants: 8 sums of 4
        for (int c = 0; c < 8; ++c) {
            __m256i v[4];
            for (int l = 0; l < 4; ++l) {
                const __m256 p = _mm256_mul_ps(vs, _mm256_loadu_ps(x + 32*c + 8*l));
                v[l] = _mm256_min_epi32(_mm256_cvtps_epi32(p), q127);
            }
            // |v| <= 127 (|iscale * x| exceeds 127 by a rounding at most):
            // the packs do not saturate
            const __m256i q = _mm256_permutevar8x32_epi32(
                _mm256_packs_epi16(_mm256_packs_epi32(v[0], v[1]), _mm256_packs_epi32(v[2], v[3])), order);
            _mm256_storeu_si256((__m256i *) (y[i].qs + 32*c), q);
            quads[c] = _mm256_madd_epi16(_mm256_maddubs_epi16(ones8, q), ones);
        }
        // bsums: hadd pairs the quads (in-lane), twice: sums of 16 in the
        // order g0 g2 g4 g6 | g1 g3 g5 g7 per four chunks, put in order
        for (int h = 0; h < 2; ++h) {
            const __m256i s = _mm256_permutevar8x32_epi32(
                _mm256_hadd_epi32(_mm256_hadd_epi32(quads[4*h], quads[4*h + 1]), _mm256_hadd_epi32(quads[4*h + 2], quads[4*h + 3])), order);
            _mm_storeu_si128((__m128i *) (y[i].bsums + 8*h),
                             _mm_packs_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1)));
        }
        y[i].d = 1 / iscale;
    }
}

#else

void bitcos_quantize_row_q8_K(const float * x, bitcos_block_q8_K * y, int64_t k) {
    for (int64_t i = 0; i < k / BITCOS_QK_K; ++i) {
        bitcos_quantize_block_q8_K_ref(x + i * BITCOS_QK_K, &y[i]);
    }
}

#endif
