//go:build cgo

// kernels/c sha256: cad1cf1fb0806e3937e61d52f37753861dc049adc4b1396f82fa1a4086ed6861
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
