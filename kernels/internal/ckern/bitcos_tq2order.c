//go:build cgo

// kernels/c sha256: 4bf9fbd62f692a90743074818c7664acb624c51c9328b68367445114197ceb14
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
