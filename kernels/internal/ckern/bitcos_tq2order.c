//go:build cgo

// kernels/c sha256: b8127b7f37d195fee0c3a1ba8116ef0446f9f55c65760721825332ae2f50ddb6
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
