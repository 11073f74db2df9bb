//go:build cgo

// kernels/c sha256: 3811aea4d5699c4739ccd03f2ee9bc17237e9656e477240bc7a94809775c9d8a
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
