//go:build cgo

// kernels/c sha256: 13eea6d077bb6d945205fce0f6c0e53a5c66a87c41bad7e649d70c2783006a56
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt")
#include "../../c/bitcos_avx2.c"
