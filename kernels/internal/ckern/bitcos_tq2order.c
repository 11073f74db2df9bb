//go:build cgo

// kernels/c sha256: 54752ff79f7518450ceebe1d9074834f200c00801d61b39aa069f862eed92be9
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
