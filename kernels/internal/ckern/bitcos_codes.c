//go:build cgo

// kernels/c sha256: 5e3ec548e1017cc276eb3bd8f82abfddff051b231244f21d2ffbb0d1571c71b4
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
