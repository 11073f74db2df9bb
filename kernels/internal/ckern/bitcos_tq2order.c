//go:build cgo

// kernels/c sha256: 7310b720b050f6580c0aff6b8edf5f1bea15cf3229c24ca93b8946591d9a068f
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
