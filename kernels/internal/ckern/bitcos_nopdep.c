//go:build cgo

// kernels/c sha256: 5e3ec548e1017cc276eb3bd8f82abfddff051b231244f21d2ffbb0d1571c71b4
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_nopdep.c"
