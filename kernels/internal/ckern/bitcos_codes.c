//go:build cgo

// kernels/c sha256: 5bfa9c5afbb5c0138abe81a00365c7e02b0bc7a4224dec0bd2d765f4ae41745f
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
