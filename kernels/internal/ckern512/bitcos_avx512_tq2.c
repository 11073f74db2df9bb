//go:build cgo

// kernels/c sha256: 13eea6d077bb6d945205fce0f6c0e53a5c66a87c41bad7e649d70c2783006a56
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, FMA, F16C and the no-FMA-contraction rule are pragmas (cgo rejects
// those flags). The kernel's FMA is explicit (_mm256_fmadd_ps).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_avx512_tq2.c"
