//go:build cgo

// kernels/c sha256: bc7390992a0995170f5b0ae093409a366f2ccbe1740b9748ebe05966ded6ae63
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
