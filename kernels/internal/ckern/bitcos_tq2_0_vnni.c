//go:build cgo

// kernels/c sha256: 5bfa9c5afbb5c0138abe81a00365c7e02b0bc7a4224dec0bd2d765f4ae41745f
// The scalar build of the converted weights' one-column kernel (baseline
// ISA, as this package's generic kernels): the reference its AVX-512 VNNI
// build (../ckern512/bitcos_tq2_0_vnni.c) is held to, with the Go one.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2_0_vnni.c"
