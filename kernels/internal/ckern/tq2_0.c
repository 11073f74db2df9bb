//go:build cgo

// kernels/c sha256: cad1cf1fb0806e3937e61d52f37753861dc049adc4b1396f82fa1a4086ed6861
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,f16c")
#include "../../c/bench/tq2_0.c"
