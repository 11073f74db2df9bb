//go:build cgo

// The AVX2 + AVX-VNNI build of the converted weights' one-column kernel (VEX
// vpdpbusd ymm; target pragma, GCC only), under other names.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,f16c,fma,avxvnni")
#define bitcos_have_tq2_0_avx2 bitcos_have_tq2_0_avx2_vnni
#define bitcos_tq2_0_vec_dot_q8_K_avx2 bitcos_tq2_0_vec_dot_q8_K_avx2_vnni
#define bitcos_tq2_0_f32_vec_dot_q8_K_avx2 bitcos_tq2_0_f32_vec_dot_q8_K_avx2_vnni
#include "../../c/bitcos_tq2_0_avx2.c"
