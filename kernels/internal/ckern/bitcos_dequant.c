//go:build cgo

// kernels/c sha256: ed4bc21b6600bb92b61a0ef0db8409b329f0ea2b0a86e6f132e8ff112dc53c5a
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
