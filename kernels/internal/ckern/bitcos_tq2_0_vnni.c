//go:build cgo

// kernels/c sha256: 24bd8a04aa3c1a23da0930e5b51487d8da41ce9ea45d4be4e99e2c2fa1ac29f0
// The scalar build of the converted weights' one-column kernel (baseline
// ISA, as this package's generic kernels): the reference its AVX-512 VNNI
// build (../ckern512/bitcos_tq2_0_vnni.c) is held to, with the Go one.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2_0_vnni.c"
