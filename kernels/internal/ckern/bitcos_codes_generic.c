//go:build cgo

// kernels/c sha256: 8fd8352b12c26c0bdd49b9b3eee88b82ea3b5ce9e927fe6e46d3b1e44f040d37
// The scalar build of bitcos_codes.c, under other names (baseline ISA).
#pragma GCC optimize("fp-contract=off")
#define bitcos_row_codes bitcos_row_codes_generic
#define bitcos_codes_vec_dot_q8_K bitcos_codes_vec_dot_q8_K_generic
#define bitcos_have_codes_avx2 bitcos_have_codes_avx2_generic
#define bitcos_codes_vec_dot_q8_K_x4 bitcos_codes_vec_dot_q8_K_x4_generic
#include "../../c/bitcos_codes.c"
