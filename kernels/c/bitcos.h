// BITCOS x Q8_K dot products: one output row x one activation column.
//
// This folder is the single source of truth for the BITCOS CPU kernels of
// gguf-bitcos. The files are written to be copied into the llama.cpp patch
// series (ggml-cpu), so they use ggml's style and depend on nothing beyond
// <stdint.h>, <string.h> and <immintrin.h>. The Go reference
// (kernels.VecDotQ8K) and the cgo tests in ../ check every variant against
// each other, bit for bit.
//
// Row layout (docs/FORMAT.md): a presence bitmap of n/8 bytes (weight j is bit
// j%8 of byte j/8), and a sign stream holding one bit per non-zero weight, in
// element order, LSB first, 1 = negative. Weight j is
//     t_j = 0 if its bitmap bit is clear, else (sign bit k ? -1 : +1)
// where k is the number of set bitmap bits before j.
//
// Kernel contract, n a multiple of QK_K = 256:
//   bitmap: the row's n/8 bytes
//   signs : the row's sign stream; up to 8 bytes past the row's last sign byte
//           may be read (the tensor ends with 8 zero bytes, FORMAT.md)
//   d16   : the row's fp16 scales, one per 256 weights, or NULL
//   d32   : the per-tensor scale, used when d16 == NULL
//   y     : n/256 block_q8_K of the activation column
//
// Numerics of the exact order, the float order of
// ggml_vec_dot_tq2_0_q8_K_generic (bit-exact with it for the same ternary
// values and scales, evaluated without FMA contraction); the TQ2_0-order
// kernels follow other orders, see below and bitcos_tq2fast.h:
//   sumf = 0.0f
//   for each 256-block b, in order:
//       sumi_b = exact int32 sum over j of t_j * y[b].qs[j]
//       d      = y[b].d * fp16_to_fp32(d16[b])      (or y[b].d * d32)
//       sumf   = sumf + (float)sumi_b * d           (a rounded multiply, then
//                                                    a rounded add: no FMA)
//   *s = sumf
// The multiply and the add are kept apart by BITCOS_FP_BARRIER (an empty asm
// on GCC/Clang), so the order holds whatever -ffp-contract says (-mavx512f
// and -march=native enable FMA); the builds here also compile with
// -ffp-contract=off (bench/run.sh) or its pragma (the cgo shims in
// ../internal). Blocks with a zero scale add exactly (+/-)0, as in the TQ
// kernels.
//
// Activation range: the SIMD kernels negate int8 activations, which is exact
// for -127..127, the range quantize_row_q8_K produces (|qs| <= 127 by
// construction: iscale = -127/max). An activation of -128 under a negative
// weight would read as -128 instead of +128 there; the scalar kernels are
// exact for every int8.
//
// Files (a file whose ISA is not enabled compiles to a call to the scalar
// kernel of its float order, and its bitcos_have_* returns 0):
//   bitcos_generic.c  the exact order, scalar C, any CPU: what the default
//                     runs where this build's ggml TQ2_0 kernel is the
//                     generic one (bitcos_select.h), and the reference of
//                     the exact order
//   bitcos_dequant.c  the decode to float of the Go harness (llama.cpp's is
//                     ggml_bitcos_to_float, the same products), any CPU
//   bitcos_codes.c    batches: a row decoded once to TQ2_0 codes, then dotted
//                     with each column (TQ2_0 float order); AVX2 or scalar
//
// In the float order of ggml's x86 TQ2_0 kernel instead (bit-identical to
// TQ2_0 files on x86 llama.cpp): bitcos_tq2order.c, the scalar definition of
// that order (declared below), and the fast kernels of bitcos_tq2fast.h
// (avx512_tq2, avx2_clmul, avx2_tq2, avx2_nopdep_tq2), which fall back to
// tq2order. In the float order of ggml's NEON TQ2_0 kernel:
// bitcos_neon_tq2.h (neon_tq2, and the scalar tq2order_arm). Which one runs:
// the build's (llama.cpp's arch/<isa>/quants.c, by the macros of
// bitcos_tq2fast.h); bitcos_select.h states the rule for advise and the
// layout choice. (The exact-order SIMD kernels avx2, avx2_nopdep and
// avx512 were retired: no default ran them; kernels/README.md.)

