//go:build cgo

// kernels/c sha256: 8ec56b59737d186c07c1f554203384607d79f1da3503c982a967ab5ad7866320
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_nopdep.c"
