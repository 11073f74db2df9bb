//go:build cgo

// kernels/c sha256: 502b2de5e5a808eff59ba82382b8d29f2bddfd0936ce9b32b0508de973173046
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
