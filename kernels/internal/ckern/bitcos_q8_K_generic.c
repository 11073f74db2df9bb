//go:build cgo

// The scalar build of bitcos_q8_K.c (baseline ISA), under other names.
#define bitcos_quantize_row_q8_K bitcos_quantize_row_q8_K_generic
#define bitcos_quantize_q8_K_simd bitcos_quantize_q8_K_simd_generic
#include "../../c/bitcos_q8_K.c"
