//go:build cgo

// kernels/c sha256: 502b2de5e5a808eff59ba82382b8d29f2bddfd0936ce9b32b0508de973173046
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_avx512_twin.c"
