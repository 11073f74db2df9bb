//go:build cgo

// kernels/c sha256: 4384364358d6ee68d38623dd9eed93cc0f6272e087ab22c523217446393ab729
// The scalar build of bitcos_gemm.c, under other names (baseline ISA).
#pragma GCC optimize("fp-contract=off")
#define bitcos_gemm_isa bitcos_gemm_isa_generic
#define bitcos_gemm_panel bitcos_gemm_panel_generic
#define bitcos_gemm_q8_K bitcos_gemm_q8_K_generic
#include "../../c/bitcos_gemm.c"
