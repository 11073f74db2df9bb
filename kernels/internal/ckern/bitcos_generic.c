//go:build cgo

// kernels/c sha256: d7c95c36f3f655aa727a43ed4eae9dca17293b36695c26b1367f790f685d1ead
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_generic.c"
