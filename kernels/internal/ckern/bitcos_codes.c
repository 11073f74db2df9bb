//go:build cgo

// kernels/c sha256: dd669f19ac99a1aae8dfb5c545c1bef9b07341889b8055a2cebf92c690b0d07a
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
