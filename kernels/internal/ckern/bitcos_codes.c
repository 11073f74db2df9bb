//go:build cgo

// kernels/c sha256: af038f51cf5a28630afe4f1e32733d4f5b564517cd926c635cde53a5cab6a52a
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
