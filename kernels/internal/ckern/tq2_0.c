//go:build cgo

// kernels/c sha256: 502b2de5e5a808eff59ba82382b8d29f2bddfd0936ce9b32b0508de973173046
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,f16c")
#include "../../c/bench/tq2_0.c"
