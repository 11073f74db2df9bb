// TQ2_0 x Q8_K dot products used as the yardstick in the BITCOS benchmarks
// and tests. Written for gguf-bitcos from the TQ2_0 layout (format/tq2_0.go), not
// copied from ggml; the numerics match ggml's as stated per function.
#pragma once
#include <stdint.h>

typedef struct {
    uint8_t  qs[64]; // element e: byte (e/128)*32 + e%32, bits 2*((e%128)/32), code t+1
    uint16_t d;      // fp16 scale
} tq2_block;

_Static_assert(sizeof(tq2_block) == 66, "wrong tq2_block size");

// Same float steps as ggml_vec_dot_tq2_0_q8_K_generic (and as BITCOS).
void tq2_vec_dot_q8_K_generic(int n, float * s, const tq2_block * x, const void * y);
// AVX2, ggml's structure: 16-bit pair sums, bsums correction, float vector
// accumulator and one horizontal float sum at the end (not bit-exact with
// generic: the lane order differs, as with ggml's AVX2 path).
void tq2_vec_dot_q8_K_avx2(int n, float * s, const tq2_block * x, const void * y);
// AVX2 with an exact int32 sum per block and the generic float steps
// (bit-exact with generic): what the exact BITCOS epilogue costs TQ2_0.
void tq2_vec_dot_q8_K_avx2_exact(int n, float * s, const tq2_block * x, const void * y);
// 1 when the two AVX2 ones were compiled as such, 0 when as calls to generic.
int tq2_have_avx2(void);
