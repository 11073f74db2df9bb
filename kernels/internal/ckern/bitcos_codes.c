//go:build cgo

// kernels/c sha256: 4384364358d6ee68d38623dd9eed93cc0f6272e087ab22c523217446393ab729
// The AVX2 + BMI2 + FMA build of bitcos_codes.c (target pragma; GCC only).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_codes.c"
