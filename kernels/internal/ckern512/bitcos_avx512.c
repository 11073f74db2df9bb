//go:build cgo

// kernels/c sha256: a0f0caec83fbdebfa4e674f57a2deda281dc1bc28784b783f00431d6d132f3d8
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
