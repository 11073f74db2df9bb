//go:build cgo

// kernels/c sha256: 28872ecba432b4b93a3dd90d7ed3f11d6b81eec8a97aedbf33149dae7992301c
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
