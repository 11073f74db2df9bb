//go:build cgo

// kernels/c sha256: 293ef58fce6670cc59240253c94bb96959bffb60146fc2b483acea331ea794c6
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
