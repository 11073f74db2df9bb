//go:build cgo

// kernels/c sha256: 7b493ee758089861a1bea961abd4127911e0e5e744460af945758c53579c306a
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
