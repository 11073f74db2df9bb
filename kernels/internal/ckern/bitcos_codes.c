//go:build cgo

// kernels/c sha256: 546ed34dc6b6e1a8fd47b300bb10661f00e1042eec7118fc8bab531ddafcac75
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
