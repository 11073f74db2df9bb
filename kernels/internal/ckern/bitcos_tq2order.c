//go:build cgo

// kernels/c sha256: b632870ee0b6b34c65444f3672ee37819841cd4dcb1777891959797732e0e211
// One translation unit per kernel file (see ckern.go). fmaf is explicit in
// this kernel; fp-contract=off keeps the other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_tq2order.c"
