//go:build cgo

// kernels/c sha256: 71e1a74352122a0c7e72076fc2df79fe7aa746a6e05ac4150b6508512d194711
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt")
#include "../../c/bitcos_avx2.c"
