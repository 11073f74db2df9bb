//go:build cgo

// kernels/c sha256: ed4bc21b6600bb92b61a0ef0db8409b329f0ea2b0a86e6f132e8ff112dc53c5a
// The AVX2 + AVX-VNNI build of bitcos_gemm.c (VEX vpdpbusd ymm; target
// pragma, GCC only), under other names.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma,avxvnni")
#define bitcos_gemm_isa bitcos_gemm_isa_avx2_vnni
#define bitcos_gemm_panel bitcos_gemm_panel_avx2_vnni
#define bitcos_gemm_q8_K bitcos_gemm_q8_K_avx2_vnni
#include "../../c/bitcos_gemm.c"
