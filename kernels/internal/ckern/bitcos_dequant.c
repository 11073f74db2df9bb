//go:build cgo

// kernels/c sha256: 546ed34dc6b6e1a8fd47b300bb10661f00e1042eec7118fc8bab531ddafcac75
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