#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BITCOS_QK_K 256

// Layout-identical to ggml's block_q8_K (ggml-common.h); inside ggml use that.
typedef struct {
    float   d;                     // delta
    int8_t  qs[BITCOS_QK_K];       // quants
    int16_t bsums[BITCOS_QK_K/16]; // sum of quants in groups of 16
} bitcos_block_q8_K;

#ifdef __cplusplus
static_assert(sizeof(bitcos_block_q8_K) == 4 + BITCOS_QK_K + BITCOS_QK_K/8, "wrong bitcos_block_q8_K size");
#else
_Static_assert(sizeof(bitcos_block_q8_K) == 4 + BITCOS_QK_K + BITCOS_QK_K/8, "wrong bitcos_block_q8_K size");
#endif

// The float order a kernel computes in (kernels/README.md writes each down).
enum bitcos_order {
    BITCOS_ORDER_EXACT,    // per block (float)sumi * d, then + : ggml's generic TQ2_0 kernel
    BITCOS_ORDER_TQ2_X86,  // 8 lanes, FMA per lane, hsum_float_8: ggml's x86 (AVX2) TQ2_0 kernel
    BITCOS_ORDER_TQ2_ARM,  // per block fma(d, (float)sumi, sumf): ggml's NEON TQ2_0 kernel
};

// The float order of the TQ2_0 kernel (ggml_vec_dot_tq2_0_q8_K) that ggml
// compiles in the translation unit that calls this, from the same macros
// ggml's kernels test: its x86 kernel has its AVX2 code, in the x86 order,
// whenever the build has __AVX2__ (else its generic code); its ARM kernel
// its NEON code whenever __ARM_NEON; every other build runs the generic
// kernel, in the exact order. Call it where ggml-cpu's flags apply: the
// core picks the kernels of that order by it (bitcos-cpu.c), and
// bitcos_select.h's features take it as tq2_order. Gap: with the RISC-V
// vector extension (__riscv_v) ggml's TQ2_0 kernel has an order of its own,
// which no BITCOS kernel computes: this returns the exact order there (the
// generic kernel runs), and a BITCOS file repacked from TQ2_0 is close to,
// not bit-identical with, its source on such builds.
static inline int bitcos_build_tq2_order(void) {
#if defined(__AVX2__)
    return BITCOS_ORDER_TQ2_X86;
#elif defined(__ARM_NEON)
    return BITCOS_ORDER_TQ2_ARM;
#else
    return BITCOS_ORDER_EXACT;
#endif
}

typedef void (*bitcos_vec_dot_t)(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                 const uint16_t * d16, float d32, const void * y);

void bitcos_vec_dot_q8_K_generic    (int n, float * s, const uint8_t * bitmap, const uint8_t * signs, const uint16_t * d16, float d32, const void * y);
// Parity mode: the float order of ggml's x86 TQ2_0 kernel (bitcos_tq2order.c).
void bitcos_vec_dot_q8_K_tq2order   (int n, float * s, const uint8_t * bitmap, const uint8_t * signs, const uint16_t * d16, float d32, const void * y);

// Decode one row to float: y[j] = (float) t_j * scale of j's 256-block
// (bitcos_dequant.c). Reads exactly the row's sign bytes.
void bitcos_dequantize_row(int n, float * y, const uint8_t * bitmap, const uint8_t * signs, const uint16_t * d16, float d32);

// Batches (bitcos_codes.c): decode a row once into n TQ2_0 code bytes
// c = t + 1, then dot the codes with each column, in the float order of
// bitcos_vec_dot_q8_K_tq2order (bit-identical to it).
void bitcos_row_codes(int n, uint8_t * c, const uint8_t * bitmap, const uint8_t * signs);
void bitcos_codes_vec_dot_q8_K(int n, float * s, const uint8_t * c, const uint16_t * d16, float d32, const void * y);
// Four columns y[0..3] at once, results s[0..3], each bit-identical to the above.
void bitcos_codes_vec_dot_q8_K_x4(int n, float * s, const uint8_t * c, const uint16_t * d16, float d32, const void * const * y);
int bitcos_have_codes_avx2(void);

#ifdef __cplusplus
}
#endif
