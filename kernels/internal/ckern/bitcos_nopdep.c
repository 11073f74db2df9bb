//go:build cgo

// kernels/c sha256: 24bd8a04aa3c1a23da0930e5b51487d8da41ce9ea45d4be4e99e2c2fa1ac29f0
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_nopdep.c"
