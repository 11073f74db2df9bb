//go:build cgo

// kernels/c sha256: c6f679d9cbc3279c098420cff3fe4146ed3b154271ea1ad4bc88f8871789c118
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
