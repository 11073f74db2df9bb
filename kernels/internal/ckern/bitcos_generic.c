//go:build cgo

// kernels/c sha256: b03951798ba8d6f7e71e5f9952b3ba3d7f73bafde5745fd0a884ee3e432a05fd
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_generic.c"
