//go:build cgo

// kernels/c sha256: bbe667e08f1761d103061894d4f1a97e04c0cae1883d70d6d1f9e7d47a144856
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
