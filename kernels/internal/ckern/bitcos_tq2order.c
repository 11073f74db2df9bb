//go:build cgo

// kernels/c sha256: e3340b127044813b9d81f1efe6899403f0fe599148fab69516e26a2b774d4e4e
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
