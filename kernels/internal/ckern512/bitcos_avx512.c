//go:build cgo

// kernels/c sha256: 4ae5ed671fd1626aec6cc43eda9258ae6f351d8af324114ce91f7918110f3bfe
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
