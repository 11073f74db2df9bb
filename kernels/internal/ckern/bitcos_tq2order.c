//go:build cgo

// kernels/c sha256: 546ed34dc6b6e1a8fd47b300bb10661f00e1042eec7118fc8bab531ddafcac75
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
