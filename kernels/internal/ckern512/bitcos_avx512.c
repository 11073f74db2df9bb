//go:build cgo

// kernels/c sha256: cad1cf1fb0806e3937e61d52f37753861dc049adc4b1396f82fa1a4086ed6861
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
