//go:build cgo

// kernels/c sha256: 2f24ed9385930c432dcaa6ee66a43f16191b6d75e12de3bab02cd5c1bcea8d0a
// The scalar build of the converted weights' one-column kernel (baseline
// ISA, as this package's generic kernels): the reference its AVX-512 VNNI
// build (../ckern512/bitcos_tq2_0_vnni.c) is held to, with the Go one.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2_0_vnni.c"
