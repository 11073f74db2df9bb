//go:build cgo

// kernels/c sha256: cad1cf1fb0806e3937e61d52f37753861dc049adc4b1396f82fa1a4086ed6861
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
