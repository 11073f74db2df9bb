//go:build cgo

// kernels/c sha256: 293ef58fce6670cc59240253c94bb96959bffb60146fc2b483acea331ea794c6
// The scalar build of the converted weights' one-column kernel (baseline
// ISA, as this package's generic kernels): the reference its AVX-512 VNNI
// build (../ckern512/bitcos_tq2_0_vnni.c) is held to, with the Go one.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2_0_vnni.c"
