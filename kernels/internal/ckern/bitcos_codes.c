//go:build cgo

// kernels/c sha256: c955f8c66dc929252020e322ca9e2eca6cca8b630d9f4a2e5f26878d9ddada4f
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
