//go:build cgo

// kernels/c sha256: 4384364358d6ee68d38623dd9eed93cc0f6272e087ab22c523217446393ab729
// bitcos_gemm.c with AVX-512 F+BW (-mavx512f -mavx512bw, ckern512.go) and
// without VNNI (its vpmaddubsw path), under other names.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt,fma")
#define bitcos_gemm_isa bitcos_gemm_isa_avx512
#define bitcos_gemm_panel bitcos_gemm_panel_avx512
#define bitcos_gemm_q8_K bitcos_gemm_q8_K_avx512
#include "../../c/bitcos_gemm.c"
