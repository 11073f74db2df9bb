//go:build cgo

// kernels/c sha256: af038f51cf5a28630afe4f1e32733d4f5b564517cd926c635cde53a5cab6a52a
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_generic.c"
