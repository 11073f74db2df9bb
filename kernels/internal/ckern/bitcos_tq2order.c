//go:build cgo

// kernels/c sha256: da1023978da4c58399babb9ab80ce86e377f7a84914529a016aeef49c8e93703
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
