//go:build cgo

// kernels/c sha256: da1023978da4c58399babb9ab80ce86e377f7a84914529a016aeef49c8e93703
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_avx512_twin.c"
