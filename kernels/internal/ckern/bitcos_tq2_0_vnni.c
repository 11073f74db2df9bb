//go:build cgo

// kernels/c sha256: e1cb61e8656b179acaacba6afc6a55c7b47c2aacc4f6ea7da5bd4a8e29943122
// The scalar build of the converted weights' one-column kernel (baseline
// ISA, as this package's generic kernels): the reference its AVX-512 VNNI
// build (../ckern512/bitcos_tq2_0_vnni.c) is held to, with the Go one.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2_0_vnni.c"
