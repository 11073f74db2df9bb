//go:build cgo

// kernels/c sha256: e8f2b7b2f79414225477c1d40cede804e3459d1b21e97afd20c1f072a6f8ff23
// bitcos_avx2_clmul.c once more with PCLMULQDQ only (two xmm clmuls per
// register), under other names, so that the tests cover both paths.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma,pclmul")
#define bitcos_vec_dot_q8_K_avx2_clmul bitcos_vec_dot_q8_K_avx2_clmul_xmm
#define bitcos_q8_K_perm_clmul bitcos_q8_K_perm_clmul_xmm
#define bitcos_have_avx2_clmul bitcos_have_avx2_clmul_xmm
#include "../../c/bitcos_avx2_clmul.c"
