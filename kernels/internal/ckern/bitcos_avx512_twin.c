//go:build cgo

// kernels/c sha256: fba95bae11117b44f69dad5836f4ea32bfc5cb6d847c458b8c27a0cc5eb5880c
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_avx512_twin.c"
