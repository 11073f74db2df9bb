//go:build cgo

// kernels/c sha256: 045dfb2b439df339a9c9807623dc5976dfbd4e8161c50bf9d648d022374c592b
// The scalar build of the converted weights' one-column kernel (baseline
// ISA, as this package's generic kernels): the reference its AVX-512 VNNI
// build (../ckern512/bitcos_tq2_0_vnni.c) is held to, with the Go one.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2_0_vnni.c"
