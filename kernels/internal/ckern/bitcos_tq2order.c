//go:build cgo

// kernels/c sha256: 71426b11bf59873a9e5d3bdb1c365483d75eb112ddf6650ddc70c02aa737da08
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
