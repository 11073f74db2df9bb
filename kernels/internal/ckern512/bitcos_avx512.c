//go:build cgo

// kernels/c sha256: 546ed34dc6b6e1a8fd47b300bb10661f00e1042eec7118fc8bab531ddafcac75
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
