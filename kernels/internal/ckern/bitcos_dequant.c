//go:build cgo

// kernels/c sha256: 691dfb02bfb9e3eccbd3fc888e5d93e724a6101e93f13c2e79efd78418c17d0b
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
