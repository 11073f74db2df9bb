//go:build cgo

// kernels/c sha256: 8fd8352b12c26c0bdd49b9b3eee88b82ea3b5ce9e927fe6e46d3b1e44f040d37
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
