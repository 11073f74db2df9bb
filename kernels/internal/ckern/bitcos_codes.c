//go:build cgo

// kernels/c sha256: 24bd8a04aa3c1a23da0930e5b51487d8da41ce9ea45d4be4e99e2c2fa1ac29f0
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
