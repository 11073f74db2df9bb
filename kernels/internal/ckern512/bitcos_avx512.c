//go:build cgo

// kernels/c sha256: af038f51cf5a28630afe4f1e32733d4f5b564517cd926c635cde53a5cab6a52a
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
