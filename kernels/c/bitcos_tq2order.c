// BITCOS x Q8_K in the float order of ggml's x86 TQ2_0 kernel, so that a
// BITCOS file repacked from TQ2_0 gives bit-identical dot products to its
// source on x86 builds of llama.cpp (perplexity parity, issue 3). Scalar C:
// a parity mode, not a fast path.
//
// ggml_vec_dot_tq2_0_q8_K under __AVX2__ (ggml-cpu/arch/x86/quants.c at the
// pin), as GCC compiles it with FMA (-march=native on any AVX2 CPU; the
// binary holds vfmadd231ps), computes per 256-block b, for 8 int32 lanes m:
//     L_m = sum over e in E_m of c_e * q_e  -  (bsums[2m] + bsums[2m+1])
//     E_m = { 128*h + 32*l + p : h in {0,1}, l in 0..3, p in [4m, 4m+4) }
// with c_e = t_e + 1 the TQ2_0 code (its maddubs pairs bytes 2k, 2k+1 and
// madd pairs int16 lanes 2m, 2m+1), then
//     acc[m] = fma((float) L_m, y[b].d * d_b, acc[m])
// and finally hsum_float_8: ((acc0+acc4) + (acc2+acc6)) + ((acc1+acc5) + (acc3+acc7)).
// The integer lane sums are exact however they are formed; the float steps
// are replicated one for one (fmaf is a single rounding, as vfmadd231ps).

#include "bitcos_impl.h"

#include <math.h>

void bitcos_vec_dot_q8_K_tq2order(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                  const uint16_t * d16, float d32, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    const int nb = n / BITCOS_QK_K;

    uint64_t pos = 0; // bit position of the next sign, LSB first
    float acc[8] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };

    for (int b = 0; b < nb; ++b) {
        const uint8_t * bm = bitmap + b*(BITCOS_QK_K/8);
        const int8_t  * q  = y[b].qs;
        int32_t lane[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
        for (int e = 0; e < BITCOS_QK_K; ++e) {
            int32_t c = 1; // TQ2_0 code of a zero weight
            if ((bm[e >> 3] >> (e & 7)) & 1) {
                c = ((signs[pos >> 3] >> (pos & 7)) & 1) ? 0 : 2;
                ++pos;
            }
            lane[(e & 31) >> 2] += c * q[e];
        }
        const float scale = d16 ? bitcos_fp16_to_fp32(d16[b]) : d32;
        const float d = y[b].d * scale;
        for (int m = 0; m < 8; ++m) {
            lane[m] -= (int32_t) y[b].bsums[2*m] + (int32_t) y[b].bsums[2*m + 1];
            acc[m] = fmaf((float) lane[m], d, acc[m]);
        }
    }

    const float r0 = acc[0] + acc[4], r1 = acc[1] + acc[5], r2 = acc[2] + acc[6], r3 = acc[3] + acc[7];
    *s = (r0 + r2) + (r1 + r3);
}
