//go:build cgo

// kernels/c sha256: 3811aea4d5699c4739ccd03f2ee9bc17237e9656e477240bc7a94809775c9d8a
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
