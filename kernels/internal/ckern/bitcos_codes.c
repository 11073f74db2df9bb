//go:build cgo

// kernels/c sha256: bc7390992a0995170f5b0ae093409a366f2ccbe1740b9748ebe05966ded6ae63
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
