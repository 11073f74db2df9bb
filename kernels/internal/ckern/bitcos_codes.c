//go:build cgo

// kernels/c sha256: 0ac6d7c0d7bb2d5b5ae299e86829981c7d072aff3d82694cc6777be4f41b8cde
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
