//go:build cgo

// kernels/c sha256: 5307c1aa96c6b268f0cd91a1ea12ff1b85bf079e76afa7bf275a5ca55a4b225a
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
