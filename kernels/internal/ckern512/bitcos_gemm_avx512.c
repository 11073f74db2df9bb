//go:build cgo

// kernels/c sha256: ed4bc21b6600bb92b61a0ef0db8409b329f0ea2b0a86e6f132e8ff112dc53c5a
// bitcos_gemm.c with AVX-512 F+BW (-mavx512f -mavx512bw, ckern512.go) and
// without VNNI (its vpmaddubsw path), under other names.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt,fma")
#define bitcos_gemm_isa bitcos_gemm_isa_avx512
#define bitcos_gemm_panel bitcos_gemm_panel_avx512
#define bitcos_gemm_q8_K bitcos_gemm_q8_K_avx512
#include "../../c/bitcos_gemm.c"
