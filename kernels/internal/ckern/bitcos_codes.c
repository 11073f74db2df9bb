//go:build cgo

// kernels/c sha256: 8ec56b59737d186c07c1f554203384607d79f1da3503c982a967ab5ad7866320
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
