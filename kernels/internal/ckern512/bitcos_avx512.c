//go:build cgo

// kernels/c sha256: c6f679d9cbc3279c098420cff3fe4146ed3b154271ea1ad4bc88f8871789c118
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
