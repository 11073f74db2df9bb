//go:build cgo

// kernels/c sha256: af038f51cf5a28630afe4f1e32733d4f5b564517cd926c635cde53a5cab6a52a
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
