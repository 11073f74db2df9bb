// Fast BITCOS x Q8_K kernels in the float order of ggml's x86 TQ2_0 kernel
// (the order of bitcos_vec_dot_q8_K_tq2order, bitcos_tq2order.c, which says
// what it is): per 256-block 8 exact int32 lanes
//     L_m = sum over e in E_m of (t_e + 1) * q_e  -  (bsums[2m] + bsums[2m+1]),
//     E_m = { e : e % 32 in [4m, 4m+4) },
// acc[m] = fma((float) L_m, y[b].d * d_b, acc[m]) (a real FMA, one rounding),
// then ggml's hsum_float_8. Bit-identical to bitcos_vec_dot_q8_K_tq2order
// and kernels.VecDotQ8KTQ2Order, hence to TQ2_0 files on x86 llama.cpp
// (perplexity parity).
//
// Variants (a file whose ISA is not enabled compiles to a call to the scalar
// bitcos_vec_dot_q8_K_tq2order, and its bitcos_have_* returns 0):
//   bitcos_avx2_tq2.c    AVX2 + BMI2 + FMA (+F16C); -mavx2 -mbmi2 -mfma -mf16c
//   bitcos_avx512_tq2.c  AVX-512 F+BW (+BMI2, FMA, F16C); its own translation
//                        unit, -mavx512f -mavx512bw -mbmi2 -mfma -mf16c
//   bitcos_nopdep.c      bitcos_vec_dot_q8_K_avx2_nopdep_tq2: AVX2 + FMA
//                        (+F16C) without pdep (AMD family 0x17, Hygon): a
//                        rank-table deposit (bitcos_nopdep_tables.h)
//   bitcos_avx2_clmul.c  AVX2 + BMI2 + PCLMULQDQ + FMA (+F16C; VPCLMULQDQ when
//                        the build has it); -mavx2 -mbmi2 -mfma -mf16c -mpclmul.
//                        It reads the activations in a permuted copy qp
//                        (BITCOS_CLMUL_QP_SIZE(n) bytes), made once per column by bitcos_q8_K_perm_clmul
//                        and shared by every row (the scalar fallback ignores
//                        qp).
//
// bitcos.h states the contract every kernel shares and declares the scalar
// ones (generic, tq2order); this header declares the fast kernels in TQ2_0's
// x86 order, the ones ggml-cpu picks on x86.

#pragma once

#include "bitcos.h"

// How the kernels below compile in this translation unit: 1 with their SIMD
// path, 0 as a call to bitcos_vec_dot_q8_K_tq2order (each file tests its
// macro; ggml-cpu's arch/x86/quants.c picks the kernel of the build by them).
#if defined(__AVX2__) && defined(__F16C__) && defined(__FMA__)
#define BITCOS_AVX2_NOPDEP_TQ2_SIMD 1
#else
#define BITCOS_AVX2_NOPDEP_TQ2_SIMD 0
#endif
#if BITCOS_AVX2_NOPDEP_TQ2_SIMD && defined(__BMI2__)
#define BITCOS_AVX2_TQ2_SIMD 1
#else
#define BITCOS_AVX2_TQ2_SIMD 0
#endif
#if BITCOS_AVX2_TQ2_SIMD && defined(__PCLMUL__)
#define BITCOS_AVX2_CLMUL_SIMD 1
#else
#define BITCOS_AVX2_CLMUL_SIMD 0
#endif
#if BITCOS_AVX2_TQ2_SIMD && defined(__AVX512F__) && defined(__AVX512BW__)
#define BITCOS_AVX512_TQ2_SIMD 1
#else
#define BITCOS_AVX512_TQ2_SIMD 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

void bitcos_vec_dot_q8_K_avx2_tq2  (int n, float * s, const uint8_t * bitmap, const uint8_t * signs, const uint16_t * d16, float d32, const void * y);
void bitcos_vec_dot_q8_K_avx512_tq2(int n, float * s, const uint8_t * bitmap, const uint8_t * signs, const uint16_t * d16, float d32, const void * y);

// bitcos_avx2_clmul.c's copy of an activation column of n weights:
// BITCOS_CLMUL_QP_SIZE(n) bytes, BITCOS_CLMUL_QP_BLOCK per 256-block and 4.
#define BITCOS_CLMUL_QP_BLOCK (BITCOS_QK_K + 32)
#define BITCOS_CLMUL_QP_SIZE(n) ((size_t) (n) / BITCOS_QK_K * (BITCOS_CLMUL_QP_BLOCK + 4))
void bitcos_q8_K_perm_clmul(int n, int8_t * qp, const void * y);
void bitcos_vec_dot_q8_K_avx2_clmul(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                    const uint16_t * d16, float d32, const void * y, const int8_t * qp);

void bitcos_vec_dot_q8_K_avx2_nopdep_tq2(int n, float * s, const uint8_t * bitmap, const uint8_t * signs, const uint16_t * d16, float d32, const void * y);

int bitcos_have_avx2_tq2(void);
int bitcos_have_avx2_nopdep_tq2(void);
int bitcos_have_avx512_tq2(void);
int bitcos_have_avx2_clmul(void);

#ifdef __cplusplus
}
#endif
