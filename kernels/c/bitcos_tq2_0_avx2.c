// TQ2_0 blocks and f32 blocks (bitcos_layout.h) x Q8_K with AVX2, in the
// float order of ggml's x86 TQ2_0 kernel (bitcos_tq2_step.h says it): the
// one-column kernel of weights converted at load where the build lacks
// AVX-512 VNNI (bitcos_tq2_0_vnni.c), that is AVX2 builds of x86 CPUs.
//
// With AVX-VNNI (the VEX vpdpbusd of Alder Lake to Arrow Lake, Sapphire
// Rapids and Zen 5 in builds without AVX-512; __AVXVNNI__): per block the
// accumulator starts at minus the bsums pairs (vpmaddwd of the bsums with
// -1), and each qs half's 32 bytes shifted right by 0, 2, 4, 6 and masked
// with 3 are the codes of 32 consecutive elements 128h + 32s + i, matching
// the 32 activations there: eight vpdpbusd give TQ2_0's int32 lanes L_m
// (elements with e%32 in [4m, 4m+4)) directly, exact integers.
// Without it: ggml's own steps (vpmaddubsw into 16-bit pair sums, minus the
// bsums, vpmaddwd by 1), which give the same lanes.
// Either way, per block d = y.d * the block's d (one rounding), then
// acc = fma((float) L, d, acc) lane by lane, ggml's hsum_float_8 at the end:
// on TQ2_0 blocks every bit of ggml_vec_dot_tq2_0_q8_K; on f32 blocks every
// bit of the native x86-order kernels with that scale.
//
// Where the build lacks AVX2, FMA or F16C, bitcos_have_tq2_0_avx2() is 0 and
// the functions are bitcos_tq2_0_vec_dot_q8_K_ref in this order.

#include "bitcos_impl.h"
#include "bitcos_layout.h"
#include "bitcos_select.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)

#include "bitcos_tq2_step.h"

#if defined(__AVXVNNI__)
int bitcos_have_tq2_0_avx2(void) { return 2; }
#else
int bitcos_have_tq2_0_avx2(void) { return 1; }
#endif

// TQ2_0's 8 int32 lanes of block xb (codes) and yb (activations), bsums
// pairs subtracted.
BITCOS_INLINE __m256i bitcos_tq2_0_lanes_avx2(const uint8_t * xb, const bitcos_block_q8_K * yb) {
    const __m256i m3 = _mm256_set1_epi8(3);
    const int8_t * q = yb->qs;
#if defined(__AVXVNNI__)
    __m256i a0 = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *) yb->bsums), _mm256_set1_epi16(-1));
    __m256i a1 = _mm256_setzero_si256();
    for (int h = 0; h < 2; ++h) {
        const __m256i x = _mm256_loadu_si256((const __m256i *) (xb + 32*h));
        const int8_t * qh = q + 128*h;
        a0 = _mm256_dpbusd_avx_epi32(a0, _mm256_and_si256(x, m3), _mm256_loadu_si256((const __m256i *) qh));
        a1 = _mm256_dpbusd_avx_epi32(a1, _mm256_and_si256(_mm256_srli_epi16(x, 2), m3), _mm256_loadu_si256((const __m256i *) (qh + 32)));
        a0 = _mm256_dpbusd_avx_epi32(a0, _mm256_and_si256(_mm256_srli_epi16(x, 4), m3), _mm256_loadu_si256((const __m256i *) (qh + 64)));
        a1 = _mm256_dpbusd_avx_epi32(a1, _mm256_and_si256(_mm256_srli_epi16(x, 6), m3), _mm256_loadu_si256((const __m256i *) (qh + 96)));
    }
    return _mm256_add_epi32(a0, a1);
#else
    // 16-bit sums, as ggml's: at most 4 * 2 * 3 * 127 per lane and sum
    __m256i s0 = _mm256_setzero_si256();
    __m256i s1 = _mm256_setzero_si256();
    for (int h = 0; h < 2; ++h) {
        const __m256i x = _mm256_loadu_si256((const __m256i *) (xb + 32*h));
        const int8_t * qh = q + 128*h;
        const __m256i p0 = _mm256_maddubs_epi16(_mm256_and_si256(x, m3), _mm256_loadu_si256((const __m256i *) qh));
        const __m256i p1 = _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(x, 2), m3), _mm256_loadu_si256((const __m256i *) (qh + 32)));
        const __m256i p2 = _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(x, 4), m3), _mm256_loadu_si256((const __m256i *) (qh + 64)));
        const __m256i p3 = _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(x, 6), m3), _mm256_loadu_si256((const __m256i *) (qh + 96)));
        s0 = _mm256_add_epi16(s0, _mm256_add_epi16(p0, p1));
        s1 = _mm256_add_epi16(s1, _mm256_add_epi16(p2, p3));
    }
    s0 = _mm256_sub_epi16(_mm256_add_epi16(s0, s1), _mm256_loadu_si256((const __m256i *) yb->bsums));
    return _mm256_madd_epi16(s0, _mm256_set1_epi16(1));
#endif
}

// f32 is a constant at each call: the compiler makes two loops.
BITCOS_INLINE void bitcos_tq2_0_dot_avx2(int n, float * s, const uint8_t * x, const bitcos_block_q8_K * y, int f32) {
    const int nb = n / BITCOS_QK_K;
    const size_t bb = BITCOS_TQ2_0_BLOCK_SIZE(f32);
    __m256 acc = _mm256_setzero_ps();
    for (int b = 0; b < nb; ++b) {
        const uint8_t * xb = x + (size_t) b * bb;
        const __m256i L = bitcos_tq2_0_lanes_avx2(xb, &y[b]);
        const __m256 d = _mm256_set1_ps(y[b].d * bitcos_tq2_0_block_d(xb, f32));
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(L), d, acc);
    }
    *s = bitcos_tq2_hsum(acc);
}

void bitcos_tq2_0_vec_dot_q8_K_avx2(int n, float * s, const void * x, const void * y) {
    bitcos_tq2_0_dot_avx2(n, s, (const uint8_t *) x, (const bitcos_block_q8_K *) y, 0);
}

void bitcos_tq2_0_f32_vec_dot_q8_K_avx2(int n, float * s, const void * x, const void * y) {
    bitcos_tq2_0_dot_avx2(n, s, (const uint8_t *) x, (const bitcos_block_q8_K *) y, 1);
}

#else

int bitcos_have_tq2_0_avx2(void) { return 0; }

void bitcos_tq2_0_vec_dot_q8_K_avx2(int n, float * s, const void * x, const void * y) {
    bitcos_tq2_0_vec_dot_q8_K_ref(n, s, x, 0, BITCOS_ORDER_TQ2_X86, y);
}

void bitcos_tq2_0_f32_vec_dot_q8_K_avx2(int n, float * s, const void * x, const void * y) {
    bitcos_tq2_0_vec_dot_q8_K_ref(n, s, x, 1, BITCOS_ORDER_TQ2_X86, y);
}

#endif
