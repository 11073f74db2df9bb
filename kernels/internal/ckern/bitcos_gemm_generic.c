//go:build cgo

// kernels/c sha256: 6824e2bb6b49dac7ec166dcc7582306483925deb411c3eb2c7f46512fa0a188a
// The scalar build of bitcos_gemm.c, under other names (baseline ISA).
#pragma GCC optimize("fp-contract=off")
#define bitcos_gemm_isa bitcos_gemm_isa_generic
#define bitcos_gemm_panel bitcos_gemm_panel_generic
#define bitcos_gemm_panel_nopdep bitcos_gemm_panel_nopdep_generic
#define bitcos_gemm_q8_K bitcos_gemm_q8_K_generic
#include "../../c/bitcos_gemm.c"
