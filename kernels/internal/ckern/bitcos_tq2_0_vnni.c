//go:build cgo

// kernels/c sha256: 4bf9fbd62f692a90743074818c7664acb624c51c9328b68367445114197ceb14
// The scalar build of the converted weights' one-column kernel (baseline
// ISA, as this package's generic kernels): the reference its AVX-512 VNNI
// build (../ckern512/bitcos_tq2_0_vnni.c) is held to, with the Go one.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2_0_vnni.c"
