//go:build cgo

// kernels/c sha256: 72dfa6550d2ccf0e23070cf8d9e5f1649b3eba5579b8dab5b786ae907911dbcd
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
