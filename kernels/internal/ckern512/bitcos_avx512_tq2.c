//go:build cgo

// kernels/c sha256: b632870ee0b6b34c65444f3672ee37819841cd4dcb1777891959797732e0e211
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, FMA, F16C and the no-FMA-contraction rule are pragmas (cgo rejects
// those flags). The kernel's FMA is explicit (_mm256_fmadd_ps).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_avx512_tq2.c"
