//go:build cgo

// kernels/c sha256: 045dfb2b439df339a9c9807623dc5976dfbd4e8161c50bf9d648d022374c592b
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
