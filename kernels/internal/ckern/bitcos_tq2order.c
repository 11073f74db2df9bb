//go:build cgo

// kernels/c sha256: 21849d4b9a9400e58112c10a780f46f938ceccaccd4c6eae8f9425bd2c221223
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
