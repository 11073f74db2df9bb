//go:build cgo

// kernels/c sha256: 6432fd8f9e9294f86f9f463dc10ea2322cc9c66c642a09f54758d92f9de62522
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt")
#include "../../c/bitcos_nopdep.c"
