//go:build cgo

// kernels/c sha256: 72dfa6550d2ccf0e23070cf8d9e5f1649b3eba5579b8dab5b786ae907911dbcd
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
