//go:build cgo

// kernels/c sha256: dd669f19ac99a1aae8dfb5c545c1bef9b07341889b8055a2cebf92c690b0d07a
// The scalar build of the converted weights' one-column kernel (baseline
// ISA, as this package's generic kernels): the reference its AVX-512 VNNI
// build (../ckern512/bitcos_tq2_0_vnni.c) is held to, with the Go one.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2_0_vnni.c"
