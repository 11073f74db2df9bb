//go:build cgo

// kernels/c sha256: 7886eaca4bcbb87525a04972d76bd97ab47f6d33777f4837abb45e99a20270b3
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
