//go:build cgo

// kernels/c sha256: 4ace7b89689f457958330c59f93835d763f01d88ec0ac45321cbcec1adb4a148
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
