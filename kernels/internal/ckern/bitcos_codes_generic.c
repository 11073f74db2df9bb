//go:build cgo

// kernels/c sha256: bbe667e08f1761d103061894d4f1a97e04c0cae1883d70d6d1f9e7d47a144856
// The scalar build of bitcos_codes.c, under other names (baseline ISA).
#pragma GCC optimize("fp-contract=off")
#define bitcos_row_codes bitcos_row_codes_generic
#define bitcos_codes_vec_dot_q8_K bitcos_codes_vec_dot_q8_K_generic
#define bitcos_have_codes_avx2 bitcos_have_codes_avx2_generic
#define bitcos_codes_vec_dot_q8_K_x4 bitcos_codes_vec_dot_q8_K_x4_generic
#include "../../c/bitcos_codes.c"
