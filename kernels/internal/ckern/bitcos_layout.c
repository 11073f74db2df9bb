//go:build cgo

// kernels/c sha256: bbe667e08f1761d103061894d4f1a97e04c0cae1883d70d6d1f9e7d47a144856
// One translation unit per kernel file (see ckern.go). Its bitcos_row_codes
// is the AVX2 build of bitcos_codes.c (bitcos_codes.c here).
#include "../../c/bitcos_layout.c"
