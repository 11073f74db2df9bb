//go:build cgo

// kernels/c sha256: 13eea6d077bb6d945205fce0f6c0e53a5c66a87c41bad7e649d70c2783006a56
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
