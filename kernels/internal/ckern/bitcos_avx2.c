//go:build cgo

// kernels/c sha256: bc7390992a0995170f5b0ae093409a366f2ccbe1740b9748ebe05966ded6ae63
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt")
#include "../../c/bitcos_avx2.c"
