//go:build cgo

// kernels/c sha256: 7886eaca4bcbb87525a04972d76bd97ab47f6d33777f4837abb45e99a20270b3
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_generic.c"
