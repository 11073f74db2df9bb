//go:build cgo

// kernels/c sha256: 4ae5ed671fd1626aec6cc43eda9258ae6f351d8af324114ce91f7918110f3bfe
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt")
#include "../../c/bitcos_nopdep.c"
