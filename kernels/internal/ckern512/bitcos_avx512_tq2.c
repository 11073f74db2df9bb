//go:build cgo

// kernels/c sha256: 3811aea4d5699c4739ccd03f2ee9bc17237e9656e477240bc7a94809775c9d8a
// Its own translation unit, compiled with -mavx512f -mavx512bw (ckern512.go);
// BMI2, FMA, F16C and the no-FMA-contraction rule are pragmas (cgo rejects
// those flags). The kernel's FMA is explicit (_mm256_fmadd_ps).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_avx512_tq2.c"
