//go:build cgo

// kernels/c sha256: bc7390992a0995170f5b0ae093409a366f2ccbe1740b9748ebe05966ded6ae63
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
