//go:build cgo

// The scalar build of the converted weights' one-column kernel (baseline
// ISA, as this package's generic kernels): the reference its AVX-512 VNNI
// build (../ckern512/bitcos_tq2_0_vnni.c) is held to, with the Go one.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2_0_vnni.c"
