//go:build cgo

// kernels/c sha256: 3c863a1905cbbafdd4a5b5e8ff3be8df69e54f16130aecc567ba85bf8e266277
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
