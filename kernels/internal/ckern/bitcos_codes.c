//go:build cgo

// kernels/c sha256: 7310b720b050f6580c0aff6b8edf5f1bea15cf3229c24ca93b8946591d9a068f
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
