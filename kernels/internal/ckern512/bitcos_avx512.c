//go:build cgo

// kernels/c sha256: f2b7c1320a2ab6570f10d401882df0b3c87f163aa240212849fe01d0727703fe
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
