//go:build cgo

// kernels/c sha256: bbe667e08f1761d103061894d4f1a97e04c0cae1883d70d6d1f9e7d47a144856
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
