//go:build cgo

// kernels/c sha256: d7c95c36f3f655aa727a43ed4eae9dca17293b36695c26b1367f790f685d1ead
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
