//go:build cgo

// kernels/c sha256: 7310b720b050f6580c0aff6b8edf5f1bea15cf3229c24ca93b8946591d9a068f
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, F16C and the no-FMA rule are pragmas (cgo rejects those flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt")
#include "../../c/bitcos_avx512.c"
