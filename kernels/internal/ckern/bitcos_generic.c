//go:build cgo

// kernels/c sha256: 8fd8352b12c26c0bdd49b9b3eee88b82ea3b5ce9e927fe6e46d3b1e44f040d37
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_generic.c"
