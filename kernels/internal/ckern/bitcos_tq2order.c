//go:build cgo

// kernels/c sha256: ed4bc21b6600bb92b61a0ef0db8409b329f0ea2b0a86e6f132e8ff112dc53c5a
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
