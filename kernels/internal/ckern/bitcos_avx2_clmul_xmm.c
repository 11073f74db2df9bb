//go:build cgo

// bitcos_avx2_clmul.c once more with PCLMULQDQ only (two xmm clmuls per
// register), under other names, so that the tests cover both paths.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma,pclmul")
#define bitcos_vec_dot_q8_K_avx2_clmul bitcos_vec_dot_q8_K_avx2_clmul_xmm
#define bitcos_q8_K_perm_clmul bitcos_q8_K_perm_clmul_xmm
#define bitcos_have_avx2_clmul bitcos_have_avx2_clmul_xmm
#include "../../c/bitcos_avx2_clmul.c"
