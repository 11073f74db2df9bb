//go:build cgo

// kernels/c sha256: 293ef58fce6670cc59240253c94bb96959bffb60146fc2b483acea331ea794c6
// The scalar build of bitcos_gemm.c, under other names (baseline ISA).
#pragma GCC optimize("fp-contract=off")
#define bitcos_gemm_isa bitcos_gemm_isa_generic
#define bitcos_gemm_panel bitcos_gemm_panel_generic
#define bitcos_gemm_panel_nopdep bitcos_gemm_panel_nopdep_generic
#define bitcos_gemm_q8_K bitcos_gemm_q8_K_generic
#include "../../c/bitcos_gemm.c"
