//go:build cgo

// kernels/c sha256: 71e1a74352122a0c7e72076fc2df79fe7aa746a6e05ac4150b6508512d194711
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
