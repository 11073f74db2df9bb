//go:build cgo

// kernels/c sha256: 7b493ee758089861a1bea961abd4127911e0e5e744460af945758c53579c306a
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt")
#include "../../c/bitcos_avx2.c"
