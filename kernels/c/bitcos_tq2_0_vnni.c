// TQ2_0 blocks x Q8_K with AVX-512 VNNI, in the float order of ggml's x86
// TQ2_0 kernel (bitcos_tq2_step.h says it): the one-column kernel of BITCOS
// weights converted to TQ2_0 blocks at load (bitcos_layout.c, the CPU_BITCOS
// buffer). It gives every bit ggml_vec_dot_tq2_0_q8_K gives on the same
// blocks, with about a third of its instructions: ggml's AVX2 kernel shifts,
// masks and multiplies 32 codes at a time into 16-bit pair sums; here one
// 512-bit vpdpbusd takes 64.
//
// TQ2_0 block: qs[64] then the fp16 scale d. Element e of the block is
// bits 2*((e%128)/32) of byte 32*(e/128) + e%32, the code c = t + 1.
// Per half h (elements 128h..128h+127, qs bytes 32h..32h+31), the 32 bytes
// are broadcast to both 256-bit halves of a vector and shifted right per
// 16-bit lane by 0 | 2 (chunks 0, 1 of the half) or 4 | 6 (chunks 2, 3),
// then masked with 3: a vector of the codes of 64 consecutive elements
// 128h + 64j .. 128h + 64j + 63, matching the 64 activations there. vpdpbusd
// sums c*q over each 4 bytes into int32 lane l, elements e with e%32 in
// [4(l%8), 4(l%8)+4): the two 256-bit halves add to TQ2_0's 8 lanes E_0..E_7,
// exact integers; the accumulator starts at minus the bsums pairs, as in
// bitcos_avx512_tq2.c. Per block d = y.d * fp16(x.d) (one rounding, then
// broadcast), acc = fma((float) L, d, acc) lane by lane; ggml's hsum_float_8
// at the end.
//
// The _f32 kernel does the same on f32 blocks (bitcos_layout.h: a weight with
// a per-tensor f32 scale, 68 bytes per block): d = y.d * x.d32, which is what
// the native kernels of that order compute for such a weight (bitcos.h), so
// its logits stay those of the native layout, bit for bit.
//
// Only where the build has AVX-512 F/BW/VL/VNNI with F16C and FMA; otherwise
// bitcos_have_tq2_0_vnni() is 0 (callers keep ggml's TQ2_0 kernel) and the
// functions are bitcos_tq2_0_vec_dot_q8_K_ref in this order (the scalar
// reference the tests hold every build to, with kernels.VecDotQ8KTQ2Order).

#include "bitcos_impl.h"
#include "bitcos_layout.h"
#include "bitcos_select.h"
#include "bitcos_tq2fast.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__AVX512VNNI__) && \
    defined(__F16C__) && defined(__FMA__)

#include "bitcos_tq2_step.h"

int bitcos_have_tq2_0_vnni(void) { return 1; }

// f32 is a constant at each call: the compiler makes two loops.
BITCOS_INLINE void bitcos_tq2_0_dot_vnni(int n, float * s, const uint8_t * x, const bitcos_block_q8_K * y, int f32) {
    const int nb = n / BITCOS_QK_K;
    const size_t bb = BITCOS_TQ2_0_BLOCK_SIZE(f32);

    const __m512i m3   = _mm512_set1_epi8(3);
    const __m512i sh01 = _mm512_inserti64x4(_mm512_setzero_si512(), _mm256_set1_epi16(2), 1);
    const __m512i sh23 = _mm512_inserti64x4(_mm512_set1_epi16(4), _mm256_set1_epi16(6), 1);
    __m256 acc = _mm256_setzero_ps();

    for (int b = 0; b < nb; ++b) {
        const uint8_t * xb = x + (size_t) b * bb;
        const int8_t * q = y[b].qs;
        const __m512i lo = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *) xb));
        const __m512i hi = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *) (xb + 32)));
        __m512i a0 = _mm512_madd_epi16(_mm512_zextsi256_si512(_mm256_loadu_si256((const __m256i *) y[b].bsums)),
                                       _mm512_set1_epi16(-1));
        __m512i a1 = _mm512_setzero_si512();
        a0 = _mm512_dpbusd_epi32(a0, _mm512_and_si512(_mm512_srlv_epi16(lo, sh01), m3), _mm512_loadu_si512((const void *) q));
        a1 = _mm512_dpbusd_epi32(a1, _mm512_and_si512(_mm512_srlv_epi16(lo, sh23), m3), _mm512_loadu_si512((const void *) (q + 64)));
        a0 = _mm512_dpbusd_epi32(a0, _mm512_and_si512(_mm512_srlv_epi16(hi, sh01), m3), _mm512_loadu_si512((const void *) (q + 128)));
        a1 = _mm512_dpbusd_epi32(a1, _mm512_and_si512(_mm512_srlv_epi16(hi, sh23), m3), _mm512_loadu_si512((const void *) (q + 192)));
        a0 = _mm512_add_epi32(a0, a1);
        const __m256i L = _mm256_add_epi32(_mm512_castsi512_si256(a0), _mm512_extracti64x4_epi64(a0, 1));
        // y.d * d in one float multiply, then broadcast: ggml's _mm256_set1_ps(y.d * fp16(d))
        const __m256 d = _mm256_set1_ps(y[b].d * bitcos_tq2_0_block_d(xb, f32));
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(L), d, acc);
    }

    *s = bitcos_tq2_hsum(acc);
}

void bitcos_tq2_0_vec_dot_q8_K_vnni(int n, float * s, const void * x, const void * y) {
    bitcos_tq2_0_dot_vnni(n, s, (const uint8_t *) x, (const bitcos_block_q8_K *) y, 0);
}

void bitcos_tq2_0_f32_vec_dot_q8_K_vnni(int n, float * s, const void * x, const void * y) {
    bitcos_tq2_0_dot_vnni(n, s, (const uint8_t *) x, (const bitcos_block_q8_K *) y, 1);
}

#else

int bitcos_have_tq2_0_vnni(void) { return 0; }

void bitcos_tq2_0_vec_dot_q8_K_vnni(int n, float * s, const void * x, const void * y) {
    bitcos_tq2_0_vec_dot_q8_K_ref(n, s, x, 0, BITCOS_ORDER_TQ2_X86, y);
}

void bitcos_tq2_0_f32_vec_dot_q8_K_vnni(int n, float * s, const void * x, const void * y) {
    bitcos_tq2_0_vec_dot_q8_K_ref(n, s, x, 1, BITCOS_ORDER_TQ2_X86, y);
}

#endif
