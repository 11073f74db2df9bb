//go:build cgo

// kernels/c sha256: a2a3fefa1bef8544d3414b6063b8e0418a6351a7ef7c43205bfe6fc03f53fc53
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
