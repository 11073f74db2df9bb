//go:build cgo

// kernels/c sha256: 0ac6d7c0d7bb2d5b5ae299e86829981c7d072aff3d82694cc6777be4f41b8cde
// bitcos_avx2_clmul.c for the baseline ISA, under other names: its portable
// fallback (the scalar permutation, and the kernel as a call to tq2order).
#pragma GCC optimize("fp-contract=off")
#define bitcos_vec_dot_q8_K_avx2_clmul bitcos_vec_dot_q8_K_avx2_clmul_generic
#define bitcos_q8_K_perm_clmul bitcos_q8_K_perm_clmul_generic
#define bitcos_have_avx2_clmul bitcos_have_avx2_clmul_generic
#include "../../c/bitcos_avx2_clmul.c"
