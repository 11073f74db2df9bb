//go:build cgo

// kernels/c sha256: f2b7c1320a2ab6570f10d401882df0b3c87f163aa240212849fe01d0727703fe
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
