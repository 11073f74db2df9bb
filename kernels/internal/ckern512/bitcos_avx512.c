//go:build cgo

// kernels/c sha256: bb09912e4fb79dc5b8dbabbd89c71a5d1c160da1016da06da93b4e191c24a6e8
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
