//go:build cgo

// kernels/c sha256: 6f7ed6521a416696747b4f58c6bd166893fa75760dc93c3ff58a225a843a333e
// The AVX2 + BMI2 + FMA build of bitcos_gemm.c (vpmaddubsw; target pragma,
// GCC only), under other names.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#define bitcos_gemm_isa bitcos_gemm_isa_avx2
#define bitcos_gemm_panel bitcos_gemm_panel_avx2
#define bitcos_gemm_q8_K bitcos_gemm_q8_K_avx2
#include "../../c/bitcos_gemm.c"
