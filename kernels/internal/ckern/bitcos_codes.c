//go:build cgo

// kernels/c sha256: 4ace7b89689f457958330c59f93835d763f01d88ec0ac45321cbcec1adb4a148
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
