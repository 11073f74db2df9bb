//go:build cgo

// kernels/c sha256: 71426b11bf59873a9e5d3bdb1c365483d75eb112ddf6650ddc70c02aa737da08
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
