//go:build cgo

// kernels/c sha256: e3340b127044813b9d81f1efe6899403f0fe599148fab69516e26a2b774d4e4e
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, FMA, F16C and the no-FMA-contraction rule are pragmas (cgo rejects
// those flags). The kernel's FMA is explicit (_mm256_fmadd_ps).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_avx512_tq2.c"
