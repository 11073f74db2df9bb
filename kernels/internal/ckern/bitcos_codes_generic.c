//go:build cgo

// kernels/c sha256: cad1cf1fb0806e3937e61d52f37753861dc049adc4b1396f82fa1a4086ed6861
// The scalar build of bitcos_codes.c, under other names (baseline ISA).
#pragma GCC optimize("fp-contract=off")
#define bitcos_row_codes bitcos_row_codes_generic
#define bitcos_codes_vec_dot_q8_K bitcos_codes_vec_dot_q8_K_generic
#define bitcos_have_codes_avx2 bitcos_have_codes_avx2_generic
#define bitcos_codes_to_tq2_0 bitcos_codes_to_tq2_0_generic
#include "../../c/bitcos_codes.c"
