//go:build cgo

// kernels/c sha256: e8f2b7b2f79414225477c1d40cede804e3459d1b21e97afd20c1f072a6f8ff23
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
