//go:build cgo

// kernels/c sha256: 691dfb02bfb9e3eccbd3fc888e5d93e724a6101e93f13c2e79efd78418c17d0b
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
