//go:build cgo

// kernels/c sha256: ef00681315a8599867cb1f65e97b1ef0f3cc01a641b3b83a58f8acf5365f4203
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
