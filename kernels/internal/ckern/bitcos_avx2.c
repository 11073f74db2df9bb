//go:build cgo

// kernels/c sha256: 72dfa6550d2ccf0e23070cf8d9e5f1649b3eba5579b8dab5b786ae907911dbcd
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt")
#include "../../c/bitcos_avx2.c"
