//go:build cgo

// kernels/c sha256: 691dfb02bfb9e3eccbd3fc888e5d93e724a6101e93f13c2e79efd78418c17d0b
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_avx512_twin.c"
