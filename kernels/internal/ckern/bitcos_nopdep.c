//go:build cgo

// kernels/c sha256: 4bf9fbd62f692a90743074818c7664acb624c51c9328b68367445114197ceb14
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_nopdep.c"
