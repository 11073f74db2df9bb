//go:build cgo

// kernels/c sha256: e1cb61e8656b179acaacba6afc6a55c7b47c2aacc4f6ea7da5bd4a8e29943122
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
