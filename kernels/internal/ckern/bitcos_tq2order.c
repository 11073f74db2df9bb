//go:build cgo

// kernels/c sha256: 3811aea4d5699c4739ccd03f2ee9bc17237e9656e477240bc7a94809775c9d8a
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
