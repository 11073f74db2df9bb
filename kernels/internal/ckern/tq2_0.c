//go:build cgo

// kernels/c sha256: 28872ecba432b4b93a3dd90d7ed3f11d6b81eec8a97aedbf33149dae7992301c
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,f16c")
#include "../../c/bench/tq2_0.c"
