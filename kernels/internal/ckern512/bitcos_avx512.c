//go:build cgo

// kernels/c sha256: 6432fd8f9e9294f86f9f463dc10ea2322cc9c66c642a09f54758d92f9de62522
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
