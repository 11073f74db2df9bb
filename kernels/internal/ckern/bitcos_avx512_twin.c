//go:build cgo

// kernels/c sha256: c6f679d9cbc3279c098420cff3fe4146ed3b154271ea1ad4bc88f8871789c118
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_avx512_twin.c"
