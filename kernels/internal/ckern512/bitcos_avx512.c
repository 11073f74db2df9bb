//go:build cgo

// kernels/c sha256: 502b2de5e5a808eff59ba82382b8d29f2bddfd0936ce9b32b0508de973173046
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
