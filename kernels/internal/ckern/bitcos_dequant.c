//go:build cgo

// kernels/c sha256: 502b2de5e5a808eff59ba82382b8d29f2bddfd0936ce9b32b0508de973173046
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
