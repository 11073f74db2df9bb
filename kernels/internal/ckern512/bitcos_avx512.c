//go:build cgo

// kernels/c sha256: 28872ecba432b4b93a3dd90d7ed3f11d6b81eec8a97aedbf33149dae7992301c
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
