//go:build cgo

// kernels/c sha256: 24bd8a04aa3c1a23da0930e5b51487d8da41ce9ea45d4be4e99e2c2fa1ac29f0
// The scalar build of bitcos_gemm.c, under other names (baseline ISA).
#pragma GCC optimize("fp-contract=off")
#define bitcos_gemm_isa bitcos_gemm_isa_generic
#define bitcos_gemm_panel bitcos_gemm_panel_generic
#define bitcos_gemm_panel_nopdep bitcos_gemm_panel_nopdep_generic
#define bitcos_gemm_panel_tq2_0 bitcos_gemm_panel_tq2_0_generic
#define bitcos_gemm_q8_K bitcos_gemm_q8_K_generic
#include "../../c/bitcos_gemm.c"
