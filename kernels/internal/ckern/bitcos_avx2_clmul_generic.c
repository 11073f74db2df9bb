//go:build cgo

// kernels/c sha256: ef00681315a8599867cb1f65e97b1ef0f3cc01a641b3b83a58f8acf5365f4203
// bitcos_avx2_clmul.c for the baseline ISA, under other names: its portable
// fallback (the scalar permutation, and the kernel as a call to tq2order).
#pragma GCC optimize("fp-contract=off")
#define bitcos_vec_dot_q8_K_avx2_clmul bitcos_vec_dot_q8_K_avx2_clmul_generic
#define bitcos_q8_K_perm_clmul bitcos_q8_K_perm_clmul_generic
#define bitcos_have_avx2_clmul bitcos_have_avx2_clmul_generic
#include "../../c/bitcos_avx2_clmul.c"
