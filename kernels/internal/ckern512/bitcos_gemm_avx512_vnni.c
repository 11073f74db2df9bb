//go:build cgo

// kernels/c sha256: ed4bc21b6600bb92b61a0ef0db8409b329f0ea2b0a86e6f132e8ff112dc53c5a
// bitcos_gemm.c with AVX-512 F+BW and AVX512-VNNI (its vpdpbusd path),
// under other names.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt,fma,avx512vl,avx512vnni")
#define bitcos_gemm_isa bitcos_gemm_isa_avx512_vnni
#define bitcos_gemm_panel bitcos_gemm_panel_avx512_vnni
#define bitcos_gemm_q8_K bitcos_gemm_q8_K_avx512_vnni
#include "../../c/bitcos_gemm.c"
