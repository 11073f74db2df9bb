//go:build cgo

// kernels/c sha256: 2f24ed9385930c432dcaa6ee66a43f16191b6d75e12de3bab02cd5c1bcea8d0a
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
