//go:build cgo

// kernels/c sha256: 3c863a1905cbbafdd4a5b5e8ff3be8df69e54f16130aecc567ba85bf8e266277
// The scalar build of the converted weights' one-column kernel (baseline
// ISA, as this package's generic kernels): the reference its AVX-512 VNNI
// build (../ckern512/bitcos_tq2_0_vnni.c) is held to, with the Go one.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2_0_vnni.c"
