//go:build cgo

// kernels/c sha256: 13eea6d077bb6d945205fce0f6c0e53a5c66a87c41bad7e649d70c2783006a56
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
