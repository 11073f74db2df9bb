//go:build cgo

// kernels/c sha256: 7b493ee758089861a1bea961abd4127911e0e5e744460af945758c53579c306a
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
