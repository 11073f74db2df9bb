//go:build cgo

// kernels/c sha256: ef00681315a8599867cb1f65e97b1ef0f3cc01a641b3b83a58f8acf5365f4203
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_avx512_twin.c"
