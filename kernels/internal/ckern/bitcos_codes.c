//go:build cgo

// kernels/c sha256: c6f679d9cbc3279c098420cff3fe4146ed3b154271ea1ad4bc88f8871789c118
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
