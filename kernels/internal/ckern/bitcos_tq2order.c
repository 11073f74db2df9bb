//go:build cgo

// kernels/c sha256: 68aeb0c4bcb7d35817f19577f7491c12c3b07e8f6930b66b3d9c025cded2c465
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
