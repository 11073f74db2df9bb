//go:build cgo

// kernels/c sha256: 68aeb0c4bcb7d35817f19577f7491c12c3b07e8f6930b66b3d9c025cded2c465
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
