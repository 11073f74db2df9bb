//go:build cgo

// kernels/c sha256: 71e1a74352122a0c7e72076fc2df79fe7aa746a6e05ac4150b6508512d194711
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
