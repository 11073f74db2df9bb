//go:build cgo

// kernels/c sha256: 0ac6d7c0d7bb2d5b5ae299e86829981c7d072aff3d82694cc6777be4f41b8cde
// The scalar build of bitcos_gemm.c, under other names (baseline ISA).
#pragma GCC optimize("fp-contract=off")
#define bitcos_gemm_isa bitcos_gemm_isa_generic
#define bitcos_gemm_panel bitcos_gemm_panel_generic
#define bitcos_gemm_panel_nopdep bitcos_gemm_panel_nopdep_generic
#define bitcos_gemm_q8_K bitcos_gemm_q8_K_generic
#include "../../c/bitcos_gemm.c"
