//go:build cgo

// kernels/c sha256: 2f24ed9385930c432dcaa6ee66a43f16191b6d75e12de3bab02cd5c1bcea8d0a
// One translation unit per kernel file (see ckern.go).
#include "../../c/bitcos_select.c"
