//go:build cgo

// kernels/c sha256: 0ac6d7c0d7bb2d5b5ae299e86829981c7d072aff3d82694cc6777be4f41b8cde
// bitcos_avx2_clmul.c once more with PCLMULQDQ only (two xmm clmuls per
// register), under other names, so that the tests cover both paths.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma,pclmul")
#define bitcos_vec_dot_q8_K_avx2_clmul bitcos_vec_dot_q8_K_avx2_clmul_xmm
#define bitcos_q8_K_perm_clmul bitcos_q8_K_perm_clmul_xmm
#define bitcos_have_avx2_clmul bitcos_have_avx2_clmul_xmm
#include "../../c/bitcos_avx2_clmul.c"
