//go:build cgo

// kernels/c sha256: 5bfa9c5afbb5c0138abe81a00365c7e02b0bc7a4224dec0bd2d765f4ae41745f
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_nopdep.c"
