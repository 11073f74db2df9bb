//go:build cgo

// kernels/c sha256: 8fd8352b12c26c0bdd49b9b3eee88b82ea3b5ce9e927fe6e46d3b1e44f040d37
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
