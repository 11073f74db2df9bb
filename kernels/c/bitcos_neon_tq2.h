// BITCOS x Q8_K in the float order of ggml's NEON TQ2_0 kernel
// (bitcos_neon_tq2.c says what it is), so that a BITCOS file repacked from
// TQ2_0 gives bit-identical dot products to its source on aarch64 builds of
// llama.cpp. Go reference: kernels.VecDotQ8KTQ2ARMOrder.

#pragma once

#include "bitcos.h"

// How the NEON kernels compile here (bitcos_neon_tq2.c, bitcos_neon_tq2_0.c):
// 2 NEON with sdot (dotprod), 1 NEON (smlal), 0 the scalar order elsewhere.
#if defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#if defined(__ARM_FEATURE_DOTPROD)
#define BITCOS_NEON_TQ2_SIMD 2
#else
#define BITCOS_NEON_TQ2_SIMD 1
#endif
#else
#define BITCOS_NEON_TQ2_SIMD 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

// Scalar, any CPU: the reference of the ARM order in C.
void bitcos_vec_dot_q8_K_tq2order_arm(int n, float * s, const uint8_t * bitmap, const uint8_t * signs, const uint16_t * d16, float d32, const void * y);
// NEON (with sdot under __ARM_FEATURE_DOTPROD); elsewhere a call to the above.
void bitcos_vec_dot_q8_K_neon_tq2(int n, float * s, const uint8_t * bitmap, const uint8_t * signs, const uint16_t * d16, float d32, const void * y);
// Batches: TQ2_0 codes c = t + 1 (bitcos_row_codes) dotted with one column,
// or four (s[0..3]), in the same order: bit-identical to the two above.
void bitcos_codes_vec_dot_q8_K_arm(int n, float * s, const uint8_t * c, const uint16_t * d16, float d32, const void * y);
void bitcos_codes_vec_dot_q8_K_arm_x4(int n, float * s, const uint8_t * c, const uint16_t * d16, float d32, const void * const * y);
// How bitcos_neon_tq2.c was compiled: 0 scalar, 1 NEON, 2 NEON with sdot
// (BITCOS_NEON_TQ2_SIMD above).
int bitcos_have_neon_tq2(void);

#ifdef __cplusplus
}
#endif
