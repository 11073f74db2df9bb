//go:build cgo

// kernels/c sha256: e8f2b7b2f79414225477c1d40cede804e3459d1b21e97afd20c1f072a6f8ff23
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
