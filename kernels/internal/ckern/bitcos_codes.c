//go:build cgo

// kernels/c sha256: 21849d4b9a9400e58112c10a780f46f938ceccaccd4c6eae8f9425bd2c221223
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
