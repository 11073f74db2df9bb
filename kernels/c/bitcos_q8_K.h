// Activations into Q8_K blocks for the batched kernels (prompt processing):
// bit for bit what ggml's quantize_row_q8_K_ref writes, in AVX2 where the
// build has it. llama.cpp's x86 quantize_row_q8_K calls the reference (a
// scalar loop: 5% of a 2B model's prompt time at one thread on AMD Zen 5
// once the BITCOS products were fast); patch 0012 makes it call this.
//
// The reference's steps, per block of 256: amax = the largest |x| and max =
// the first x of that magnitude; an all-zero block gets d = 0 and zero
// quants (its bsums left as they were, as the reference leaves them);
// otherwise iscale = -127/max, q = min(127, nearest_int(iscale * x)) (one
// rounded multiply; nearest_int rounds half to even, as vcvtps2dq does under
// the default MXCSR), bsums the exact sums of 16 quants, d = 1/iscale. The
// AVX2 path hands a block with a NaN or an infinity, or whose iscale
// overflows, to the reference's own loops: equal to the reference for every
// input.

#pragma once

#include <stdint.h>

#include "bitcos.h"

#ifdef __cplusplus
extern "C" {
#endif

void bitcos_quantize_row_q8_K(const float * x, bitcos_block_q8_K * y, int64_t k);

// 1 when this translation unit compiled the AVX2 path, 0 for the scalar one.
int bitcos_quantize_q8_K_simd(void);

#ifdef __cplusplus
}
#endif
