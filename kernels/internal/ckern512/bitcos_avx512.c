//go:build cgo

// kernels/c sha256: 68aeb0c4bcb7d35817f19577f7491c12c3b07e8f6930b66b3d9c025cded2c465
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
