//go:build cgo

// kernels/c sha256: 3811aea4d5699c4739ccd03f2ee9bc17237e9656e477240bc7a94809775c9d8a
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_generic.c"
