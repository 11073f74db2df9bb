//go:build cgo

// kernels/c sha256: f2b7c1320a2ab6570f10d401882df0b3c87f163aa240212849fe01d0727703fe
// The scalar build of the converted weights' one-column kernel (baseline
// ISA, as this package's generic kernels): the reference its AVX-512 VNNI
// build (../ckern512/bitcos_tq2_0_vnni.c) is held to, with the Go one.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2_0_vnni.c"
