//go:build cgo

// kernels/c sha256: fba95bae11117b44f69dad5836f4ea32bfc5cb6d847c458b8c27a0cc5eb5880c
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
