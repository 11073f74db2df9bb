//go:build cgo

// kernels/c sha256: 54752ff79f7518450ceebe1d9074834f200c00801d61b39aa069f862eed92be9
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
