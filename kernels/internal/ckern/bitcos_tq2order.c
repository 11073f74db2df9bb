//go:build cgo

// kernels/c sha256: b5357bb672d558af5f33414a972c3103ade7f422edd0f81abad25dcd194f9903
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
