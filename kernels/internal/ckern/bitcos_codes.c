//go:build cgo

// kernels/c sha256: e3340b127044813b9d81f1efe6899403f0fe599148fab69516e26a2b774d4e4e
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
