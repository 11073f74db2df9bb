//go:build cgo

// kernels/c sha256: b632870ee0b6b34c65444f3672ee37819841cd4dcb1777891959797732e0e211
// The scalar build of bitcos_codes.c, under other names (baseline ISA).
#pragma GCC optimize("fp-contract=off")
#define bitcos_row_codes bitcos_row_codes_generic
#define bitcos_codes_vec_dot_q8_K bitcos_codes_vec_dot_q8_K_generic
#define bitcos_have_codes_avx2 bitcos_have_codes_avx2_generic
#include "../../c/bitcos_codes.c"
