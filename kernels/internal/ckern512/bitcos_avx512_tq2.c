//go:build cgo

// kernels/c sha256: b8127b7f37d195fee0c3a1ba8116ef0446f9f55c65760721825332ae2f50ddb6
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, FMA, F16C and the no-FMA-contraction rule are pragmas (cgo rejects
// those flags). The kernel's FMA is explicit (_mm256_fmadd_ps).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_avx512_tq2.c"
