//go:build cgo

// kernels/c sha256: af038f51cf5a28630afe4f1e32733d4f5b564517cd926c635cde53a5cab6a52a
// The scalar build of bitcos_gemm.c, under other names (baseline ISA).
#pragma GCC optimize("fp-contract=off")
#define bitcos_gemm_isa bitcos_gemm_isa_generic
#define bitcos_gemm_panel bitcos_gemm_panel_generic
#define bitcos_gemm_panel_nopdep bitcos_gemm_panel_nopdep_generic
#define bitcos_gemm_q8_K bitcos_gemm_q8_K_generic
#include "../../c/bitcos_gemm.c"
