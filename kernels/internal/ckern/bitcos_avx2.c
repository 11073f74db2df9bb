//go:build cgo

// kernels/c sha256: 54752ff79f7518450ceebe1d9074834f200c00801d61b39aa069f862eed92be9
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt")
#include "../../c/bitcos_avx2.c"
