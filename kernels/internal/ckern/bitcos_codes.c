//go:build cgo

// kernels/c sha256: ce71bb7e090f11eb232d1bd580c9d25d4d25ba1bfff755ff101f61efa0f3bb6d
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
