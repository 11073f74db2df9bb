//go:build cgo

// kernels/c sha256: ed4bc21b6600bb92b61a0ef0db8409b329f0ea2b0a86e6f132e8ff112dc53c5a
// One translation unit per kernel file (see ckern.go).
#include "../../c/bitcos_select.c"
