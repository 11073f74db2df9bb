//go:build cgo

// kernels/c sha256: 06271d6154358c61947f39ec13cec6b1e08905d231dce478087e5b91aa28b233
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
