//go:build cgo

// kernels/c sha256: fba95bae11117b44f69dad5836f4ea32bfc5cb6d847c458b8c27a0cc5eb5880c
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
