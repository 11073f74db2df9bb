//go:build cgo

// kernels/c sha256: b8127b7f37d195fee0c3a1ba8116ef0446f9f55c65760721825332ae2f50ddb6
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
