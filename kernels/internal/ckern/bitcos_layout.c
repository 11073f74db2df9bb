//go:build cgo

// kernels/c sha256: 2f24ed9385930c432dcaa6ee66a43f16191b6d75e12de3bab02cd5c1bcea8d0a
// One translation unit per kernel file (see ckern.go). Its bitcos_row_codes
// is the AVX2 build of bitcos_codes.c (bitcos_codes.c here).
#include "../../c/bitcos_layout.c"
