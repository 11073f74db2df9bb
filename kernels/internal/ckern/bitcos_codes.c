//go:build cgo

// kernels/c sha256: da1023978da4c58399babb9ab80ce86e377f7a84914529a016aeef49c8e93703
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
