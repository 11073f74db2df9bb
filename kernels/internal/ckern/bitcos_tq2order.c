//go:build cgo

// kernels/c sha256: a0f0caec83fbdebfa4e674f57a2deda281dc1bc28784b783f00431d6d132f3d8
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
