//go:build cgo

// The AVX2 + AVX-VNNI build of bitcos_gemm.c (VEX vpdpbusd ymm; target
// pragma, GCC only), under other names.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma,avxvnni")
#define bitcos_gemm_isa bitcos_gemm_isa_avx2_vnni
#define bitcos_gemm_panel bitcos_gemm_panel_avx2_vnni
#define bitcos_gemm_panel_nopdep bitcos_gemm_panel_nopdep_avx2_vnni
#define bitcos_gemm_panel_tq2_0 bitcos_gemm_panel_tq2_0_avx2_vnni
#define bitcos_gemm_q8_K bitcos_gemm_q8_K_avx2_vnni
#include "../../c/bitcos_gemm.c"
