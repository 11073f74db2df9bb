//go:build cgo

// kernels/c sha256: 6824e2bb6b49dac7ec166dcc7582306483925deb411c3eb2c7f46512fa0a188a
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
