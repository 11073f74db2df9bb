//go:build cgo

// kernels/c sha256: b632870ee0b6b34c65444f3672ee37819841cd4dcb1777891959797732e0e211
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
