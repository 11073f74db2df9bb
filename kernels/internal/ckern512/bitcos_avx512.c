//go:build cgo

// kernels/c sha256: 71426b11bf59873a9e5d3bdb1c365483d75eb112ddf6650ddc70c02aa737da08
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
