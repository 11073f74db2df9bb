//go:build cgo

// bitcos_avx2_clmul.c for the baseline ISA, under other names: its portable
// fallback (the scalar permutation, and the kernel as a call to tq2order).
#pragma GCC optimize("fp-contract=off")
#define bitcos_vec_dot_q8_K_avx2_clmul bitcos_vec_dot_q8_K_avx2_clmul_generic
#define bitcos_q8_K_perm_clmul bitcos_q8_K_perm_clmul_generic
#define bitcos_have_avx2_clmul bitcos_have_avx2_clmul_generic
#include "../../c/bitcos_avx2_clmul.c"
