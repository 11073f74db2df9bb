//go:build cgo

// kernels/c sha256: b632870ee0b6b34c65444f3672ee37819841cd4dcb1777891959797732e0e211
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
