//go:build cgo

// kernels/c sha256: e1cb61e8656b179acaacba6afc6a55c7b47c2aacc4f6ea7da5bd4a8e29943122
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,f16c")
#include "../../c/bench/tq2_0.c"
