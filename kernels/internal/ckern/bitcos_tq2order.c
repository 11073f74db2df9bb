//go:build cgo

// kernels/c sha256: 6432fd8f9e9294f86f9f463dc10ea2322cc9c66c642a09f54758d92f9de62522
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
