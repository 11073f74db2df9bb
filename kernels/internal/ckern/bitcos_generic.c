//go:build cgo

// kernels/c sha256: 6f7ed6521a416696747b4f58c6bd166893fa75760dc93c3ff58a225a843a333e
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_generic.c"
