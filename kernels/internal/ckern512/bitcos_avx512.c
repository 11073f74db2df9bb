//go:build cgo

// kernels/c sha256: bbe667e08f1761d103061894d4f1a97e04c0cae1883d70d6d1f9e7d47a144856
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
