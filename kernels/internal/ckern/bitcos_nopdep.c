//go:build cgo

// kernels/c sha256: b5357bb672d558af5f33414a972c3103ade7f422edd0f81abad25dcd194f9903
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_nopdep.c"
