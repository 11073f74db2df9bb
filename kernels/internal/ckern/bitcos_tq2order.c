//go:build cgo

// kernels/c sha256: 13eea6d077bb6d945205fce0f6c0e53a5c66a87c41bad7e649d70c2783006a56
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
