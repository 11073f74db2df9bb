//go:build cgo

// kernels/c sha256: bc7390992a0995170f5b0ae093409a366f2ccbe1740b9748ebe05966ded6ae63
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
