//go:build cgo

// kernels/c sha256: 5e3ec548e1017cc276eb3bd8f82abfddff051b231244f21d2ffbb0d1571c71b4
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
