//go:build cgo

// kernels/c sha256: ce71bb7e090f11eb232d1bd580c9d25d4d25ba1bfff755ff101f61efa0f3bb6d
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
