//go:build cgo

// The AVX2 build of bitcos_q8_K.c, under other names, with GCC's default FMA
// contraction (as ggml compiles it: the reference's rounded multiply must
// hold there too).
#pragma GCC target("avx2,fma")
#define bitcos_quantize_row_q8_K bitcos_quantize_row_q8_K_avx2
#define bitcos_quantize_q8_K_simd bitcos_quantize_q8_K_simd_avx2
#include "../../c/bitcos_q8_K.c"
