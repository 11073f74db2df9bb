//go:build cgo

// kernels/c sha256: 6f7ed6521a416696747b4f58c6bd166893fa75760dc93c3ff58a225a843a333e
// One translation unit per kernel file (see ckern.go).
#include "../../c/bitcos_select.c"
