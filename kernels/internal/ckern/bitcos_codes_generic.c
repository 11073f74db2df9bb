//go:build cgo

// kernels/c sha256: ed4bc21b6600bb92b61a0ef0db8409b329f0ea2b0a86e6f132e8ff112dc53c5a
// The scalar build of bitcos_codes.c, under other names (baseline ISA).
#pragma GCC optimize("fp-contract=off")
#define bitcos_row_codes bitcos_row_codes_generic
#define bitcos_codes_vec_dot_q8_K bitcos_codes_vec_dot_q8_K_generic
#define bitcos_have_codes_avx2 bitcos_have_codes_avx2_generic
#define bitcos_codes_vec_dot_q8_K_x4 bitcos_codes_vec_dot_q8_K_x4_generic
#include "../../c/bitcos_codes.c"
