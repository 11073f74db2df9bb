//go:build cgo

// kernels/c sha256: 72dfa6550d2ccf0e23070cf8d9e5f1649b3eba5579b8dab5b786ae907911dbcd
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
