//go:build cgo

// kernels/c sha256: b03951798ba8d6f7e71e5f9952b3ba3d7f73bafde5745fd0a884ee3e432a05fd
// One translation unit per kernel file (see ckern.go). Its bitcos_row_codes
// is the AVX2 build of bitcos_codes.c (bitcos_codes.c here).
#include "../../c/bitcos_layout.c"
